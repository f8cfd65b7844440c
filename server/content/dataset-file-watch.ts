import {documentChangeOf, isPodcastSettingsChange, type ContentChange} from './content-change.ts'
import type {ContentSource} from './source.ts'
import {watchFile} from './watch-file.ts'

/** Where a watched dataset file's edits go: the publish path (publish-path.ts). */
export interface DatasetFileChanges {
  /** The documents an edit touched, as a webhook would name them (`all` for the podcast settings). */
  accepted(changes: ContentChange[]): unknown
  /** The file changed and could not be read: everything is read again, and the store retries. */
  reread(reason: string): void
}

/**
 * An edit of the dataset file rebuilds the documents it touched; a file that cannot be read is
 * left to the store, which keeps serving the last good snapshot and retries. Returns the unwatch.
 */
export function watchDatasetFile(
  file: string,
  source: Pick<ContentSource, 'changedDocuments'>,
  changes: DatasetFileChanges,
): () => void {
  return watchFile(file, () => {
    source.changedDocuments?.().then(
      (touched) => {
        const settingsChanged = touched.some((document) => isPodcastSettingsChange(document.id, document.type))
        const accepted = settingsChanged
          ? ['all' as const]
          : touched.flatMap((document) => documentChangeOf(document.id, document.type) ?? [])
        if (accepted.length > 0) changes.accepted(accepted)
      },
      () => changes.reread(`${file} changed and could not be read`),
    )
  })
}
