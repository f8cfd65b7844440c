// Integration: episodes' transcripts over real HTTP, in three formats made from the same snapshot
// as the item and the feed, over an in-memory copy of the sample dataset that tests edit as an
// editor would and announce with a signed webhook. Each format is read back by what apps use: a
// captions parser (media-captions) for WebVTT and SubRip, a JSON Schema written from the
// Podcasting 2.0 JSON transcript format, and podcast-partytime for the feed.
import {Ajv2020} from 'ajv/dist/2020.js'
import {parseText} from 'media-captions'
import {parseFeed} from 'podcast-partytime'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {searchEnvelope} from '../../server/api/v1/search.ts'
import {eventually} from '../../support/eventually.ts'
import {readContract} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {editableSample} from '../helpers/editable-sample.ts'

// podcast-namespace docs/examples/transcripts/transcripts.md, the JSON form: `version` and
// `segments`, each with `startTime`, `endTime` and `body`, and `speaker` when one is named.
const JSON_TRANSCRIPT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['version', 'segments'],
  properties: {
    version: {type: 'string', pattern: '^1\\.0\\.0$'},
    segments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['startTime', 'endTime', 'body'],
        properties: {
          speaker: {type: 'string', minLength: 1},
          startTime: {type: 'number', minimum: 0},
          endTime: {type: 'number', minimum: 0},
          body: {type: 'string', minLength: 1},
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
}
const validateTranscript = new Ajv2020({allErrors: true}).compile(JSON_TRANSCRIPT_SCHEMA)
const segmentsSchema = z.object({
  segments: z.array(
    z.object({speaker: z.string().optional(), startTime: z.number(), endTime: z.number(), body: z.string()}),
  ),
})
const statusSchema = z.object({
  problems: z.array(z.object({document_id: z.string(), severity: z.string(), messages: z.array(z.string())})),
})

const sample = editableSample()

// In the feed (it has audio), with a host, a guest and a listener who is no voice in the catalog.
const TRANSCRIBED = 'ep-24-redis-internals'
const documentOf = (slug: string) => sample.episode(slug)
const publish = (slug: string, fields: Record<string, unknown>) => sample.publish(slug, fields)
const transcriptPath = (slug: string, extension: string) => `/api/v1/episodes/${slug}/transcript.${extension}`
const local = (url: string) => url.replace('http://api.test', sample.server.baseUrl)
const episodeOf = async (slug: string) =>
  (
    await readContract(
      await fetch(`${sample.server.baseUrl}/api/v1/episodes/${slug}.json`),
      itemEnvelope(episodeSchema),
    )
  ).data
const cue = (key: string, start: number, end: number, text: string) => ({
  _key: key,
  _type: 'transcriptCue',
  start,
  end,
  text,
})

describe("an episode's transcript", () => {
  it('is served as WebVTT with voice spans, SubRip and JSON, each read back as the same cues', async () => {
    const vtt = await rawRequest(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`)
    expect(vtt.status).toBe(200)
    expect(vtt.headers['content-type']).toBe('text/vtt; charset=utf-8')
    expect(vtt.headers['access-control-allow-origin']).toBe('*')
    const readVtt = await parseText(vtt.body.toString('utf8'), {type: 'vtt', strict: true, errors: true})
    expect(readVtt.errors).toEqual([])

    const json = await rawRequest(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'json')}`)
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8')
    const document: unknown = JSON.parse(json.body.toString('utf8'))
    expect(validateTranscript(document), JSON.stringify(validateTranscript.errors)).toBe(true)
    const {segments} = segmentsSchema.parse(document)
    expect(new Set(segments.map((segment) => segment.speaker))).toEqual(
      new Set(['דן שפירא', 'ניר וייס', 'מאזין מהקהל']),
    )
    expect(segments.find((segment) => segment.body.includes('דוגם חמישה מפתחות'))).toMatchObject({
      speaker: 'ניר וייס',
      startTime: 6,
      endTime: 18.4,
    })
    // The WebVTT cues are the JSON segments, speakers in `<v>` spans as Apple reads them.
    expect(readVtt.cues.map((read) => [read.startTime, read.endTime, read.text])).toEqual(
      segments.map((segment) => [segment.startTime, segment.endTime, `<v ${segment.speaker}>${segment.body}`]),
    )

    const srt = await rawRequest(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'srt')}`)
    // application/srt, not application/x-subrip: Pocket Casts refused the latter.
    expect(srt.headers['content-type']).toBe('application/srt; charset=utf-8')
    const readSrt = await parseText(srt.body.toString('utf8'), {type: 'srt', strict: true, errors: true})
    expect(readSrt.errors).toEqual([])
    expect(readSrt.cues.map((read) => [read.startTime, read.endTime, read.text])).toEqual(
      segments.map((segment) => [segment.startTime, segment.endTime, `${segment.speaker}: ${segment.body}`]),
    )

    // The item links the three, the VTT first, and names the revision it serves.
    const episode = await episodeOf(TRANSCRIBED)
    expect(episode.transcripts.map((link) => [local(link.url), link.mime_type])).toEqual([
      [`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`, 'text/vtt'],
      [`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'srt')}`, 'application/srt'],
      [`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'json')}`, 'application/json'],
    ])
    expect(episode.transcript).toEqual(episode.transcripts[0])
    expect(episode.transcript_revision).toMatch(/^[0-9a-f]{32}$/)
  })

  it('answers conditional and range requests, under the sandbox too', async () => {
    const url = `${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`
    const whole = await rawRequest(url)
    const etag = String(whole.headers.etag)
    expect(etag).toMatch(/^"[\w-]+"$/)
    expect((await rawRequest(url, {headers: {'if-none-match': etag}})).status).toBe(304)
    const part = await rawRequest(url, {headers: {range: 'bytes=0-5'}})
    expect(part.status).toBe(206)
    expect(part.headers['content-range']).toBe(`bytes 0-5/${whole.body.length}`)
    expect(part.body.toString('utf8')).toBe('WEBVTT')
    const sandbox = await rawRequest(`${sample.server.baseUrl}/api/v1/sandbox/episodes/${TRANSCRIBED}/transcript.vtt`)
    expect(sandbox.body.equals(whole.body)).toBe(true)
    // An episode without a transcript of its own answers a problem naming it.
    const none = await fetch(`${sample.server.baseUrl}${transcriptPath('ep-8-on-call', 'srt')}`)
    expect(none.status).toBe(404)
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await none.text()).toContain('ep-8-on-call')
  })

  it('is linked from the feed item once per format, WebVTT first as captions in Hebrew, and each link is served', async () => {
    const feed = parseFeed(await (await fetch(`${sample.server.baseUrl}/feed.xml`)).text())
    const item = feed?.items.find((entry) => entry.guid === documentOf(TRANSCRIBED)._id)
    expect(item?.podcastTranscripts?.map((link) => [link.type, link.rel, link.language])).toEqual([
      ['text/vtt', 'captions', 'he'],
      ['application/srt', undefined, 'he'],
      ['application/json', undefined, 'he'],
    ])
    for (const link of item?.podcastTranscripts ?? []) {
      const response = await fetch(local(link.url))
      expect(response.status, link.url).toBe(200)
      expect(response.headers.get('content-type')).toMatch(new RegExp(`^${link.type}`))
    }
  })

  it('follows an edit of what was said: the item changes with it, so its ETag, the change feed and the edge follow', async () => {
    const before = await episodeOf(TRANSCRIBED)
    await publish(TRANSCRIBED, {
      transcript: [cue('a', 0, 4, 'שורה אחת שנכתבה מחדש.'), cue('b', 4, 9.5, 'ועוד אחת, בלי דובר.')],
    })
    await eventually(async () => {
      const srt = await (await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'srt')}`)).text()
      expect(srt).toBe(
        '1\n00:00:00,000 --> 00:00:04,000\nשורה אחת שנכתבה מחדש.\n\n2\n00:00:04,000 --> 00:00:09,500\nועוד אחת, בלי דובר.\n',
      )
    }, 10_000)
    const after = await episodeOf(TRANSCRIBED)
    expect(after.transcript_revision).not.toBe(before.transcript_revision)
  })

  it("is searched over HTTP: a phrase said only in the transcript finds the episode, with the cue's time, until it is edited away", async () => {
    const searchFor = async (query: string) =>
      searchEnvelope.parse(
        await (
          await fetch(`${sample.server.baseUrl}/api/v1/search.json?q=${encodeURIComponent(query)}&limit=3`)
        ).json(),
      ).data
    const said = 'דוגם חמישה מפתחות'
    expect(JSON.stringify(await episodeOf(TRANSCRIBED))).not.toContain('דוגם')
    const [first] = await searchFor(said)
    expect(first).toMatchObject({
      slug: TRANSCRIBED,
      cue: {start_seconds: 6, end_seconds: 18.4, speaker: 'ניר וייס', text: expect.stringContaining(said)},
    })
    // The cue is the one that says the most of the query: "קוד" is also in the show's name, said at 0 s.
    const [typing] = await searchFor('איפה מריצים קוד שמגיב להקלדה')
    expect(typing).toMatchObject({slug: 'ep-2-react-server-components', cue: {start_seconds: 63.4}})
    await publish(TRANSCRIBED, {transcript: [cue('a', 0, 4, 'שורה אחרת לגמרי.')]})
    await eventually(async () => {
      expect((await searchFor(said)).find((hit) => hit.slug === TRANSCRIBED)).toBeUndefined()
    }, 10_000)
  })

  it('names a speaker as the voice is named now: renaming a host renames them in the transcript', async () => {
    // דן שפירא hosts ep-24 and is no guest of it: only the transcript's cues reference the voice.
    await sample.edit('0add12f4-bb96-46dd-a6ff-ed06847a0086', {name: 'דן שפירא-לוי'})
    await eventually(async () => {
      const vtt = await (await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`)).text()
      expect(vtt).toContain('<v דן שפירא-לוי>ניר וייס, ברוך הבא.')
    }, 10_000)
  })

  it('keeps hostile text from breaking any format: markup, "-->", "]]>" and control characters', async () => {
    await publish(TRANSCRIBED, {
      transcript: [
        cue('a', 0, 3, 'a --> b <v Eve>x</v> & ]]> <b>'),
        cue('b', 3, 6, 'שורה\u0007 עם צלצול'),
        cue('c', 6, 9, 'שלישית\n\n--> 00:00:01.000 --> 00:00:02.000'),
      ],
    })
    await eventually(async () => {
      const json = segmentsSchema.parse(
        await (await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'json')}`)).json(),
      )
      expect(json.segments).toHaveLength(3)
    }, 10_000)
    const vttText = await (await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`)).text()
    const srtText = await (await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'srt')}`)).text()
    // Cue text may not hold "-->" (WebVTT 4.1; SubRip readers take such a line for a timing): every
    // line that has one is a cue's own timing.
    const timing = /^\d\d:\d\d:\d\d[.,]\d{3} --> \d\d:\d\d:\d\d[.,]\d{3}$/
    for (const line of [...vttText.split('\n'), ...srtText.split('\n')].filter((text) => text.includes('-->')))
      expect(line).toMatch(timing)
    // The only voice span is none at all: "<v Eve>" said in a cue is text, not a speaker.
    expect(vttText).not.toContain('<v ')
    const vtt = await parseText(vttText, {type: 'vtt', strict: true, errors: true})
    expect(vtt.errors).toEqual([])
    expect(vtt.cues.map((read) => read.startTime)).toEqual([0, 3, 6])
    const srt = await parseText(srtText, {type: 'srt', strict: true, errors: true})
    expect(srt.cues.map((read) => read.startTime)).toEqual([0, 3, 6])
    // The bell is removed where the text is cleaned, and that is reported; the feed stays a feed.
    const status = statusSchema.parse(await (await fetch(`${sample.server.baseUrl}/status`)).json())
    const problem = status.problems.find((entry) => entry.document_id === documentOf(TRANSCRIBED)._id)
    expect(problem?.messages.join(' ')).toContain('transcript_cues.1.text: removed characters')
    expect(parseFeed(await (await fetch(`${sample.server.baseUrl}/feed.xml`)).text())?.items.length).toBeGreaterThan(0)
  })

  it('leaves out cues that break a rule, serving the episode, its external link and the feed, and /status says why', async () => {
    const id = documentOf(TRANSCRIBED)._id
    await publish(TRANSCRIBED, {transcript: [cue('a', 0, 10, 'ראשונה'), cue('b', 5, 12, 'חופפת')]})
    await eventually(async () => {
      expect((await fetch(`${sample.server.baseUrl}${transcriptPath(TRANSCRIBED, 'vtt')}`)).status).toBe(404)
    }, 10_000)
    const episode = await episodeOf(TRANSCRIBED)
    expect(episode.transcript_revision).toBeNull()
    expect(episode.transcript).toEqual({
      url: 'https://media.codetalks.example/transcripts/ep-24-redis-internals.vtt',
      mime_type: 'text/vtt',
    })
    const status = statusSchema.parse(await (await fetch(`${sample.server.baseUrl}/status`)).json())
    expect(status.problems.find((problem) => problem.document_id === id)).toEqual({
      document_id: id,
      severity: 'warning',
      messages: ['transcript: left out: cue 2: starts at 5 s, before the cue before it ends at 10 s'],
    })
    const item = parseFeed(await (await fetch(`${sample.server.baseUrl}/feed.xml`)).text())?.items.find(
      (entry) => entry.guid === id,
    )
    expect(item?.podcastTranscripts?.map((link) => link.url)).toEqual([
      'https://media.codetalks.example/transcripts/ep-24-redis-internals.vtt',
    ])
  })
})
