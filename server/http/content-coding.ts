import Negotiator from 'negotiator'
import {CONTENT_CODINGS, type ContentCoding} from '../snapshot/compression.ts'

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
