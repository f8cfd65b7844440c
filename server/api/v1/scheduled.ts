import {IdentityMemo} from '../../identity-memo.ts'
import {releaseHeldNote, type Catalog, type CatalogEntry} from '../../../catalog/v1/catalog.ts'
import type {Episode} from '../../../catalog/v1/contract.ts'
import {firstIndexNotBefore} from '../../../catalog/v1/order.ts'

/**
 * The catalog as served `asOf` an instant: episodes whose release time is after it are held back
 * in `scheduled`, out of every output. Episodes are sorted latest release first, so the held ones
 * are a prefix. What is served depends only on the content and which releases are past, never on
 * when the build ran, so replicas and restarts reach the same bytes; the one exception is an edit
 * refused before the release, which holds it (withRefusedEditsHeld).
 */
export function releasedAsOf(catalog: Catalog, asOf: Date): Catalog {
  const cut = asOf.toISOString()
  const whole = withRefusedEditsHeld(wholeCatalog(catalog), cut)
  const held = firstIndexNotBefore(whole.episodes, (entry) => entry.value.published_at > cut)
  if (held === 0) return whole
  return {...whole, episodes: servedEpisodes(whole.episodes, held), scheduled: whole.episodes.slice(0, held)}
}

/**
 * An episode not yet released (as of the build that first applies the refusal) whose edit was
 * refused is not released at its last valid version's time: the edit may have meant to move it later. Its last valid version is dropped (its problem
 * turns `rejected`, saying why; mapping says so again while the document stays refused), so no
 * release is armed for it and nothing serves it until a valid version arrives, whose own time
 * then applies. An episode already released keeps its last valid version served (`kept`).
 */
function withRefusedEditsHeld(catalog: Catalog, cut: string): Catalog {
  const refused = new Set(
    catalog.problems
      .filter((problem) => problem.collection === 'episodes' && problem.severity === 'kept')
      .map((problem) => problem.documentId),
  )
  if (refused.size === 0) return catalog
  const ahead = firstIndexNotBefore(catalog.episodes, (entry) => entry.value.published_at > cut)
  const held = new Map(
    catalog.episodes
      .slice(0, ahead)
      .filter((entry) => refused.has(entry.documentId))
      .map((entry) => [entry.documentId, entry.value.published_at]),
  )
  if (held.size === 0) return catalog
  return {
    ...catalog,
    episodes: catalog.episodes.filter((entry) => !held.has(entry.documentId)),
    problems: catalog.problems.map((problem) => {
      const releaseAt = problem.collection === 'episodes' ? held.get(problem.documentId) : undefined
      if (releaseAt === undefined) return problem
      return {...problem, severity: 'rejected' as const, messages: [...problem.messages, releaseHeldNote(releaseAt)]}
    }),
  }
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
const servedLists = new IdentityMemo<
  readonly CatalogEntry<Episode>[],
  {held: number; served: CatalogEntry<Episode>[]}
>()
function servedEpisodes(whole: readonly CatalogEntry<Episode>[], held: number): CatalogEntry<Episode>[] {
  return servedLists.get(
    whole,
    () => ({held, served: whole.slice(held)}),
    (known) => known.held === held,
  ).served
}
