// The one rule for text every output can carry, shared by the catalog (which cleans content as it
// enters) and the Studio (which refuses it as it is typed). No Node modules: the Studio imports it.

// What XML 1.0 forbids (C0 controls but tab, line feed and carriage return), lone surrogates (with
// the u flag a paired surrogate is one code point and does not match) and U+FFFE/U+FFFF.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this matches
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/u
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'gu')
// The same rule, checked faster for the common case of clean text: the u flag costs every string.
// eslint-disable-next-line no-control-regex -- as above
const FORBIDDEN_BUT_SURROGATES = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/
const isClean = (text: string) => !FORBIDDEN_BUT_SURROGATES.test(text) && text.isWellFormed()

/** A character the rule refuses: its code point and its position (1 for the first character, counted in characters). */
export interface ForbiddenCharacter {
  codePoint: number
  position: number
}

/** The first character XML cannot carry, or undefined when the text is fine. */
export function firstForbiddenCharacter(text: string): ForbiddenCharacter | undefined {
  const match = isClean(text) ? null : FORBIDDEN.exec(text)
  if (!match) return undefined
  return {codePoint: match[0].codePointAt(0) ?? 0, position: Array.from(text.slice(0, match.index)).length + 1}
}

/** `U+0008`: how a character is named in messages. */
export const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/** Where a string sits in a JSON-like value: field names and array indexes. */
type TextPath = (string | number)[]

/** A value with every string in it cleaned, and where each string that changed sits, with its first refused character. */
export interface CleanedValue {
  value: unknown
  found: {path: TextPath; character: ForbiddenCharacter}[]
}

/**
 * Cleans every string in a JSON-like value (object keys are field names and are left alone).
 * Returns the very same value when nothing changed, so unchanged rows cost no copy.
 */
export function cleanStrings(value: unknown): CleanedValue {
  if (!holdsForbidden(value)) return {value, found: []}
  const found: CleanedValue['found'] = []
  // One path, pushed and popped on the way down, copied only for a string that changed.
  const path: TextPath = []
  const clean = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const character = firstForbiddenCharacter(node)
      if (!character) return node
      found.push({path: [...path], character})
      return node.replace(FORBIDDEN_ALL, '')
    }
    if (Array.isArray(node)) {
      const array: readonly unknown[] = node
      let copy: unknown[] | undefined
      array.forEach((element, index) => {
        path.push(index)
        const cleaned = clean(element)
        path.pop()
        if (cleaned !== element) (copy ??= [...array])[index] = cleaned
      })
      return copy ?? array
    }
    if (node !== null && typeof node === 'object') {
      let copy: Record<string, unknown> | undefined
      for (const [key, element] of Object.entries(node)) {
        path.push(key)
        const cleaned = clean(element)
        path.pop()
        if (cleaned !== element) (copy ??= {...node})[key] = cleaned
      }
      return copy ?? node
    }
    return node
  }
  return {value: clean(value), found}
}

/** Whether any string in the value breaks the rule: the cheap walk every clean row takes. */
function holdsForbidden(node: unknown): boolean {
  if (typeof node === 'string') return !isClean(node)
  if (Array.isArray(node)) return node.some(holdsForbidden)
  if (node === null || typeof node !== 'object') return false
  for (const element of Object.values(node)) if (holdsForbidden(element)) return true
  return false
}
