import {z} from 'zod'
import {voiceSchema, type Voice} from './contract.ts'
import {documentRowSchema, optional} from './rows.ts'
import type {Mapped, MappingContext} from './person-ref.ts'

export const voiceRowSchema = documentRowSchema.extend({
  ...voiceSchema.pick({name: true, role: true, bio: true, language: true, tech_stack: true}).shape,
  social_profile_url: optional(z.string()),
})

export type VoiceRow = z.infer<typeof voiceRowSchema>

export function mapVoice(row: VoiceRow, {links}: MappingContext): Mapped<Voice> {
  return {
    value: {
      slug: row.slug,
      url: links.page('voices', row.slug),
      api_url: links.api('voices', row.slug),
      name: row.name,
      role: row.role,
      bio: row.bio,
      language: row.language,
      tech_stack: row.tech_stack,
      social_profile_url: row.social_profile_url,
      image_url: row.image && links.image(row.image, 400, 400),
    },
    updatedAt: row._updatedAt,
    warnings: [],
  }
}
