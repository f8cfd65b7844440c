import type {ComponentType} from 'react'
import {definePlugin, useFormValue, type InputProps} from 'sanity'

/**
 * A plugin giving one top-level field of the episode its own input (the audio, the transcript, the
 * soundbites): schemas cannot import JSX, since the server reads them, so the plugin attaches it.
 * `accepts` says the field's input kind (an object, an array of objects), which types the input's props.
 */
export function episodeFieldPlugin<Props extends InputProps>(options: {
  name: string
  field: string
  accepts: (props: InputProps) => props is Props
  input: ComponentType<Props>
}) {
  const {field, accepts, input: Input} = options
  function EpisodeFieldInput(props: InputProps) {
    const isEpisode = useFormValue(['_type']) === 'episode'
    if (isEpisode && accepts(props) && props.path.length === 1 && props.path[0] === field) return <Input {...props} />
    return props.renderDefault(props)
  }
  return definePlugin({name: options.name, form: {components: {input: EpisodeFieldInput}}})
}
