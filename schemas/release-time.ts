import {defineField, type PreviewConfig, type PreviewValue} from 'sanity'
import {checkReleaseTime, releaseSubtitle} from '../catalog/editor-rules/release-time.ts'
import {REQUIRED} from '../catalog/editor-rules/validation.ts'
import {RELEASE_TIME_ZONE} from '../catalog/v1/release-time.ts'

/**
 * An episode's release time, edited in Israel time whatever the editor's own zone; stored in UTC.
 * The server holds the episode back until then and releases it on time by itself.
 */
export const releaseTimeField = defineField({
  name: 'publishedAt',
  title: 'מועד פרסום',
  description: 'שעון ישראל. מועד עתידי מתזמן את הפרק: הוא ייצא לאוויר בעצמו באותו רגע, ועד אז לא יופיע בשום מקום.',
  type: 'datetime',
  // Any minute: Sanity moves a typed time down to the picker's step, so a step of 15 silently made
  // a release typed for 9:53 happen at 9:45.
  options: {dateFormat: 'YYYY-MM-DD', timeFormat: 'HH:mm', displayTimeZone: RELEASE_TIME_ZONE},
  validation: (rule) => [
    rule.required().error(REQUIRED),
    rule.custom((value: string | undefined) => checkReleaseTime(value)),
  ],
})

/** The episode list's line: the title, and the release time (marked "מתוזמן" while it is ahead). */
export const releaseTimePreview: PreviewConfig<{title: string; publishedAt: string; media: string}> = {
  select: {title: 'title', publishedAt: 'publishedAt', media: 'coverImage'},
  prepare: ({title, publishedAt, media}: {title?: string; publishedAt?: string; media?: PreviewValue['media']}) => ({
    title,
    subtitle: releaseSubtitle(publishedAt),
    media,
  }),
}
