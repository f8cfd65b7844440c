/** The Sanity document types the catalog serves, and the collection each is served in: written once. */
export const SERVED_DOCUMENT_TYPES = ['episode', 'meetup', 'voice'] as const

export type ServedDocumentType = (typeof SERVED_DOCUMENT_TYPES)[number]

export const COLLECTION_OF_DOCUMENT_TYPE: {readonly [Type in ServedDocumentType]: `${Type}s`} = {
  episode: 'episodes',
  meetup: 'meetups',
  voice: 'voices',
}
