import {parseBlob} from 'music-metadata'
import {SNIFF_BYTES, sniffAudio, trustReading, type UnreadReason} from './audio-reading.ts'

/** What the Studio learns from an audio file in the browser, before and apart from its upload. */
export interface AudioFacts {
  /** The whole seconds, only when the reading can be trusted (plugin/lib/audio-reading.ts). */
  durationSeconds: number | undefined
  /** Why there is no duration, when there is none. */
  unread?: UnreadReason
  bytes: number
  mimeType: string
  /** How many bytes the parse asked for, and in how many reads: what the limits bound. */
  bytesRead: number
  reads: number
}

/**
 * How much a reading may cost. Reads are counted because a file of many tiny boxes costs a read
 * each (200,000 of them took minutes and hundreds of MB); the deadline covers whatever is left. The
 * deadline is generous because a busy laptop is slow too: at 2 s, a three-second MP3 went unread in
 * a Chromium sharing two cores with a test run.
 */
export interface ReadLimits {
  bytes: number
  reads: number
  milliseconds: number
}
export const AUDIO_READ_LIMITS: ReadLimits = {bytes: 16 * 1024 * 1024, reads: 10_000, milliseconds: 10_000}

class ReadLimitError extends Error {}

/**
 * The file as music-metadata reads it (its blob tokenizer reads through `slice`), counting every
 * slice and refusing one past the limits or after `signal` aborts. A blob made of a blob refers to
 * its bytes; nothing is copied.
 */
class MeteredBlob extends Blob {
  bytesRead = 0
  reads = 0
  readonly #limits: ReadLimits
  readonly #signal: AbortSignal

  constructor(file: Blob, limits: ReadLimits, signal: AbortSignal) {
    super([file], {type: file.type})
    this.#limits = limits
    this.#signal = signal
  }

  override slice(start = 0, end = this.size, contentType?: string): Blob {
    this.reads += 1
    this.bytesRead += Math.max(0, Math.min(end, this.size) - start)
    if (this.#signal.aborted) throw new ReadLimitError('the deadline passed')
    if (this.reads > this.#limits.reads || this.bytesRead > this.#limits.bytes)
      throw new ReadLimitError('the file needs more reading than the limits allow')
    return super.slice(start, end, contentType)
  }
}

/**
 * Reads the file's duration with music-metadata (scanning the frames only when its headers do not
 * say), within `limits`, and keeps it only when it can be trusted. The bytes are the editor's own,
 * never fetched. `signal` ends the reading early (the input passes one when the file is replaced).
 */
export async function readAudioFacts(
  file: Blob,
  options: {limits?: Partial<ReadLimits>; signal?: AbortSignal} = {},
): Promise<AudioFacts> {
  const limits = {...AUDIO_READ_LIMITS, ...options.limits}
  const deadline = AbortSignal.timeout(limits.milliseconds)
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline
  const metered = new MeteredBlob(file, limits, signal)
  const facts = (durationSeconds: number | undefined, unread?: UnreadReason): AudioFacts => ({
    durationSeconds,
    ...(unread ? {unread} : {}),
    bytes: file.size,
    mimeType: file.type,
    bytesRead: metered.bytesRead,
    reads: metered.reads,
  })
  try {
    const sniffed = sniffAudio(new Uint8Array(await metered.slice(0, SNIFF_BYTES).arrayBuffer()))
    // A parse busy between two reads is left to finish on its own; nobody waits for it.
    const parsing = parseBlob(metered, {duration: true, skipCovers: true, skipPostHeaders: true})
    parsing.catch(() => undefined)
    const {format} = await Promise.race([parsing, aborted(signal)])
    const verdict = trustReading({declaredType: file.type, sniffed, format, bytes: file.size})
    return verdict.trusted ? facts(verdict.seconds) : facts(undefined, verdict.reason)
  } catch (error) {
    return facts(undefined, error instanceof ReadLimitError || signal.aborted ? 'too-much-to-read' : 'failed')
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(new ReadLimitError('the reading was abandoned'))
    if (signal.aborted) fail()
    else signal.addEventListener('abort', fail, {once: true})
  })
}
