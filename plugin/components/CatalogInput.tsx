import {useFormValue, type ArrayOfObjectsInputProps, type InputProps} from 'sanity'
import {ChaptersInput} from './ChaptersInput.tsx'
import {DirectionalInput} from './DirectionalInput.tsx'

const isChaptersList = (props: InputProps, documentType: unknown): props is ArrayOfObjectsInputProps =>
  documentType === 'episode' && props.path.length === 1 && props.path[0] === 'chapters'

/** Every input of the catalog's documents: the episode's chapters get their import, the rest their writing direction. */
export function CatalogInput(props: InputProps) {
  const documentType = useFormValue(['_type'])
  if (isChaptersList(props, documentType))
    return (
      <div dir="rtl">
        <ChaptersInput {...props} />
      </div>
    )
  return <DirectionalInput {...props} />
}
