import type {SanityDocument} from '../server/content/ndjson.ts'

/**
 * Grows the sample dataset to about `total` published documents by cloning its episodes, meetups
 * and voices (in the sample's proportions) under new ids, slugs and dates. References point at
 * cloned voices, so the grown dataset exercises the same GROQ joins as the real one.
 */
export function growDataset(sample: readonly SanityDocument[], total: number): SanityDocument[] {
  const published = sample.filter((document) => !document._id.startsWith('drafts.'))
  const ofType = (type: string) => published.filter((document) => document._type === type)
  const [episodes, meetups, voices] = [ofType('episode'), ofType('meetup'), ofType('voice')]
  const assets = ofType('sanity.imageAsset')
  const catalogSize = episodes.length + meetups.length + voices.length
  const copies = Math.max(1, Math.round(total / catalogSize))
  // The podcast settings singleton stays one document: its hosts are the first copy's voices.
  const grown: SanityDocument[] = [...assets, ...ofType('podcastSettings')]
  for (let copy = 0; copy < copies; copy++) {
    const suffix = copy === 0 ? '' : `-${copy}`
    const renamed = (document: SanityDocument): SanityDocument => {
      const slug = document.slug
      const current =
        typeof slug === 'object' && slug !== null && 'current' in slug ? String(slug.current) : document._id
      return {...document, _id: `${document._id}${suffix}`, slug: {_type: 'slug', current: `${current}${suffix}`}}
    }
    const withReferences = (document: SanityDocument, field: string): SanityDocument => {
      const references = document[field]
      if (!Array.isArray(references)) return document
      return {
        ...document,
        [field]: references.map((reference: {_ref: string; _key: string}) => ({
          ...reference,
          _ref: `${reference._ref}${suffix}`,
        })),
      }
    }
    grown.push(...voices.map(renamed))
    grown.push(...episodes.map((document) => withReferences(renamed(document), 'guests')))
    grown.push(...meetups.map((document) => withReferences(renamed(document), 'speakers')))
  }
  return grown
}
