import {z} from 'zod'

const documentSchema = z.looseObject({_id: z.string().min(1), _type: z.string().min(1)})

export type SanityDocument = z.infer<typeof documentSchema>

/** Parses a `sanity dataset export` NDJSON file: one document per line, blank lines ignored. */
export function parseNdjson(text: string, fileName: string): SanityDocument[] {
  const documents: SanityDocument[] = []
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new Error(`${fileName}:${index + 1}: not valid JSON (${error instanceof Error ? error.message : String(error)})`)
    }
    const parsed = documentSchema.safeParse(value)
    if (!parsed.success) {
      throw new Error(`${fileName}:${index + 1}: not a Sanity document (needs string _id and _type)`)
    }
    documents.push(parsed.data)
  })
  return documents
}
