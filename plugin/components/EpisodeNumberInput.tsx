import {definePlugin, useFormValue, type InputProps, type NumberInputProps} from 'sanity'
import {episodeNumberPlaceholder} from '../../catalog/editor-rules/episode-number.ts'

const isEpisodeNumber = (props: InputProps): props is NumberInputProps =>
  props.path.length === 1 && props.path[0] === 'episodeNumber' && props.schemaType.jsonType === 'number'

/** The episode's number input, showing in its placeholder the number the slug gives while it is empty. */
function EpisodeNumberInput(props: InputProps) {
  const slug = useFormValue(['slug', 'current'])
  if (!isEpisodeNumber(props)) return props.renderDefault(props)
  const placeholder = episodeNumberPlaceholder(slug)
  return props.renderDefault({...props, elementProps: {...props.elementProps, placeholder}})
}

/**
 * A form component of its own (the schema is also read by Node, which does not take JSX), chained
 * with the catalog's other inputs as Sanity chains every plugin's.
 */
export const episodeNumberInput = definePlugin({
  name: 'code-talks-episode-number',
  form: {components: {input: EpisodeNumberInput}},
})
