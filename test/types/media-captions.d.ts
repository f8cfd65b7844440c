// media-captions ships declarations whose relative re-exports have no file extension, which
// `moduleResolution: nodenext` cannot follow; the part the tests read, declared here.
declare module 'media-captions' {
  interface ParsedCue {
    startTime: number
    endTime: number
    text: string
  }
  interface ParseError {
    line: number
    message: string
  }
  export function parseText(
    text: string,
    options?: {type?: 'vtt' | 'srt'; strict?: boolean; errors?: boolean},
  ): Promise<{cues: ParsedCue[]; errors: ParseError[]}>
}
