import {isPublished} from './document-set.ts'
import {COLLECTION_OF_DOCUMENT_TYPE, SERVED_DOCUMENT_TYPES} from '../../catalog/document-types.ts'

/** A document that changed, as a webhook or the dataset file names it. */
export interface DocumentChange {
  documentId: string
  collection: (typeof COLLECTION_OF_DOCUMENT_TYPE)[keyof typeof COLLECTION_OF_DOCUMENT_TYPE]
}

/** What a replica or a webhook reports: one document changed, or `all` (re-read everything). */
export type ContentChange = DocumentChange | 'all'

/** What a change to one document means for the catalog: nothing for drafts, release versions and types it does not serve. */
export function documentChangeOf(documentId: string, type: string): DocumentChange | undefined {
  const served = SERVED_DOCUMENT_TYPES.find((candidate) => candidate === type)
  if (!isPublished(documentId) || !served) return undefined
  return {documentId, collection: COLLECTION_OF_DOCUMENT_TYPE[served]}
}

/** The podcast settings singleton's document type: not a collection, but the feed's channel. */
const PODCAST_SETTINGS_TYPE = 'podcastSettings'

/**
 * A published change to the podcast settings. The feed's channel is read with the whole catalog,
 * so such a change asks for a full re-read (settings are edited rarely; episodes, often).
 */
export function isPodcastSettingsChange(documentId: string, type: string): boolean {
  return type === PODCAST_SETTINGS_TYPE && isPublished(documentId)
}
