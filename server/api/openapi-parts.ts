// The parts of the OpenAPI document its operations share (openapi.ts): the request parameters, the
// headers of a successful response, and the problem responses.
import {z} from 'zod'
import {DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, problemSchema, SLUG_MAX_LENGTH} from '../../catalog/v1/contract.ts'
import {CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT} from './v1/changes.ts'
import {DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_QUERY_MAX_LENGTH} from './v1/search.ts'

export const slugParameter = z.object({
  slug: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .max(SLUG_MAX_LENGTH)
    .meta({
      description: 'The `slug` value returned by the matching list endpoint.',
      examples: ['ep-22-cache-invalidation'],
    }),
})

export const pageParameters = z.object({
  limit: z
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .default(DEFAULT_PAGE_LIMIT)
    .optional()
    .meta({
      description: `Items per page, 1 to ${MAX_PAGE_LIMIT}. The default (${DEFAULT_PAGE_LIMIT}) fits today's whole catalog on one page.`,
    }),
  cursor: z.string().optional().meta({
    description:
      'Opaque keyset cursor: the `next_cursor` of the previous page. Pages stay correct when items are published between requests.',
  }),
})

export const searchParameters = z.object({
  q: z
    .string()
    .min(1)
    .max(SEARCH_QUERY_MAX_LENGTH)
    .meta({
      description: `What to look for, in Hebrew or English, as people type it (1 to ${SEARCH_QUERY_MAX_LENGTH} characters; surrounding spaces are ignored). Niqqud, final letters and prefix letters are folded, and Hebrew loanwords find the English tags (ריאקט finds react).`,
      examples: ['ריאקט'],
    }),
  limit: z
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .default(DEFAULT_SEARCH_LIMIT)
    .optional()
    .meta({description: `Hits to return, best first, 1 to ${MAX_SEARCH_LIMIT}.`}),
})

export const changesParameters = z.object({
  since: z.string().optional().meta({
    description:
      "A Catalog-Version token: the `next_token` of your last answer, or the `Catalog-Version` header of any response (all.json's, say). Without it, every item is a change (an initial sync).",
  }),
  limit: z
    .int()
    .min(1)
    .max(CHANGES_MAX_LIMIT)
    .default(CHANGES_DEFAULT_LIMIT)
    .optional()
    .meta({description: `Changes per page, 1 to ${CHANGES_MAX_LIMIT}.`}),
  cursor: z.string().optional().meta({description: 'The `next_cursor` of the previous page of the same answer.'}),
})

export const conditionalHeaders = z.object({
  'if-none-match': z.string().optional().meta({
    description: 'An ETag from an earlier response (lists and `*` accepted; weak comparison). A match gives 304.',
  }),
  'if-modified-since': z.string().optional().meta({description: 'An HTTP-date; used only without If-None-Match.'}),
  'if-match': z.string().optional().meta({
    description:
      'ETags (lists and `*` accepted; strong comparison, so a `W/` tag never matches). None matching gives 412 (RFC 9110 §13.1.1).',
  }),
  'if-unmodified-since': z.string().optional().meta({
    description:
      'An HTTP-date; used only without If-Match. A document modified since gives 412 (RFC 9110 §13.1.4); any other value is ignored.',
  }),
})

const rateLimitPolicy = z.string().meta({description: 'Rate limit policy, `"<name>";q=<quota>;w=<window seconds>`.'})
export const rangeHeaders = z.object({
  range: z.string().optional().meta({
    description:
      'One byte range (`bytes=0-1023`, `bytes=-500`): a 206 with that part. Several ranges, or a malformed one, get the whole 200.',
  }),
  'if-range': z
    .string()
    .optional()
    .meta({description: 'An ETag or HTTP-date: the range is served only if it still holds.'}),
})

export const successHeaders = z.object({
  etag: z.string().meta({description: 'Strong validator derived from the bytes.'}),
  'last-modified': z.string().meta({description: 'HTTP-date; moves only when the bytes change.'}),
  'cache-control': z.string(),
  'ratelimit-policy': rateLimitPolicy.optional(),
  ratelimit: z.string().optional().meta({description: 'Remaining quota, `"<name>";r=<remaining>;t=<reset seconds>`.'}),
  vary: z.literal('Accept-Encoding').meta({
    description:
      'Bodies are pre-compressed in br and gzip; each coding has its own ETag (the identity ETag with `-br` or `-gzip` before the closing quote).',
  }),
  deprecation: z
    .string()
    .optional()
    .meta({description: 'Only once v1 is deprecated: `@<unix seconds>` of the announcement (RFC 9745).'}),
  sunset: z.string().optional().meta({
    description:
      'Only once v1 is deprecated: HTTP-date after which v1 answers 410 (RFC 8594), at least 6 months after the deprecation.',
  }),
  link: z
    .string()
    .optional()
    .meta({description: 'Only once v1 is deprecated: `<successor>; rel="successor-version"` (RFC 8288).'}),
})

export const problem = (description: string, headers?: z.ZodObject) => ({
  description,
  ...(headers ? {headers} : {}),
  content: {'application/problem+json': {schema: problemSchema}},
})

export const retryAfter = z.object({'retry-after': z.int().meta({description: 'Seconds to wait.'})})
export const readOnly = problem('Only GET and HEAD are allowed.', z.object({allow: z.literal('GET, HEAD')}))
