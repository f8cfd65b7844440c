import {createHash} from 'node:crypto'

/** One pre-built HTTP response body with its validators. Built once per snapshot, never per request. */
export interface Representation {
  readonly body: Buffer
  readonly contentType: string
  /** Strong validator derived from the bytes alone, so every replica and restart agree. */
  readonly etag: string
  readonly lastModified: Date
  /** Pre-formatted header values: requests copy them, they never format or hash. */
  readonly lastModifiedHeader: string
  /** Headers this document always carries (a `Link`, say). */
  readonly headers: Readonly<Record<string, string>>
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

export function strongEtag(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
}

/** `lastModifiedFor` receives the new ETag, so a caller can keep the previous date when the bytes did not change. */
export function represent(
  content: Buffer | string,
  lastModifiedFor: (etag: string) => Date,
  contentType = JSON_CONTENT_TYPE,
  headers: Readonly<Record<string, string>> = {},
): Representation {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  const etag = strongEtag(body)
  const lastModified = wholeSeconds(lastModifiedFor(etag))
  return Object.freeze({body, contentType, etag, lastModified, lastModifiedHeader: lastModified.toUTCString(), headers})
}

/** HTTP dates have one-second resolution; keeping that here makes If-Modified-Since comparisons exact. */
function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000)
}
