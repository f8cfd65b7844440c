import {ARTWORK_MIN_PIXELS, imageAssetDimensions} from '../v1/artwork.ts'
import {z} from 'zod'
import {cleanStrings, codePointName} from '../v1/xml-text.ts'
import {
  ENCLOSURE_EXTENSIONS,
  ENCLOSURE_FORMATS,
  ENCLOSURE_MIME_TYPES,
  ENGLISH_TAG_PATTERN,
  isEnclosureMimeType,
  FETCHED_URL_PATTERN,
  LANGUAGE_TAG_PATTERN,
  SLUG_MAX_LENGTH,
  SLUG_PATTERN,
} from '../v1/contract.ts'

// The contract's rules as Studio validation messages, in Hebrew for the editors. Each returns true
// or what to fix, in the shape Sanity's `rule.custom()` takes, and uses the contract's own
// patterns, so what the Studio accepts is what the API serves.

export type Verdict = true | string

/**
 * What every required field of ours says. Sanity's own "Required" is English (the Studio has no
 * Hebrew locale); the plugin's validation bundle (i18n.ts) says this for the built-in types' rules.
 */
export const REQUIRED = 'שדה חובה'

/** What an empty slug says: what to do about it. */
export const SLUG_MISSING = 'צרו את הכתובת מהכותרת (Generate) או הקלידו אחת.'

/** A document type as the messages name it. */
export const DOCUMENT_TYPE_NAMES: Record<string, string> = {episode: 'פרק', meetup: 'הרצאה', voice: 'קול'}

export function checkSlug(slug: string | undefined): Verdict {
  if (slug === undefined || slug === '') return SLUG_MISSING
  if (slug.length > SLUG_MAX_LENGTH) return `לכל היותר ${SLUG_MAX_LENGTH} תווים (בזו יש ${slug.length}).`
  if (!SLUG_PATTERN.test(slug)) return 'רק אותיות לטיניות קטנות, ספרות ומקפים (a-z, 0-9, -).'
  return true
}

export function checkEnglishTag(tag: string | undefined): Verdict {
  if (tag === undefined) return true
  if (tag !== tag.toLowerCase()) return `תגיות נכתבות באנגלית באותיות קטנות: "${tag.toLowerCase()}".`
  return ENGLISH_TAG_PATTERN.test(tag)
    ? true
    : 'תגיות הן מילים באנגלית באותיות קטנות (a-z, ספרות, רווח, . + # -), למשל "kubernetes" או "c#".'
}

export function checkLanguage(language: string | undefined): Verdict {
  if (language === undefined) return true
  return LANGUAGE_TAG_PATTERN.test(language) ? true : 'תג שפה לפי BCP 47, למשל "he" או "en".'
}

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/
const YOUTUBE_URL_ID = /(?:youtu\.be\/|[?&]v=|\/embed\/|\/shorts\/)([A-Za-z0-9_-]{11})/

/** A YouTube video id: 11 letters, digits, `-` or `_`. A pasted URL gets its id suggested. */
export function checkVideoId(videoId: string | undefined): Verdict {
  if (videoId === undefined || YOUTUBE_ID.test(videoId)) return true
  const fromUrl = YOUTUBE_URL_ID.exec(videoId)?.[1]
  if (fromUrl) return `רק מזהה הסרטון, לא הקישור: "${fromUrl}".`
  return 'מזהה סרטון ביוטיוב הוא 11 תווים: אותיות, ספרות, - ו-_ (כמו ב-youtube.com/watch?v=M7lc1UVf-VE).'
}

/** An FAQ entry needs both halves; the API serves only complete pairs. */
export function checkFaqPair(pair: {question?: string; answer?: string} | undefined): Verdict {
  if (!pair) return true
  const missing = [!pair.question?.trim() && 'שאלה', !pair.answer?.trim() && 'תשובה'].filter(Boolean)
  return missing.length === 0 ? true : `הוסיפו ${missing.join(' ו')}.`
}

/** Text the API serves must have something besides spaces. */
export function checkText(text: string | undefined): Verdict {
  return text === undefined || text.trim().length > 0 ? true : 'כתבו משהו, לא רק רווחים.'
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

/** Apple Podcasts refuses a show or episode description longer than this many bytes (UTF-8). */
const FEED_TEXT_MAX_BYTES = 4000

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length

/** Within Apple's 4000 bytes; the editor is told how many are left, since a Hebrew letter takes two. */
export function checkFeedTextBytes(text: string | undefined): Verdict {
  if (text === undefined) return true
  const over = utf8Bytes(text) - FEED_TEXT_MAX_BYTES
  return over <= 0 ? true : `ארוך מדי לפיד: ${over} בתים מעל ${FEED_TEXT_MAX_BYTES} (אות עברית היא 2 בתים).`
}

/** What the editor sees while writing: bytes left of Apple's 4000 (shown as information, never blocking). */
export function feedBytesLeft(text: string | undefined): Verdict {
  if (!text) return true
  const left = FEED_TEXT_MAX_BYTES - utf8Bytes(text)
  return left < 0 ? true : `נותרו ${left} בתים מתוך ${FEED_TEXT_MAX_BYTES} בפיד (אות עברית היא 2 בתים).`
}

/**
 * The show's artwork is uploaded as JPEG or PNG, as Apple asks: the feed serves a PNG as PNG and
 * anything else converted to JPEG, so a WebP or GIF upload would be served as something else.
 */
export function checkArtworkFormat(assetId: string | undefined): Verdict {
  const format = assetId === undefined ? undefined : imageAssetDimensions(assetId)?.format
  return format === undefined || format === 'jpg' || format === 'png'
    ? true
    : `עטיפה רק בפורמט JPEG או PNG (זו ${format.toUpperCase()}).`
}

/** Apple's artwork rules: square and at least 1400 px (the image CDN serves it as JPEG or PNG, at most 3000 px). */
export function checkPodcastArtwork(assetId: string | undefined): Verdict {
  if (assetId === undefined) return true
  const size = imageAssetDimensions(assetId)
  if (!size) return true
  if (size.width !== size.height) return `התמונה צריכה להיות ריבועית (זו ${size.width}×${size.height}).`
  if (size.width < ARTWORK_MIN_PIXELS)
    return `לפחות ${ARTWORK_MIN_PIXELS}×${ARTWORK_MIN_PIXELS} פיקסלים (זו ${size.width}×${size.height}).`
  return true
}

/**
 * Podcast apps and directories fetch a URL (audio, transcript, funding) only over https, from an
 * address written in ASCII: the contract's own pattern. `what` names the link in the message.
 */
export function checkFetchedUrl(url: string | undefined, what = 'קישור'): Verdict {
  if (url === undefined) return true
  if (!url.startsWith('https://')) return `${what} חייב להתחיל ב-https://.`
  if (!FETCHED_URL_PATTERN.test(url)) return `${what} רק באותיות ASCII, בלי רווחים (קודדו אותיות עבריות כ-%D7%...).`
  return true
}

/** Apple Podcasts' formats by name, as a Hebrew list: "MP3, M4A, MP4, MOV או M4V". */
const APPLE_MEDIA = [...new Set(Object.values(ENCLOSURE_FORMATS).map((format) => format.name))]
  .join(', ')
  .replace(/, (?=[^,]*$)/, ' או ')
/** Other audio and video formats a link may name: Apple does not play them, whatever type is chosen for them. */
const OTHER_MEDIA_EXTENSIONS: readonly string[] = [
  'aac',
  'ogg',
  'oga',
  'opus',
  'wav',
  'flac',
  'wma',
  'webm',
  'mkv',
  'avi',
]

/**
 * An external audio link: https and ASCII, as every fetched URL, and not to a file whose extension
 * names a format Apple does not take. A link without one (a host's download address) is not judged.
 */
export function checkAudioUrl(url: string | undefined): Verdict {
  const fetched = checkFetchedUrl(url, 'קישור לאודיו')
  if (fetched !== true || url === undefined || !URL.canParse(url)) return fetched
  const extension = /\.([A-Za-z0-9]+)$/.exec(new URL(url).pathname)?.[1]?.toLowerCase()
  return extension && OTHER_MEDIA_EXTENSIONS.includes(extension)
    ? `Apple Podcasts מקבלת רק קבצי ${APPLE_MEDIA}; הקישור מוביל לקובץ .${extension}.`
    : true
}

/** The enclosure types Apple Podcasts plays; AAC in an .aac file is not among them. */
export function checkAudioType(type: string | undefined): Verdict {
  if (type === undefined || isEnclosureMimeType(type)) return true
  return `Apple Podcasts מקבלת רק ${APPLE_MEDIA} (${ENCLOSURE_MIME_TYPES.join(', ')}); ${type} לא נתמך.`
}

/** An uploaded file's format, from its asset id (`file-<hash>-<extension>`), against Apple's list. */
export function checkAudioFile(assetId: string | undefined): Verdict {
  const extension = assetId && /^file-[A-Za-z0-9]+-([a-z0-9]+)$/.exec(assetId)?.[1]
  if (!extension || ENCLOSURE_EXTENSIONS.includes(extension)) return true
  return `Apple Podcasts מקבלת רק קבצי ${APPLE_MEDIA}; קובץ .${extension} לא נתמך.`
}

/** A document-level error placed on the field that holds it, in the shape Sanity's `rule.custom()` takes. */
export interface FieldError {
  message: string
  path: (string | number | {_key: string})[]
}

const keyedSchema = z.object({_key: z.string()})

/** Array items with a `_key` are named by it, as the Studio's form finds them; others by index. */
function studioPath(document: unknown, path: readonly (string | number)[]): FieldError['path'] {
  let node: unknown = document
  return path.map((segment) => {
    node =
      typeof node === 'object' && node !== null
        ? Object.entries(node).find(([key]) => key === String(segment))?.[1]
        : undefined
    const keyed = typeof segment === 'number' ? keyedSchema.safeParse(node) : undefined
    return keyed?.success ? {_key: keyed.data._key} : segment
  })
}

/**
 * Characters no feed can carry (control characters pasted from word processors and chat apps,
 * U+FFFE/U+FFFF, broken surrogates), anywhere in the document: the server's own rule, one error on
 * each field that holds one, naming the field (`fieldTitle` turns a field name into its title) and
 * the character's position.
 */
export function checkCharacters(
  document: unknown,
  fieldTitle: (name: string) => string | undefined = () => undefined,
): true | FieldError[] {
  const errors = cleanStrings(document).found.map(({path, character}): FieldError => {
    const [field = '', ...rest] = path
    const name = [
      fieldTitle(String(field)) ?? String(field),
      ...rest.map((segment) => (typeof segment === 'number' ? segment + 1 : segment)),
    ].join(' › ')
    return {
      path: studioPath(document, path),
      message: `בשדה "${name}" יש תו שאי אפשר להגיש בפיד (${codePointName(character.codePoint)}) במקום ${character.position}. מחקו אותו: לרוב הוא מגיע בהדבקה ממעבד תמלילים או מצ'אט.`,
    }
  })
  return errors.length === 0 ? true : errors
}
