import type {PreviewProps} from 'sanity'

// Previews whose title is Hebrew text: laid out right-to-left, so a long title is cut at its end
// (the left), not at its beginning.
const HEBREW_PREVIEWS = new Set(['episode', 'meetup', 'voice', 'faqEntry'])

/**
 * Hebrew previews in the form (references, array items) right-to-left; every other preview as it
 * was. The structure tool's document lists draw their own previews and never reach this.
 */
export function DirectionalPreview(props: PreviewProps) {
  if (!HEBREW_PREVIEWS.has(props.schemaType?.name ?? '')) return props.renderDefault(props)
  return (
    <div dir="rtl" style={{display: 'contents'}}>
      {props.renderDefault(props)}
    </div>
  )
}
