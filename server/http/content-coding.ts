import Negotiator from 'negotiator'
import {CONTENT_CODINGS, type ContentCoding} from '../snapshot/compression.ts'
import type {Representation, Variant} from '../snapshot/representation.ts'

const OFFERED = [...CONTENT_CODINGS, 'identity']
const MAX_REMEMBERED = 256
// Clients send few distinct Accept-Encoding values, so each is parsed once and remembered.
const remembered = new Map<string, ContentCoding | 'identity'>()

/**
 * The coding to answer with (RFC 9110 12.5.3): highest q-value first, ties broken by the
 * server's preference (br, gzip, identity). When the client refuses all of them, identity is
 * sent anyway, as the RFC allows, rather than a 406.
 */
export function negotiateContentCoding(acceptEncoding: string | undefined): ContentCoding | 'identity' {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity'
  const known = remembered.get(acceptEncoding)
  if (known) return known
  const chosen = new Negotiator({headers: {'accept-encoding': acceptEncoding}}).encoding(OFFERED, {preferred: OFFERED})
  const coding = CONTENT_CODINGS.find((candidate) => candidate === chosen) ?? 'identity'
  if (remembered.size >= MAX_REMEMBERED) remembered.clear()
  remembered.set(acceptEncoding, coding)
  return coding
}

/**
 * The variant to send for this Accept-Encoding: the negotiated coding's when it is ready, identity
 * when the client takes none or that coding would not be smaller, and otherwise the coding's
 * variant once it is compressed (its first request: a large bulk document takes seconds), or
 * identity if compressing fails.
 */
export function selectVariant(
  representation: Pick<Representation, 'identity' | 'encoded' | 'encode'>,
  acceptEncoding: string | undefined,
): Variant | Promise<Variant> {
  const coding = negotiateContentCoding(acceptEncoding)
  if (coding === 'identity') return representation.identity
  const variant = representation.encoded(coding)
  if (variant !== undefined) return variant ?? representation.identity
  return representation.encode(coding).then(
    (encoded) => encoded ?? representation.identity,
    () => representation.identity,
  )
}
