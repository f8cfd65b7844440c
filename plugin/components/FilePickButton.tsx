import {Button} from '@sanity/ui'
import {useId, type ChangeEvent} from 'react'

/**
 * A button that opens the browser's file picker and hands over the one file chosen. The input is
 * emptied each time, so choosing the same file again (after fixing it) reads it again.
 */
export function FilePickButton(props: {
  text: string
  accept: string
  disabled?: boolean | undefined
  testId: string
  onFile: (file: File) => void
}) {
  const inputId = useId()
  const picked = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0]
    event.currentTarget.value = ''
    if (file) props.onFile(file)
  }
  return (
    <>
      <input id={inputId} type="file" accept={props.accept} hidden data-testid={props.testId} onChange={picked} />
      <Button
        mode="ghost"
        text={props.text}
        disabled={props.disabled}
        onClick={() => document.getElementById(inputId)?.click()}
      />
    </>
  )
}
