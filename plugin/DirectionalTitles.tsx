import type {LayoutProps} from 'sanity'

// Preview titles are drawn by Sanity in many places: the structure tool's document lists (whose
// previews no configured component reaches), reference and array items in the form, search. A
// style rule reaches them all. `plaintext` lays each title out in the direction of its first
// strong letter: a Hebrew title right-to-left, so a long one is cut at its end, and an English one
// as before. Sanity's preview markup is not a public API: test/browser/studio.browser.test.ts
// checks in Chromium that the rule still reaches the lists.
const PREVIEW_TEXT = '[data-testid="default-preview__header"] [data-ui="Text"] > span > span'
export const DIRECTIONAL_TITLES_CSS = `${PREVIEW_TEXT} { unicode-bidi: plaintext; text-align: left; }`

/** The Studio's layout, with preview titles laid out in their own direction. */
export function DirectionalTitles(props: LayoutProps) {
  return (
    <>
      <style>{DIRECTIONAL_TITLES_CSS}</style>
      {props.renderDefault(props)}
    </>
  )
}
