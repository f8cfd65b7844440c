import type {LayoutProps} from 'sanity'

// Preview titles are drawn by Sanity in many places: the structure tool's document lists (whose
// previews no configured component reaches), reference and array items in the form, search. A
// style rule reaches them all, and the form's field titles and descriptions. `plaintext` lays out
// each text in the direction of its first strong letter: Hebrew right-to-left (a long title is cut
// at its end; a description with Latin words in it reads in order), English as before. Sanity's
// markup is not a public API: test/browser/studio.browser.test.ts checks the rule still reaches both.
const PREVIEW_TEXT = '[data-testid="default-preview__header"] [data-ui="Text"] > span > span'
const FIELD_HEADER_TEXT = '[data-ui="fieldHeaderContentBox"] [data-ui="Text"] > span'
const DIRECTIONAL_TITLES_CSS = `${PREVIEW_TEXT}, ${FIELD_HEADER_TEXT} { unicode-bidi: plaintext; text-align: left; }`

/** The Studio's layout, with preview titles and field headers laid out in their own direction. */
export function DirectionalTitles(props: LayoutProps) {
  return (
    <>
      <style>{DIRECTIONAL_TITLES_CSS}</style>
      {props.renderDefault(props)}
    </>
  )
}
