// When the Studio trusts a duration read from an audio file in the browser (plugin/lib/audio-reading.ts),
// and how much reading it costs (plugin/lib/audio-metadata.ts): random bytes labelled audio/mpeg, a real
// MP3 made here by Debian's sox, and an MP4 of 200,000 tiny boxes made here, read as a picked file is.
import {execFileSync} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {AUDIO_READ_LIMITS, readAudioFacts} from '../../plugin/lib/audio-metadata.ts'
import {
  durationChoice,
  plausibleDuration,
  replaceQuestion,
  sniffAudio,
  trustReading,
  unreadMessage,
} from '../../plugin/lib/audio-reading.ts'
import {ensureDebianProgram} from '../../support/debian.ts'

const ascii = (text: string) => new TextEncoder().encode(text)
/** An ISO base media box: a 32-bit size, a four-letter type, then the body. */
function box(type: string, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const bytes = new Uint8Array(8 + body.length)
  new DataView(bytes.buffer).setUint32(0, bytes.length)
  bytes.set(ascii(type), 4)
  bytes.set(body, 8)
  return bytes
}
const ftyp = box('ftyp', new Uint8Array([...ascii('M4A '), 0, 0, 0, 0, ...ascii('M4A isom')]))

/** Bytes no format wrote, the same on every run (xorshift), so a parse is the same on every run. */
function noise(length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let state = 0x2545f491
  for (let index = 0; index < length; index++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    bytes[index] = state & 0xff
  }
  return bytes
}

describe('what the first bytes say', () => {
  it('names MP3 by an ID3 tag or a layer III frame, and MP4 by its ftyp box and brand', () => {
    expect(sniffAudio(ascii('ID3\u0004\u0000'))).toEqual({family: 'mp3'})
    expect(sniffAudio(new Uint8Array([0xff, 0xfb, 0x90, 0x64]))).toEqual({family: 'mp3'})
    // Layer II and ADTS (layer 00) frames are not MP3.
    expect(sniffAudio(new Uint8Array([0xff, 0xfd, 0x90, 0x64]))).toBeUndefined()
    expect(sniffAudio(new Uint8Array([0xff, 0xf1, 0x50, 0x80]))).toBeUndefined()
    expect(sniffAudio(ftyp.subarray(0, 12))).toEqual({family: 'mp4', brand: 'M4A'})
    expect(sniffAudio(noise(12))).toBeUndefined()
  })
})

describe('the trust rule', () => {
  const mp3 = {container: 'MPEG', codec: 'MPEG 1 Layer 3', duration: 600.4, bitrate: 128_000}
  const tenMinutesAt128k = 600 * 16_000

  it('trusts an MP3 read as MPEG layer III, of a length its size fits, in whole seconds', () => {
    expect(
      trustReading({declaredType: 'audio/mpeg', sniffed: {family: 'mp3'}, format: mp3, bytes: tenMinutesAt128k}),
    ).toEqual({trusted: true, seconds: 600})
    expect(
      trustReading({
        declaredType: 'audio/x-m4a',
        sniffed: {family: 'mp4', brand: 'M4A'},
        format: {container: 'M4A/isom/iso2', codec: 'MPEG-4/AAC', duration: 600, bitrate: 128_000},
        bytes: tenMinutesAt128k,
      }),
    ).toEqual({trusted: true, seconds: 600})
  })

  it('does not trust a format the first bytes, the declared type and the parser do not all agree on', () => {
    const unsure = {trusted: false, reason: 'unsure-format'}
    const bytes = tenMinutesAt128k
    expect(trustReading({declaredType: 'audio/mpeg', sniffed: undefined, format: mp3, bytes})).toEqual(unsure)
    expect(trustReading({declaredType: 'audio/mp4', sniffed: {family: 'mp3'}, format: mp3, bytes})).toEqual(unsure)
    const adts = {container: 'ADTS/MPEG-2', codec: 'AAC', duration: 0.0116, bitrate: 41_982_425}
    expect(trustReading({declaredType: 'audio/mpeg', sniffed: {family: 'mp3'}, format: adts, bytes})).toEqual(unsure)
    const otherBrand = {container: 'qt', codec: 'MPEG-4/AAC', duration: 600}
    expect(
      trustReading({declaredType: 'video/mp4', sniffed: {family: 'mp4', brand: 'isom'}, format: otherBrand, bytes}),
    ).toEqual(unsure)
  })

  it('does not trust a length the file size cannot hold', () => {
    // 5 MB lasting 0.0116 s, or 10 hours in 5 MB; a 600 s file at 128 kbps is not 100 KB or 50 MB.
    expect(plausibleDuration(0.0116, 5_000_000, undefined)).toBe(false)
    expect(plausibleDuration(36_000, 5_000_000, undefined)).toBe(false)
    expect(plausibleDuration(600, tenMinutesAt128k, 128_000)).toBe(true)
    expect(plausibleDuration(600, 100_000, 128_000)).toBe(false)
    expect(plausibleDuration(600, 50_000_000, 128_000)).toBe(false)
    // A three-second jingle with a large cover image in its tags.
    expect(plausibleDuration(3, 48_000 + 1_000_000, 128_000)).toBe(true)
    const tiny = {...mp3, duration: 0.0116}
    expect(
      trustReading({declaredType: 'audio/mpeg', sniffed: {family: 'mp3'}, format: tiny, bytes: 5_000_000}),
    ).toEqual({trusted: false, reason: 'implausible'})
    const none = {...mp3, duration: undefined}
    expect(
      trustReading({declaredType: 'audio/mpeg', sniffed: {family: 'mp3'}, format: none, bytes: 5_000_000}),
    ).toEqual({trusted: false, reason: 'no-duration'})
  })

  it('says in Hebrew why there is no duration and asks for it to be typed', () => {
    expect(unreadMessage('implausible')).toBe(
      'לא הצלחנו לקרוא את משך הקובץ (המשך שנקרא אינו מתאים לגודל הקובץ): הקלידו אותו בשדה "משך".',
    )
    expect(unreadMessage('too-much-to-read')).toContain('(קריאת הקובץ ארכה יותר מדי)')
  })
})

describe('a reading and a typed duration', () => {
  it('fills an empty field, or one holding the previous file’s reading, and asks before replacing a typed one', () => {
    expect(durationChoice({typed: undefined, previousReading: undefined, reading: 7})).toBe('set')
    expect(durationChoice({typed: 300, previousReading: 300, reading: 7})).toBe('set')
    expect(durationChoice({typed: 7, previousReading: undefined, reading: 7})).toBe('same')
    expect(durationChoice({typed: 1200, previousReading: undefined, reading: 7})).toBe('ask')
    expect(durationChoice({typed: 1200, previousReading: 300, reading: 7})).toBe('ask')
    expect(replaceQuestion(1200, 7)).toEqual({
      message: 'בשדה "משך" הוקלד 20:00, ובקובץ נמדד 00:07.',
      button: 'השתמשו במשך מהקובץ (00:07)',
    })
  })
})

describe('reading a picked file', () => {
  let directory: string
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'audio-reading-'))
  })
  afterAll(() => rm(directory, {recursive: true, force: true}))

  it('gives no duration for 5 MB of random bytes labelled audio/mpeg', async () => {
    const facts = await readAudioFacts(new Blob([noise(5_000_000)], {type: 'audio/mpeg'}))
    expect(facts.durationSeconds).toBeUndefined()
    expect(facts.unread).toBe('unsure-format')
  })

  it('gives the duration of a real MP3, in whole seconds, reading a few KB of it', async () => {
    const sox = ensureDebianProgram('/usr/bin/sox', ['sox', 'libsox-fmt-mp3'])
    const path = join(directory, 'tone.mp3')
    execFileSync(sox, ['-n', '-r', '44100', '-c', '1', path, 'synth', '3', 'sine', '440'])
    const bytes = await readFile(path)
    const facts = await readAudioFacts(new Blob([bytes], {type: 'audio/mpeg'}))
    expect(facts).toMatchObject({durationSeconds: 3, bytes: bytes.length, mimeType: 'audio/mpeg'})
    expect(facts.unread).toBeUndefined()
    expect(facts.bytesRead).toBeLessThan(bytes.length)
  }, 30_000)

  it('gives up on an MP4 of 200,000 tiny boxes within the read limit, having read a sliver of it', async () => {
    const boxes = Array.from({length: 200_000}, () => box('free'))
    const file = new Blob([ftyp, ...boxes], {type: 'audio/mp4'})
    expect(file.size).toBeGreaterThan(1_600_000)
    // No deadline here: the read limit alone must stop it.
    const facts = await readAudioFacts(file, {limits: {milliseconds: 600_000}})
    expect(facts).toMatchObject({durationSeconds: undefined, unread: 'too-much-to-read'})
    expect(facts.reads).toBe(AUDIO_READ_LIMITS.reads + 1)
    expect(facts.bytesRead).toBeLessThan(200_000)
  }, 60_000)

  it('gives up when the reading is abandoned, and says why', async () => {
    const controller = new AbortController()
    controller.abort()
    const bytes = noise(100_000)
    bytes.set(ascii('ID3'))
    const facts = await readAudioFacts(new Blob([bytes], {type: 'audio/mpeg'}), {signal: controller.signal})
    expect(facts).toMatchObject({durationSeconds: undefined, unread: 'too-much-to-read'})
  })
})
