import {z} from 'zod'
import type {SortKey} from '../../../catalog/v1/order.ts'

// A cursor is the sort key of the last item already seen, so a page stays correct when items are
// added or removed between requests (keyset pagination). It is opaque to clients: base64url JSON.

const cursorPayload = z.tuple([z.literal(1), z.string(), z.string()])

export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify([1, key[0], key[1]])).toString('base64url')
}

export type CursorResult = {ok: true; key: SortKey} | {ok: false; reason: string}

export function decodeCursor(cursor: string): CursorResult {
  const invalid = {
    ok: false,
    reason: 'cursor is not one this API issued; use the next_cursor of a list response',
  } as const
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return invalid
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return invalid
  }
  const parsed = cursorPayload.safeParse(payload)
  return parsed.success ? {ok: true, key: [parsed.data[1], parsed.data[2]]} : invalid
}
