import {parseBlob} from 'music-metadata'
import {wholeSeconds} from './audio-checks.ts'

/** What the Studio learns from an audio file in the browser, before and apart from its upload. */
export interface AudioFacts {
  durationSeconds: number | undefined
  bytes: number
  mimeType: string
}

/**
 * Reads the file's duration with music-metadata, scanning the whole file when its headers do not
 * say (a variable-bitrate MP3 without a Xing header); the bytes are the editor's own, never fetched.
 */
export async function readAudioFacts(file: Blob): Promise<AudioFacts> {
  const metadata = await parseBlob(file, {duration: true, skipCovers: true})
  return {durationSeconds: wholeSeconds(metadata.format.duration), bytes: file.size, mimeType: file.type}
}
