// An episode's chapters and transcripts as a snapshot serves them: each transcript format in its
// own bytes and media type, taking ranges, under the episode's surrogate keys; none for an episode
// without one.
import {beforeAll, describe, expect, it} from 'vitest'
import {ACCEPT_RANGES} from '../../server/snapshot/representation.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {episode} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const keying = createSurrogateKeying('varnish')
const cue = (index: number, text: string) => ({
  _key: `c${index}`,
  _type: 'transcriptCue',
  start: index * 2,
  end: index * 2 + 1.5,
  speakerName: 'דנה',
  text,
})
const DOCUMENTS = [
  episode('transcribed', {duration: 60, transcript: [cue(0, 'שלום לכולם'), cue(1, 'היום נדבר על בדיקות')]}),
  episode('silent'),
]

let snapshot: Snapshot
beforeAll(async () => {
  snapshot = buildSnapshot(await catalogOf(DOCUMENTS), snapshotSettings({keying}), undefined, NOW)
})

const text = (extension: 'vtt' | 'srt' | 'json') => snapshot.transcript('transcribed', extension)?.body.toString('utf8')

describe("an episode's transcript", () => {
  it('is served as WebVTT, with its cues and speakers', () => {
    expect(snapshot.transcript('transcribed', 'vtt')?.contentType).toBe('text/vtt; charset=utf-8')
    expect(text('vtt')).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\n<v דנה>שלום לכולם\n\n00:00:02.000 --> 00:00:03.500\n<v דנה>היום נדבר על בדיקות\n',
    )
  })

  it('is served as SubRip, numbered, with its speakers', () => {
    expect(snapshot.transcript('transcribed', 'srt')?.contentType).toBe('application/srt; charset=utf-8')
    expect(text('srt')).toBe(
      '1\n00:00:00,000 --> 00:00:01,500\nדנה: שלום לכולם\n\n2\n00:00:02,000 --> 00:00:03,500\nדנה: היום נדבר על בדיקות\n',
    )
  })

  it('is served as the Podcasting 2.0 JSON transcript', () => {
    expect(JSON.parse(text('json') ?? '')).toEqual({
      version: '1.0.0',
      segments: [
        {speaker: 'דנה', startTime: 0, endTime: 1.5, body: 'שלום לכולם'},
        {speaker: 'דנה', startTime: 2, endTime: 3.5, body: 'היום נדבר על בדיקות'},
      ],
    })
  })

  it("takes ranges in every format, under the episode's surrogate keys", () => {
    for (const extension of ['vtt', 'srt', 'json'] as const)
      expect(snapshot.transcript('transcribed', extension)?.headers).toEqual({
        ...keying.headersFor('episodes/transcribed', 'episodes'),
        ...ACCEPT_RANGES,
      })
  })

  it('is none for an episode without one, or a slug no episode has', () => {
    expect(snapshot.transcript('silent', 'vtt')).toBeUndefined()
    expect(snapshot.transcript('no-such-episode', 'json')).toBeUndefined()
  })

  it('is made once per format and kept for the next request', () => {
    expect(snapshot.transcript('transcribed', 'srt')).toBe(snapshot.transcript('transcribed', 'srt'))
    expect(snapshot.transcript('transcribed', 'srt')).not.toBe(snapshot.transcript('transcribed', 'vtt'))
  })
})
