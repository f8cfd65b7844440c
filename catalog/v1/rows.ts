import {z} from 'zod'

// Shapes of what the GROQ projections in catalog/queries.ts return, before mapping. Sanity may
// omit a null attribute where groq-js writes `null`, so optional values accept both.

export const optional = <Schema extends z.ZodType>(schema: Schema) =>
  schema.nullish().transform((value) => value ?? null)

const number = z.number()
export const imageSourceSchema = z.object({
  asset: z.object({_ref: z.string().min(1)}),
  crop: z.object({top: number, bottom: number, left: number, right: number}).optional(),
  hotspot: z.object({x: number, y: number, width: number, height: number}).optional(),
})

/** A resolved `guests`/`speakers` reference: GROQ already dropped the ones that do not resolve. */
export const personRowSchema = z.object({slug: z.string(), _updatedAt: z.string()})

/** Fields every document row carries: its identity and edit time, used for reports and Last-Modified. */
export const documentRowSchema = z.object({
  _id: z.string(),
  _updatedAt: z.iso.datetime({offset: true}),
  slug: z.string({error: 'slug is missing'}),
  image: optional(imageSourceSchema),
})
