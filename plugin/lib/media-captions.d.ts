// media-captions ships declarations whose relative re-exports have no file extension, which
// `moduleResolution: nodenext` cannot follow; the part the plugin and the tests read, declared here
// (test/types/media-captions.d.ts points the server's program at this file).
declare module 'media-captions' {
  /** A cue as the parser gives it: seconds, and its text as written (WebVTT markup included). */
  interface VTTCue {
    id: string
    startTime: number
    endTime: number
    text: string
  }
  /** 1: no `WEBVTT` header; 2: a timestamp that is not one; 3 and 5: a cue setting (position, alignment). */
  interface ParseError {
    code: 0 | 1 | 2 | 3 | 4 | 5
    /** The file's line, from 1. */
    line: number
    message: string
  }
  export function parseText(
    text: string,
    options?: {type?: 'vtt' | 'srt'; strict?: boolean; errors?: boolean},
  ): Promise<{cues: VTTCue[]; errors: ParseError[]}>
  /** `hh:mm:ss.ttt` or `mm:ss.ttt` in seconds, or null when it is not a timestamp. */
  export function parseVTTTimestamp(timestamp: string): number | null

  interface VTTextNode {
    type: 'text'
    /** With the character references (`&amp;`, `&lt;` …) replaced. */
    data: string
  }
  interface VTTVoiceNode {
    type: 'v'
    /** Absent when the tag names no one (`<v>`). */
    voice?: string
    children: VTTNode[]
  }
  interface VTTOtherNode {
    type: 'c' | 'i' | 'b' | 'u' | 'ruby' | 'rt' | 'lang' | 'timestamp'
    children: VTTNode[]
  }
  type VTTNode = VTTextNode | VTTVoiceNode | VTTOtherNode
  /** A WebVTT cue's text as a tree of its tags (`<v Name>`, `<i>` …) and text. */
  export function tokenizeVTTCue(cue: VTTCue): VTTNode[]
}
