// The settings and GROQ evaluation the catalog mapping tests share: documents in memory, read with
// the server's own queries through the embedded source.
import {createLinks} from '../../server/api/v1/links.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})
export const settings = {links, feedUrl: 'https://site.test/feed.xml'}

/** One GROQ query over these documents, as the embedded source answers it. */
export const fetchFrom = (documents: SanityDocument[], query: string, params?: Record<string, unknown>) =>
  createEmbeddedSource('inline', async () => documents).fetch(query, params)
