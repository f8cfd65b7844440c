import escapeHtml from 'escape-html'

// An episode's description in the feed: its summary and takeaways as the HTML Apple Podcasts
// allows in a description (<p>, <ul>, <li>, <a>; no styles, no scripts), in CDATA.
// Right-to-left twice over: `dir="rtl"` for apps that render HTML, and a RIGHT-TO-LEFT MARK at the
// start of every paragraph for the many that strip tags, so a line that starts with a Latin word
// (React, Kubernetes) still reads right to left.

const DESCRIPTION_MAX_BYTES = 4000
export const RLM = '\u200f'
const ELLIPSIS = '…'

// TextEncoder rather than Buffer: the Studio's feed preview runs this module in the browser.
const utf8 = new TextEncoder()
const byteLength = (text: string) => utf8.encode(text).length
const paragraph = (text: string) => `<p dir="rtl">${RLM}${escapeHtml(text)}</p>`
const list = (items: readonly string[]) =>
  items.length === 0 ? '' : `<ul dir="rtl">${items.map((item) => `<li>${RLM}${escapeHtml(item)}</li>`).join('')}</ul>`

/**
 * The summary, then as many takeaways as fit in Apple's 4000 bytes (a Hebrew letter is two);
 * a summary too long by itself is cut at a word and ends with an ellipsis.
 */
export function itemDescriptionHtml(summary: string, takeaways: readonly string[]): string {
  const summaryHtml = paragraph(summary)
  if (byteLength(summaryHtml) > DESCRIPTION_MAX_BYTES)
    return paragraph(cutToFit(summary, DESCRIPTION_MAX_BYTES - byteLength(paragraph(ELLIPSIS))))
  for (let count = takeaways.length; count > 0; count--) {
    const html = summaryHtml + list(takeaways.slice(0, count))
    if (byteLength(html) <= DESCRIPTION_MAX_BYTES) return html
  }
  return summaryHtml
}

/** The longest prefix of whole words whose escaped bytes fit, with an ellipsis. */
function cutToFit(text: string, maxBytes: number): string {
  const words = text.split(/(?<=\s)/)
  let kept = ''
  for (const word of words) {
    if (byteLength(escapeHtml(kept + word)) > maxBytes) break
    kept += word
  }
  return `${kept.trimEnd()}${ELLIPSIS}`
}
