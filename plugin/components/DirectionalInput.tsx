import {useFormValue, type InputProps} from 'sanity'
import {directionOf} from '../lib/direction.ts'

/** Hebrew fields are edited right-to-left, Latin ones (slugs, tags, URLs) left-to-right. */
export function DirectionalInput(props: InputProps) {
  const direction = directionOf(useFormValue(['_type']), props.path)
  if (!direction) return props.renderDefault(props)
  return <div dir={direction}>{props.renderDefault(props)}</div>
}
