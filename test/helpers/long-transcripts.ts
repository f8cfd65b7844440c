import type {SanityDocument} from '../../server/content/ndjson.ts'
import {sampleDocuments} from './sample.ts'

/** The word said once, at the end of each long transcript: finding its cue reads the whole transcript. */
export const LAST_WORD = 'זנבנב'
/** The cues of a long transcript: about 1.9 MB, near the rule's 2 MB limit, in long words. */
export const LONG_TRANSCRIPT_CUES = 1000
const longWord = (index: number) => `${'א'.repeat(90)}${String(index)}`
const transcript = Array.from({length: LONG_TRANSCRIPT_CUES}, (_, index) => ({
  _key: `c${index}`,
  _type: 'transcriptCue',
  start: index * 2,
  end: index * 2 + 1.5,
  speakerName: 'דוברת',
  text:
    index === LONG_TRANSCRIPT_CUES - 1 ? LAST_WORD : Array.from({length: 10}, (_, word) => longWord(word)).join(' '),
}))

/** The published sample with the first `count` episodes given a long transcript (and a duration to hold it). */
export function sampleWithLongTranscripts(count: number): SanityDocument[] {
  const published = sampleDocuments.filter((document) => !document._id.startsWith('drafts.'))
  const transcribed = new Set(
    published
      .filter((document) => document._type === 'episode')
      .slice(0, count)
      .map((document) => document._id),
  )
  return published.map((document) =>
    transcribed.has(document._id) ? {...document, transcript, duration: 10_000} : document,
  )
}
