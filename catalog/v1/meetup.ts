import {z} from 'zod'
import {meetupSchema, type Meetup} from './contract.ts'
import {documentRowSchema, optional, personRowSchema} from './rows.ts'
import {toPersonRefs, type Mapped, type MappingContext} from './person-ref.ts'

export const meetupRowSchema = documentRowSchema.extend({
  ...meetupSchema.pick({title: true, language: true, published_date: true, tags: true, audience: true, video_id: true})
    .shape,
  abstract: optional(z.string()),
  speakers: z.array(personRowSchema),
})

export type MeetupRow = z.infer<typeof meetupRowSchema>

export function mapMeetup(row: MeetupRow, context: MappingContext): Mapped<Meetup> {
  const {links} = context
  const speakers = toPersonRefs('speakers', row.speakers, context, row._updatedAt)
  return {
    value: {
      slug: row.slug,
      url: links.page('meetups', row.slug),
      api_url: links.api('meetups', row.slug),
      title: row.title,
      abstract: row.abstract,
      language: row.language,
      published_date: row.published_date,
      tags: row.tags,
      audience: row.audience,
      speakers: speakers.refs,
      video_id: row.video_id,
      video_url: links.video(row.video_id),
      image_url: row.image && links.image(row.image, 800, 450),
    },
    updatedAt: speakers.updatedAt,
    warnings: speakers.warnings,
  }
}
