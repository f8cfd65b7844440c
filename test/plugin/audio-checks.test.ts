// The episode's audio in the Studio: the pure checks (catalog/editor-rules/audio-checks.ts), the duration read from
// a real MP3 made here by Debian's sox (plugin/lib/audio-metadata.ts, as the browser reads a picked file),
// and the schema's rules run by Sanity's own validator at the warning level.
import {execFileSync} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createClient} from '@sanity/client'
import {validateDocumentWithWorkspace} from '@sanity/validation'
import {getFallbackLocaleSource} from '@sanity/validation/_internal'
import {createSchema} from 'sanity'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {
  checkDurationAgainstFile,
  checkHasAudio,
  formatDuration,
  NO_AUDIO,
  wholeSeconds,
} from '../../catalog/editor-rules/audio-checks.ts'
import {readAudioFacts} from '../../plugin/lib/audio-metadata.ts'
import {checkAudioFile, checkAudioType, checkAudioUrl} from '../../catalog/editor-rules/validation.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {episodeType} from '../../schemas/episode.ts'
import {schemaTypes} from '../../schemas/index.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

describe('formatDuration', () => {
  it.each([
    [7, '00:07'],
    [59.6, '01:00'],
    [754, '12:34'],
    [3600, '1:00:00'],
    [3723, '1:02:03'],
  ])('%s seconds read %s', (seconds, shown) => {
    expect(formatDuration(seconds)).toBe(shown)
  })
})

describe('the typed duration against the file', () => {
  it('is quiet within two seconds, either way', () => {
    for (const typed of [5, 6, 7, 8, 9]) expect(checkDurationAgainstFile(typed, 7)).toBe(true)
  })

  it('warns past two seconds, naming both durations', () => {
    expect(checkDurationAgainstFile(10, 7)).toBe(
      'המשך שהוקלד (00:10) שונה מהמשך שנמדד בקובץ האודיו (00:07) ביותר מ-2 שניות.',
    )
    expect(checkDurationAgainstFile(3600, 3723)).toContain('(1:00:00) שונה מהמשך שנמדד בקובץ האודיו (1:02:03)')
  })

  it('has nothing to compare without a file or without a typed duration', () => {
    expect(checkDurationAgainstFile(undefined, 7)).toBe(true)
    expect(checkDurationAgainstFile(10, undefined)).toBe(true)
  })

  it('rounds what a file says to whole positive seconds', () => {
    expect([wholeSeconds(7.03), wholeSeconds(0.2), wholeSeconds(0), wholeSeconds(Number.NaN)]).toEqual([
      7,
      1,
      undefined,
      undefined,
    ])
  })
})

describe('an episode without audio', () => {
  it('is told it will be in the API but not in the feed', () => {
    expect(checkHasAudio({})).toBe(NO_AUDIO)
    expect(NO_AUDIO).toContain('יופיע ב-API, אבל לא בפיד')
    expect(checkHasAudio({file: 'file-abc-mp3'})).toBe(true)
    expect(checkHasAudio({url: 'https://media.codetalks.example/ep.mp3'})).toBe(true)
  })
})

describe("Apple's audio rules", () => {
  const optionsOf = (name: string): unknown => {
    const field = episodeType.fields.find((candidate) => candidate.name === name)
    return field && 'options' in field ? field.options : undefined
  }

  it('offers and accepts only MP3, M4A, MP4, MOV and M4V uploads, never AAC', () => {
    const accept = z.object({accept: z.string()}).parse(optionsOf('audioFile')).accept.split(',')
    expect(accept.toSorted()).toEqual(
      [
        'audio/mpeg',
        'audio/x-m4a',
        'audio/mp4',
        'video/mp4',
        'video/quicktime',
        'video/x-m4v',
        '.mp3',
        '.m4a',
        '.mp4',
        '.mov',
        '.m4v',
      ].toSorted(),
    )
    for (const extension of ['mp3', 'm4a', 'mp4', 'mov', 'm4v'])
      expect(checkAudioFile(`file-0123abc-${extension}`)).toBe(true)
    for (const extension of ['aac', 'ogg', 'wav', 'flac'])
      expect(checkAudioFile(`file-0123abc-${extension}`)).toBe(
        `Apple Podcasts מקבלת רק קבצי MP3, M4A, MP4, MOV או M4V; קובץ .${extension} לא נתמך.`,
      )
  })

  it("lists only Apple's types for an external URL, and refuses any other", () => {
    const {list} = z.object({list: z.array(z.object({value: z.string()}))}).parse(optionsOf('audioType'))
    const values = list.map((option) => option.value)
    expect(values).toEqual(['audio/mpeg', 'audio/x-m4a', 'audio/mp4', 'video/mp4', 'video/quicktime', 'video/x-m4v'])
    for (const type of values) expect(checkAudioType(type)).toBe(true)
    for (const type of ['audio/aac', 'audio/ogg', 'audio/wav'])
      expect(checkAudioType(type)).toMatch(new RegExp(`^Apple Podcasts מקבלת רק .*; ${type} לא נתמך\\.$`))
  })

  it('takes an external URL only over https and in ASCII', () => {
    expect(checkAudioUrl('https://media.codetalks.example/ep-1.mp3')).toBe(true)
    expect(checkAudioUrl('https://media.codetalks.example/%D7%A4%D7%A8%D7%A7.mp3')).toBe(true)
    expect(checkAudioUrl('http://media.codetalks.example/ep-1.mp3')).toBe('קישור לאודיו חייב להתחיל ב-https://.')
    expect(checkAudioUrl('https://media.codetalks.example/פרק.mp3')).toMatch(/^קישור לאודיו רק באותיות ASCII/)
    expect(checkAudioUrl('https://media.codetalks.example/ep 1.mp3')).toMatch(/^קישור לאודיו רק באותיות ASCII/)
  })

  it('refuses an external URL to a file in a format Apple does not take, and leaves one without an extension be', () => {
    for (const extension of ['mp3', 'm4a', 'mp4', 'mov', 'm4v', 'MP3'])
      expect(checkAudioUrl(`https://media.codetalks.example/ep-1.${extension}?source=feed`)).toBe(true)
    for (const extension of ['aac', 'ogg', 'opus', 'wav', 'flac'])
      expect(checkAudioUrl(`https://media.codetalks.example/ep-1.${extension}`)).toBe(
        `Apple Podcasts מקבלת רק קבצי MP3, M4A, MP4, MOV או M4V; הקישור מוביל לקובץ .${extension}.`,
      )
    expect(checkAudioUrl('https://media.codetalks.example/episodes/1/download')).toBe(true)
    expect(checkAudioUrl('https://media.codetalks.example/ep-1.OGG')).toMatch(/הקישור מוביל לקובץ \.ogg\.$/)
  })
})

describe('a real MP3, read as the browser reads a picked file', () => {
  let directory: string
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'audio-checks-'))
  })
  afterAll(() => rm(directory, {recursive: true, force: true}))

  it('gives its duration in whole seconds, its bytes and its type', async () => {
    const sox = ensureDebianProgram('/usr/bin/sox', ['sox', 'libsox-fmt-mp3'])
    const path = join(directory, 'tone.mp3')
    execFileSync(sox, ['-n', '-r', '44100', '-c', '1', path, 'synth', '7', 'sine', '440'])
    const bytes = await readFile(path)
    expect(await readAudioFacts(new Blob([bytes], {type: 'audio/mpeg'}))).toMatchObject({
      durationSeconds: 7,
      bytes: bytes.length,
      mimeType: 'audio/mpeg',
    })
  }, 30_000)
})

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

describe("the episode schema's audio warnings, as the Studio validates", () => {
  const schema = createSchema({name: 'catalog', types: schemaTypes})
  const episode = documents.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
  const assetId = 'file-0123456789abcdef0123456789abcdef01234567-mp3'
  let standIn: Awaited<ReturnType<typeof startSanityStandIn>>
  beforeAll(async () => {
    standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
  })
  afterAll(() => standIn.close())

  async function warningsOf(changes: Record<string, unknown>): Promise<string[]> {
    if (!episode) throw new Error('no published episode in the sample')
    const client = createClient({
      projectId: 'embedded',
      dataset: 'production',
      apiHost: standIn.apiHost,
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- still how a client reaches a stand-in host
      useProjectHostname: false,
      useCdn: false,
      apiVersion: '2025-02-19',
    })
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- runs the rules with the workspace's client, as the Studio does
    const markers = await validateDocumentWithWorkspace({
      document: {
        _createdAt: '2026-01-01T00:00:00Z',
        _updatedAt: '2026-01-01T00:00:00Z',
        _rev: 'r',
        ...episode,
        ...changes,
      },
      workspace: {schema, getClient: () => client, i18n: getFallbackLocaleSource()},
      environment: 'studio',
      getDocumentExists: async () => true,
    })
    return markers
      .filter((marker) => marker.level === 'warning')
      .map((marker) => `${marker.path.filter((segment) => typeof segment === 'string').join('.')}: ${marker.message}`)
  }
  const uploaded = (durationSeconds: number) => ({
    audioUrl: undefined,
    audioLength: undefined,
    audioType: undefined,
    audioFile: {_type: 'file', asset: {_type: 'reference', _ref: assetId}, durationSeconds},
  })

  it('warns on the duration field when the typed duration is more than two seconds off the file', async () => {
    expect(await warningsOf({...uploaded(7), duration: 20})).toContain(
      'duration: המשך שהוקלד (00:20) שונה מהמשך שנמדד בקובץ האודיו (00:07) ביותר מ-2 שניות.',
    )
    expect(
      (await warningsOf({...uploaded(7), duration: 8})).filter((warning) => warning.startsWith('duration')),
    ).toEqual([])
  })

  it('warns on the audio field when the episode has neither a file nor an external URL', async () => {
    const none = {audioUrl: undefined, audioLength: undefined, audioType: undefined, audioFile: undefined}
    expect(await warningsOf(none)).toContain(`audioFile: ${NO_AUDIO}`)
    expect(await warningsOf(uploaded(7))).not.toContain(`audioFile: ${NO_AUDIO}`)
    expect(await warningsOf({...none, audioUrl: 'https://media.codetalks.example/ep.mp3'})).not.toContain(
      `audioFile: ${NO_AUDIO}`,
    )
  })
})
