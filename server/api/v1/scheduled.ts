import type {Catalog, CatalogEntry} from './catalog.ts'
import type {Episode} from './contract.ts'
import {firstIndexNotBefore} from './order.ts'

/**
 * The catalog as served `asOf` an instant: episodes whose release time is after it are held back
 * in `scheduled`, out of every output. Episodes are sorted latest release first, so the held ones
 * are a prefix. What is served depends only on the content and which releases are past, never on
 * when the build ran, so replicas and restarts reach the same bytes.
 */
export function releasedAsOf(catalog: Catalog, asOf: Date): Catalog {
  const whole = wholeCatalog(catalog)
  const cut = asOf.toISOString()
  const held = firstIndexNotBefore(whole.episodes, (entry) => entry.value.published_at > cut)
  if (held === 0) return whole
  return {...whole, episodes: servedEpisodes(whole.episodes, held), scheduled: whole.episodes.slice(0, held)}
}

/** The catalog with its held-back episodes back in place: what mapping and patching work on. */
export function wholeCatalog(catalog: Catalog): Catalog {
  const {scheduled = []} = catalog
  if (scheduled.length === 0) return catalog
  return {...catalog, episodes: [...scheduled, ...catalog.episodes], scheduled: []}
}

/** The next release: its time and the episodes it releases; undefined when nothing is held back. */
export function nextRelease(catalog: Catalog): {at: Date; documentIds: string[]} | undefined {
  const {scheduled = []} = catalog
  const earliest = scheduled.at(-1)?.value.published_at
  if (earliest === undefined) return undefined
  const documentIds = scheduled
    .filter((entry) => entry.value.published_at === earliest)
    .map((entry) => entry.documentId)
  return {at: new Date(earliest), documentIds}
}

// The served list for a whole list and a cut, kept while both stay the same: an edit of a meetup
// or a voice then hands the snapshot the very same episodes array, which it reuses whole.
const servedLists = new WeakMap<readonly CatalogEntry<Episode>[], {held: number; served: CatalogEntry<Episode>[]}>()
function servedEpisodes(whole: readonly CatalogEntry<Episode>[], held: number): CatalogEntry<Episode>[] {
  const known = servedLists.get(whole)
  if (known?.held === held) return known.served
  const served = whole.slice(held)
  servedLists.set(whole, {held, served})
  return served
}
