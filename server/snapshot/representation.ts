import {createHash} from 'node:crypto'
import {ChunkedBody, type Body} from './chunked-body.ts'
import {compress, CONTENT_CODINGS, type ContentCoding} from './compression.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'

/** The header a representation carries to take range requests (http/byte-ranges.ts): its bytes are served in parts. */
export const ACCEPT_RANGES = {'Accept-Ranges': 'bytes'} as const

/** One encoding of a representation's bytes, with the ETag that names exactly those bytes. */
export interface Variant<B extends Body = Body> {
  readonly coding: ContentCoding | 'identity'
  readonly body: B
  readonly etag: string
}

/** A compressed variant; compressed bytes are always one buffer. */
export type EncodedVariant = Variant<Buffer>

// Recorded for a coding whose output is not smaller than the identity bytes: never sent.
const NOT_WORTH_SENDING: EncodedVariant = Object.freeze({coding: 'identity', body: Buffer.alloc(0), etag: ''})

/** Where a representation keeps its compressed variants, by `ETag coding`. */
export interface VariantStore {
  get(key: string): EncodedVariant | undefined
  set(key: string, variant: EncodedVariant): unknown
}

/**
 * One pre-built HTTP response body with its validators and its compressed variants. Built once
 * per snapshot, never per request; variants are compressed once, ahead of time by `precompress`
 * or on first use, and kept: by the representation itself, or in a bounded store shared by many
 * (items), which may drop them again.
 */
export class Representation<B extends Body = Body> {
  readonly body: B
  readonly contentType: string
  /** Strong validator derived from the bytes alone, so every replica and restart agree. */
  readonly etag: string
  readonly identity: Variant<B>
  readonly lastModified: Date
  /** Pre-formatted header values: requests copy them, they never format or hash. */
  readonly lastModifiedHeader: string
  /** Headers this document always carries (a `Link`, say). */
  readonly headers: Readonly<Record<string, string>>
  /** The same headers as a flat name, value list, as `writeHead` takes them fastest. */
  readonly headerList: readonly string[]
  readonly #variants: VariantStore
  // Made on the first compression: most items are never compressed, and an empty Map per item adds up.
  #encoding: Map<ContentCoding, Promise<EncodedVariant | null>> | undefined

  /** `lastModifiedFor` receives the ETag, so a caller can keep the previous date when the bytes did not change. */
  constructor(
    body: B,
    contentType: string,
    lastModifiedFor: (etag: string) => Date,
    headers: Readonly<Record<string, string>>,
    variants: VariantStore = new Map<string, EncodedVariant>(),
    etag = strongEtag(body),
  ) {
    this.body = body
    this.contentType = contentType
    this.etag = etag
    this.identity = Object.freeze({coding: 'identity', body, etag: this.etag})
    this.lastModified = lastModifiedFor(this.etag)
    this.lastModifiedHeader = this.lastModified.toUTCString()
    this.headers = headers
    this.headerList = Object.entries(headers).flat()
    this.#variants = variants
    Object.freeze(this) // private fields stay writable: they memoise variants, which depend on the bytes alone
  }

  /** The variant in `coding` if it is ready; null when that coding is not worth sending, undefined while not yet compressed. */
  encoded(coding: ContentCoding): EncodedVariant | null | undefined {
    const variant = this.#variants.get(this.#key(coding))
    return variant === NOT_WORTH_SENDING ? null : variant
  }

  #key(coding: ContentCoding): string {
    return `${this.etag} ${coding}`
  }

  /** Compresses into `coding` once; concurrent callers share the work. */
  encode(coding: ContentCoding): Promise<EncodedVariant | null> {
    const ready = this.encoded(coding)
    if (ready !== undefined) return Promise.resolve(ready)
    const encoding = (this.#encoding ??= new Map<ContentCoding, Promise<EncodedVariant | null>>())
    let pending = encoding.get(coding)
    if (!pending) {
      pending = compress(coding, this.body).then((compressed) => {
        // RFC 9110 8.8.3: each content coding is a distinct representation with its own entity tag.
        const variant =
          compressed.length < this.body.length
            ? Object.freeze({coding, body: compressed, etag: `${this.etag.slice(0, -1)}-${coding}"`})
            : null
        this.#variants.set(this.#key(coding), variant ?? NOT_WORTH_SENDING)
        return variant
      })
      pending.finally(() => encoding.delete(coding)).catch(() => undefined)
      encoding.set(coding, pending)
    }
    return pending
  }

  /** Compresses every coding not compressed yet. */
  async precompress(): Promise<void> {
    await Promise.all(CONTENT_CODINGS.map((coding) => this.encode(coding)))
  }
}

/** The strong ETag of these bytes; a saved item is checked against it. */
export function strongEtag(body: Body): string {
  const hash = createHash('sha256')
  if (Buffer.isBuffer(body)) hash.update(body)
  else for (const chunk of body.chunks) hash.update(chunk)
  // 24 bytes are exactly 32 base64url characters. JSON.stringify adds the quotes as one flat string:
  // a template literal would keep a rope of three strings and a slice of a fourth alive, 80 bytes more an item.
  return JSON.stringify(hash.digest().toString('base64url', 0, 24))
}

export interface RepresentOptions {
  contentType?: string
  headers?: Readonly<Record<string, string>>
  /** Where compressed variants go; the representation keeps its own when not given. */
  variants?: VariantStore
  /**
   * A strong validator the caller already has for these bytes (one derived from the digests of
   * the items a document is made of), instead of hashing them again.
   */
  etag?: string
}

/** `lastModifiedFor` receives the new ETag, so a caller can keep the previous date when the bytes did not change. */
export function represent(
  content: Buffer | string,
  lastModifiedFor: (etag: string) => Date,
  options?: RepresentOptions,
): Representation<Buffer>
export function represent(
  content: ChunkedBody,
  lastModifiedFor: (etag: string) => Date,
  options?: RepresentOptions,
): Representation<ChunkedBody>
export function represent(
  content: Body | string,
  lastModifiedFor: (etag: string) => Date,
  options: RepresentOptions = {},
): Representation {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  return new Representation(
    body,
    options.contentType ?? MEDIA_TYPES.json,
    (etag) => wholeSeconds(lastModifiedFor(etag)),
    options.headers ?? {},
    options.variants,
    options.etag,
  )
}

/** HTTP dates have one-second resolution; keeping that here makes If-Modified-Since comparisons exact. */
function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000)
}
