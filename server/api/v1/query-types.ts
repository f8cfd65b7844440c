import type {z} from 'zod'
import type {
  CATALOG_PAGE_QUERY_RESULT,
  CATALOG_QUERY_RESULT,
  EPISODE_BY_ID_QUERY_RESULT,
  MEETUP_BY_ID_QUERY_RESULT,
} from '../../../sanity.types.ts'
import type {episodeRowSchema} from '../../../catalog/v1/episode.ts'
import type {meetupRowSchema} from '../../../catalog/v1/meetup.ts'
import type {voiceRowSchema} from '../../../catalog/v1/voice.ts'

// A compile-time check, no code: what Sanity TypeGen says each query returns under the Studio's
// schemas (sanity.types.ts, from `npm run typegen`) is what the mappers accept. Rename or drop a
// field in schemas/ and regenerate: the projection then yields null or a different type there,
// and `npm run typecheck` fails on the line below that names the query. (At run time every row
// is still parsed with zod: a source may hold documents written before a schema change.)

// Images are compared loosely: the schema's image type allows an image without an asset (while
// one uploads) and partial crops, which the row schema rejects per document at run time.
type ImageLike = {asset?: {_ref: string}} | null | undefined
type WithoutImage<Type> = Type extends object ? Omit<Type, 'image'> : Type
type ImageOf<Type> = Type extends {image: infer Image} ? Image : null
type Accepts<Row, Result> = [WithoutImage<Result>] extends [WithoutImage<Row>]
  ? [ImageOf<Result>] extends [ImageLike]
    ? true
    : false
  : false
type Row<Schema extends z.ZodType> = z.input<Schema>
// A paged read's row of one type, without the `_type` it is grouped by.
type PageRow<Type extends string> = Omit<Extract<CATALOG_PAGE_QUERY_RESULT[number], {_type: Type}>, '_type'>

export const QUERY_RESULTS_FIT_THE_MAPPERS: [
  Accepts<Row<typeof episodeRowSchema>, CATALOG_QUERY_RESULT['episodes'][number]>,
  Accepts<Row<typeof meetupRowSchema>, CATALOG_QUERY_RESULT['meetups'][number]>,
  Accepts<Row<typeof voiceRowSchema>, CATALOG_QUERY_RESULT['voices'][number]>,
  Accepts<Row<typeof episodeRowSchema>, PageRow<'episode'>>,
  Accepts<Row<typeof meetupRowSchema>, PageRow<'meetup'>>,
  Accepts<Row<typeof voiceRowSchema>, PageRow<'voice'>>,
  Accepts<Row<typeof episodeRowSchema> | null, EPISODE_BY_ID_QUERY_RESULT>,
  Accepts<Row<typeof meetupRowSchema> | null, MEETUP_BY_ID_QUERY_RESULT>,
] = [true, true, true, true, true, true, true, true]
