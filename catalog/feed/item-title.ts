import {RLM} from './item-description.ts'

// Apple shows `itunes:episode` beside the title, so a title that starts "פרק 30:" shows the number
// twice: `itunes:title` is the title without that prefix. The spellings are the dataset's and the
// slugs' (פרק 30:, Episode 30 -, Ep. 30:, #30:), each only with a separator after the number.
const NUMBER_PREFIX = /^\s*(?:(?:פרק|episode|ep\.?)\s*#?|#)\s*\d+\s*[:\-–—.|]\s*/iu
const STARTS_LATIN = /^[A-Za-z]/

/**
 * The episode's `itunes:title`: its title without a leading episode number, or undefined when there
 * is no such prefix (the title says it all). Without the Hebrew before it, a title that now starts
 * with a Latin word (React, Kubernetes) would read left to right in apps, so it starts with a
 * RIGHT-TO-LEFT MARK, as the description's paragraphs do.
 */
export function itunesTitleOf(title: string): string | undefined {
  const prefix = NUMBER_PREFIX.exec(title)?.[0]
  const rest = prefix === undefined ? '' : title.slice(prefix.length).trim()
  if (rest === '') return undefined
  return STARTS_LATIN.test(rest) ? `${RLM}${rest}` : rest
}
