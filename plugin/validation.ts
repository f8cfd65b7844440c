import {ENGLISH_TAG_PATTERN, LANGUAGE_TAG_PATTERN, SLUG_MAX_LENGTH, SLUG_PATTERN} from '../server/api/v1/contract.ts'

// The contract's rules as Studio validation messages. Each returns true or what to fix, in the
// shape Sanity's `rule.custom()` takes, and uses the contract's own patterns, so what the Studio
// accepts is what the API serves.

export type Verdict = true | string

export function checkSlug(slug: string | undefined): Verdict {
  if (slug === undefined || slug === '') return 'Generate the slug from the title, or type one.'
  if (slug.length > SLUG_MAX_LENGTH) return `At most ${SLUG_MAX_LENGTH} characters (this one has ${slug.length}).`
  if (!SLUG_PATTERN.test(slug)) return 'Only lowercase Latin letters, digits and dashes (a-z, 0-9, -).'
  return true
}

export function checkEnglishTag(tag: string | undefined): Verdict {
  if (tag === undefined) return true
  if (tag !== tag.toLowerCase()) return `Tags are lowercase English: "${tag.toLowerCase()}".`
  return ENGLISH_TAG_PATTERN.test(tag) ? true : 'Tags are lowercase English words (a-z, digits, space, . + # -), such as "kubernetes" or "c#".'
}

export function checkLanguage(language: string | undefined): Verdict {
  if (language === undefined) return true
  return LANGUAGE_TAG_PATTERN.test(language) ? true : 'A BCP 47 language tag, such as "he" or "en".'
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/
const YOUTUBE_URL_ID = /(?:youtu\.be\/|[?&]v=|\/embed\/|\/shorts\/)([A-Za-z0-9_-]{11})/

/** A YouTube video id: 11 letters, digits, `-` or `_`. A pasted URL gets its id suggested. */
export function checkVideoId(videoId: string | undefined): Verdict {
  if (videoId === undefined || YOUTUBE_ID.test(videoId)) return true
  const fromUrl = YOUTUBE_URL_ID.exec(videoId)?.[1]
  if (fromUrl) return `Only the video id, not the URL: "${fromUrl}".`
  return 'A YouTube video id is 11 characters: letters, digits, - and _ (as in youtube.com/watch?v=M7lc1UVf-VE).'
}

/** An FAQ entry needs both halves; the API serves only complete pairs. */
export function checkFaqPair(pair: {question?: string; answer?: string} | undefined): Verdict {
  if (!pair) return true
  const missing = [!pair.question?.trim() && 'a question', !pair.answer?.trim() && 'an answer'].filter(Boolean)
  return missing.length === 0 ? true : `Add ${missing.join(' and ')}.`
}

/** Text the API serves must have something besides spaces. */
export function checkText(text: string | undefined): Verdict {
  return text === undefined || text.trim().length > 0 ? true : 'Write something, not only spaces.'
}

/**
 * No other document of the same type has this slug (a draft of this very document does not
 * count). GROQ for the Studio's client; `$published` and `$draft` are this document's two ids.
 */
export const OTHER_DOCUMENT_WITH_SLUG_QUERY = `defined(*[_type == $type && slug.current == $slug && !(_id in [$published, $draft])][0]._id)`

export function slugQueryParameters(documentId: string, type: string, slug: string) {
  const published = documentId.replace(/^(drafts|versions\.[^.]+)\./, '')
  return {type, slug, published, draft: `drafts.${published}`}
}
