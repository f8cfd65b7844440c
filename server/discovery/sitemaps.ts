import {COLLECTION_NAMES} from '../api/v1/links.ts'
import type {Representation} from '../snapshot/representation.ts'
import type {SiteDocument, Snapshot} from '../snapshot/snapshot.ts'

const MAX_URLS = 50_000 // per sitemap file, as the sitemaps protocol allows
const XML = 'application/xml; charset=utf-8'

interface Entry {
  lastmod: Date
  /** The `<url>` element. */
  line: string
}

// A representation's `<url>` line, made once: after an edit, a sitemap of 50,000 items is the
// same lines joined again, not 50,000 dates formatted and URLs escaped again.
const lines = new WeakMap<Representation, {base: string; line: string}>()

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const w3c = (date: Date) => date.toISOString().replace('.000Z', 'Z')

/**
 * `/sitemap-index.xml` and one sitemap per collection (split every 50,000 URLs) listing the API
 * records, each with the Last-Modified of its served bytes, plus one for the list and service
 * documents: clients re-read what moved.
 */
export function buildSitemaps(snapshot: Snapshot, publicBaseUrl: string): SiteDocument[] {
  const api = (path: string) => `${publicBaseUrl}/api/v1/${path}`
  const entry = (representation: Representation | undefined, path: () => string): Entry[] => {
    if (!representation) return []
    let made = lines.get(representation)
    if (made?.base !== publicBaseUrl) {
      const line = `<url><loc>${escape(api(path()))}</loc><lastmod>${w3c(representation.lastModified)}</lastmod></url>`
      lines.set(representation, (made = {base: publicBaseUrl, line}))
    }
    return [{lastmod: representation.lastModified, line: made.line}]
  }
  const documents = ['index.json', 'all.json', ...COLLECTION_NAMES.map((name) => `${name}.json`)]
  const groups: [string, Entry[]][] = [['api', documents.flatMap((path) => entry(snapshot.representation(path), () => path))]]
  for (const name of COLLECTION_NAMES) {
    const entries = snapshot.catalog[name].flatMap(({value}) => entry(snapshot.item(name, value.slug), () => `${name}/${value.slug}.json`))
    for (let part = 0; part * MAX_URLS < Math.max(entries.length, 1); part++) {
      groups.push([part === 0 ? name : `${name}-${part + 1}`, entries.slice(part * MAX_URLS, (part + 1) * MAX_URLS)])
    }
  }
  const latest = (entries: Entry[]) => new Date(entries.reduce((newest, entry) => Math.max(newest, entry.lastmod.getTime()), 0))
  const sitemaps: SiteDocument[] = groups.map(([name, entries]) => ({
    path: `/sitemaps/${name}.xml`,
    contentType: XML,
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.map((entry) => entry.line).join('\n')}\n</urlset>\n`,
  }))
  const index = groups
    .map(([name, entries]) => `<sitemap><loc>${escape(`${publicBaseUrl}/sitemaps/${name}.xml`)}</loc><lastmod>${w3c(latest(entries))}</lastmod></sitemap>`)
    .join('\n')
  return [
    {path: '/sitemap-index.xml', contentType: XML, body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${index}\n</sitemapindex>\n`},
    ...sitemaps,
  ]
}
