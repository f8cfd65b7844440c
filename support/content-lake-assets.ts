import {createHash} from 'node:crypto'
import {extname} from 'node:path'
import type {SanityDocument} from '../server/content/ndjson.ts'

/**
 * The `sanity.fileAsset` document the Content Lake makes of an upload (`POST /assets/files/{dataset}`,
 * the body the file's bytes, `filename` in the query, the type in Content-Type): its id is
 * `file-<sha1>-<extension>`, and it carries the size and MIME type the catalog's projection encloses.
 */
export function fileAssetOf(
  bytes: Buffer,
  upload: {projectId: string; dataset: string; filename: string | null; mimeType: string},
): SanityDocument {
  const sha1 = createHash('sha1').update(bytes).digest('hex')
  const extension =
    extname(upload.filename ?? '')
      .slice(1)
      .toLowerCase() || 'bin'
  const path = `files/${upload.projectId}/${upload.dataset}/${sha1}.${extension}`
  const now = new Date().toISOString()
  return {
    _id: `file-${sha1}-${extension}`,
    _type: 'sanity.fileAsset',
    _createdAt: now,
    _updatedAt: now,
    _rev: sha1.slice(0, 22),
    assetId: sha1,
    sha1hash: sha1,
    extension,
    mimeType: upload.mimeType,
    originalFilename: upload.filename ?? `${sha1}.${extension}`,
    size: bytes.length,
    path,
    url: `https://cdn.sanity.io/${path}`,
    uploadId: crypto.randomUUID(),
  }
}
