import {z} from 'zod'
import {ALTERNATE_TITLE_MAX_CHARACTERS, FETCHED_URL_PATTERN, MIME_TYPE_PATTERN} from './contract.ts'

// An episode's other versions of its media (podcast:alternateEnclosure with podcast:source,
// podcast-namespace docs/tags/alternate-enclosure.md and source.md): a lower bitrate, a video.
// The rule the Studio and the server share. `default` marks the enclosure's own file at another
// address (the namespace: "the same as the file from the enclosure element"), so at most one
// entry may carry it. An entry that breaks the rule is left out (reported), never the episode.

/** The most versions one episode lists. */
export const MAX_ALTERNATE_ENCLOSURES = 10

const alternateRowSchema = z.object({
  url: z.string().nullish(),
  type: z.string().nullish(),
  length: z.number().nullish(),
  bitrate: z.number().nullish(),
  height: z.number().nullish(),
  title: z.string().nullish(),
  default: z.boolean().nullish(),
})

/** What is wrong with one entry; `index` counts from 0. The Studio and the server each word these. */
export type AlternateFault =
  | {kind: 'too-many'; count: number}
  | {kind: 'not-an-enclosure'; index: number}
  | {kind: 'url'; index: number; url: string}
  | {kind: 'type'; index: number; type: string}
  | {kind: 'length'; index: number}
  | {kind: 'bitrate'; index: number}
  | {kind: 'height'; index: number}
  | {kind: 'title-too-long'; index: number; length: number}
  | {kind: 'several-defaults'; index: number; count: number}

const isPositiveWhole = (value: number) => Number.isSafeInteger(value) && value > 0

function entryFaults(raw: unknown, index: number): AlternateFault[] {
  const parsed = alternateRowSchema.safeParse(raw)
  if (!parsed.success || typeof raw !== 'object') return [{kind: 'not-an-enclosure', index}]
  const {url, type, length, bitrate, height, title} = parsed.data
  const faults: AlternateFault[] = []
  if (!url || !FETCHED_URL_PATTERN.test(url)) faults.push({kind: 'url', index, url: url ?? ''})
  if (!type || !MIME_TYPE_PATTERN.test(type)) faults.push({kind: 'type', index, type: type ?? ''})
  if (length == null || !isPositiveWhole(length)) faults.push({kind: 'length', index})
  if (bitrate != null && !(Number.isFinite(bitrate) && bitrate > 0)) faults.push({kind: 'bitrate', index})
  if (height != null && !isPositiveWhole(height)) faults.push({kind: 'height', index})
  const titleLength = title?.trim().length ?? 0
  if (titleLength > ALTERNATE_TITLE_MAX_CHARACTERS) faults.push({kind: 'title-too-long', index, length: titleLength})
  return faults
}

/** Every rule the list breaks: each entry's, and more than one marked default (said on each of them). */
export function alternateEnclosureFaults(entries: readonly unknown[]): AlternateFault[] {
  const faults: AlternateFault[] = []
  if (entries.length > MAX_ALTERNATE_ENCLOSURES) faults.push({kind: 'too-many', count: entries.length})
  entries.forEach((entry, index) => faults.push(...entryFaults(entry, index)))
  const defaults = entries.flatMap((entry, index) =>
    typeof entry === 'object' && entry !== null && 'default' in entry && entry.default === true ? [index] : [],
  )
  if (defaults.length > 1)
    faults.push(...defaults.map((index) => ({kind: 'several-defaults' as const, index, count: defaults.length})))
  return faults
}

function describeAlternateFault(fault: AlternateFault): string {
  switch (fault.kind) {
    case 'too-many':
      return `${fault.count} entries, only the first ${MAX_ALTERNATE_ENCLOSURES} are served`
    case 'not-an-enclosure':
      return 'not an alternate enclosure object'
    case 'url':
      return `"${fault.url}" is not an https URL in printable ASCII`
    case 'type':
      return `"${fault.type}" is not a MIME type (type/subtype)`
    case 'length':
      return 'no size in bytes (a whole number above 0)'
    case 'bitrate':
      return 'a bitrate that is not a number above 0'
    case 'height':
      return 'a height that is not a whole number of pixels above 0'
    case 'title-too-long':
      return `a title of ${fault.length} characters, more than ${ALTERNATE_TITLE_MAX_CHARACTERS}`
    case 'several-defaults':
      return `one of ${fault.count} entries marked default; at most one may be (the enclosure's own file at another address)`
  }
}

export interface AlternateEnclosure {
  url: string
  mime_type: string
  length_bytes: number
  bitrate: number | null
  height: number | null
  title: string | null
  default: boolean
}

/** The API's alternate enclosures: each valid entry, in the order entered; each one left out is reported. */
export function mapAlternateEnclosures(raw: unknown): {alternates: AlternateEnclosure[]; warnings: string[]} {
  if (raw === null || raw === undefined) return {alternates: [], warnings: []}
  if (!Array.isArray(raw)) return {alternates: [], warnings: ['alternate_enclosures: left out: not a list']}
  const entries = raw.slice(0, MAX_ALTERNATE_ENCLOSURES)
  const faults = alternateEnclosureFaults(entries)
  const warnings =
    raw.length > entries.length
      ? [`alternate_enclosures: ${describeAlternateFault({kind: 'too-many', count: raw.length})}`]
      : []
  const alternates = entries.flatMap((entry, index): AlternateEnclosure[] => {
    const own = faults.filter((fault) => 'index' in fault && fault.index === index)
    if (own.length > 0) {
      warnings.push(`alternate_enclosures.${index}: left out: ${own.map(describeAlternateFault).join('; ')}`)
      return []
    }
    const row = alternateRowSchema.parse(entry)
    return [
      {
        url: row.url ?? '',
        mime_type: row.type ?? '',
        length_bytes: row.length ?? 0,
        bitrate: row.bitrate ?? null,
        height: row.height ?? null,
        title: row.title?.trim() || null,
        default: row.default ?? false,
      },
    ]
  })
  return {alternates, warnings}
}
