/**
 * The media types this service writes, each once and exactly as sent (parameters included), so a
 * response, the nginx export and the feed's links cannot drift apart.
 */
export const MEDIA_TYPES = {
  json: 'application/json; charset=utf-8',
  problem: 'application/problem+json; charset=utf-8',
  chapters: 'application/json+chapters',
  vtt: 'text/vtt; charset=utf-8',
  srt: 'application/srt; charset=utf-8',
  feed: 'application/rss+xml; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  eventStream: 'text/event-stream; charset=utf-8',
} as const

/** A transcript's three formats (catalog/v1/transcript.ts), by extension. */
export const TRANSCRIPT_MEDIA_TYPES = {vtt: MEDIA_TYPES.vtt, srt: MEDIA_TYPES.srt, json: MEDIA_TYPES.json} as const
