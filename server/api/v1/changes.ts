import {z} from 'zod'
import {repeatedParameter} from './repeated-parameter.ts'
import {episodeSchema, meetupSchema, paginationSchema, slugSchema, voiceSchema} from '../../../catalog/v1/contract.ts'

/** The change feed's page size: the lists' default, up to five times their largest page. */
export const CHANGES_DEFAULT_LIMIT = 100
export const CHANGES_MAX_LIMIT = 500
/** A token is a `Catalog-Version`: 32 characters of base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/

/** `GET /api/v1/changes.json`'s parameters, read. */
export interface ChangesRequest {
  /** The version the client holds; null asks for the whole catalog (an initial sync). */
  since: string | null
  limit: number
  /** Where the previous page ended, and the token the first page was answered at. */
  cursor: ChangesCursor | null
}

export interface ChangesCursor {
  /** The version the first page was answered at: every page's `next_token`, so no change is skipped. */
  pinned: string
  /** The last item key (`episodes/slug`) the previous page held. */
  after: string
}

const cursorSchema = z.object({p: z.string().regex(TOKEN_PATTERN), a: z.string().max(400)})

export const encodeChangesCursor = (cursor: ChangesCursor) =>
  Buffer.from(JSON.stringify({p: cursor.pinned, a: cursor.after}), 'utf8').toString('base64url')

const START_AGAIN =
  'Start again from /api/v1/changes.json without `since` (an initial sync), then follow its next_token.'

/** The parameters of a change-feed request, or why they are refused (a 400). */
export function parseChangesRequest(
  params: URLSearchParams,
): {ok: true; request: ChangesRequest} | {ok: false; reason: string} {
  const repeated = repeatedParameter(params, ['since', 'limit', 'cursor'])
  if (repeated) return {ok: false, reason: repeated}
  const since = params.get('since')
  if (since !== null && !TOKEN_PATTERN.test(since))
    return {
      ok: false,
      reason: `\`since\` must be a Catalog-Version token (32 characters of A-Z, a-z, 0-9, - and _), as next_token and the Catalog-Version header give it. ${START_AGAIN}`,
    }
  const limitText = params.get('limit')
  const limit = limitText === null ? CHANGES_DEFAULT_LIMIT : Number(limitText)
  if (!/^\d{1,3}$/.test(limitText ?? '0') || !Number.isInteger(limit) || limit < 1 || limit > CHANGES_MAX_LIMIT)
    return {ok: false, reason: `\`limit\` must be a whole number from 1 to ${CHANGES_MAX_LIMIT}.`}
  const cursorText = params.get('cursor')
  if (cursorText === null || cursorText === '') return {ok: true, request: {since, limit, cursor: null}}
  const cursor = decodeCursor(cursorText)
  if (!cursor)
    return {ok: false, reason: '`cursor` is not one this API made: use the `next_cursor` of the previous page.'}
  return {ok: true, request: {since, limit, cursor}}
}

function decodeCursor(text: string): ChangesCursor | undefined {
  if (text.length > 1000) return undefined
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')))
    return parsed.success ? {pinned: parsed.data.p, after: parsed.data.a} : undefined
  } catch {
    return undefined
  }
}

/** The 410's detail: the token is well formed but older than the history kept (or never served here). */
export const unknownTokenDetail = (token: string) =>
  `The token ${token} names a version this server no longer remembers (it keeps every version of the last 30 days and at least the last 1,000). ${START_AGAIN}`

const upsert = <Type extends string>(type: Type, item: z.ZodType) =>
  z.strictObject({type: z.literal(type), slug: slugSchema, deleted: z.literal(false), item})
const deletion = z
  .strictObject({type: z.enum(['episode', 'meetup', 'voice']), slug: slugSchema, deleted: z.literal(true)})
  .meta({description: 'The item is no longer served (deleted, unpublished, or renamed to another slug).'})

/** `changes.json`'s body: each changed item once, in its state now, and the token to continue from. */
export const changesEnvelope = z
  .strictObject({
    data: z.strictObject({
      changes: z.array(
        z
          .union([
            upsert('episode', episodeSchema),
            upsert('meetup', meetupSchema),
            upsert('voice', voiceSchema),
            deletion,
          ])
          .meta({
            id: 'Change',
            description:
              "`item` is exactly the `data` of the item's own endpoint; it is absent when `deleted` is true.",
          }),
      ),
      next_token: z.string().meta({
        description:
          'The Catalog-Version to ask `since` next time. Every page of one answer carries the version its first page was answered at, so a change made while you page is sent again rather than missed.',
      }),
    }),
    pagination: paginationSchema,
  })
  .meta({id: 'Changes'})
