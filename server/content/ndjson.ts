import {z} from 'zod'
import {errorMessage} from '../errors.ts'

const documentSchema = z.looseObject({_id: z.string().min(1), _type: z.string().min(1)})

export type SanityDocument = z.infer<typeof documentSchema>

/** Parses a `sanity dataset export` NDJSON file: one document per line, blank lines ignored. */
export function parseNdjson(text: string, fileName: string): SanityDocument[] {
  return text.split('\n').flatMap((line, index) => parseDocumentLine(line, `${fileName}:${index + 1}`) ?? [])
}

/** One line of such a file; undefined for a blank line. `where` (`file:line`) names it in errors. */
export function parseDocumentLine(line: string, where: string): SanityDocument | undefined {
  if (line.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw new Error(`${where}: not valid JSON (${errorMessage(error)})`, {
      cause: error,
    })
  }
  const parsed = documentSchema.safeParse(value)
  if (!parsed.success) throw new Error(`${where}: not a Sanity document (needs string _id and _type)`)
  return parsed.data
}
