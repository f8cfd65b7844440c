import {Button, Card, Stack, Text} from '@sanity/ui'
import {useId, useState, type ChangeEvent} from 'react'
import {set, type ArrayOfObjectsInputProps} from 'sanity'
import {chaptersFromJson, CHAPTERS_FILE_MAX_BYTES} from '../lib/chapters-import.ts'
import {newArrayKey} from '../lib/array-key.ts'

/**
 * The chapters list with an import beside it: a Podcasting 2.0 chapters JSON file, read in the
 * browser, replaces the list (the validation then says what to fix), or a Hebrew error says why not.
 */
export function ChaptersInput(props: ArrayOfObjectsInputProps) {
  const {onChange, readOnly} = props
  const inputId = useId()
  const [error, setError] = useState<string>()

  const importFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0]
    event.currentTarget.value = ''
    if (!file) return
    if (file.size > CHAPTERS_FILE_MAX_BYTES) {
      setError('הקובץ גדול מדי לקובץ מקטעים (יותר מ-1MB).')
      return
    }
    const imported = chaptersFromJson(await file.text(), newArrayKey)
    setError(imported.ok ? undefined : imported.message)
    if (imported.ok) onChange(set(imported.chapters))
  }

  return (
    <Stack gap={3}>
      {props.renderDefault(props)}
      <input
        id={inputId}
        type="file"
        accept=".json,application/json"
        hidden
        data-testid="chapters-import-file"
        onChange={(event) => void importFile(event)}
      />
      <Button
        mode="ghost"
        text="ייבוא מקטעים מקובץ JSON (Podcasting 2.0)"
        disabled={readOnly}
        onClick={() => document.getElementById(inputId)?.click()}
      />
      {error && (
        <Card padding={3} radius={2} tone="critical" role="alert">
          <Text size={1}>{error}</Text>
        </Card>
      )}
    </Stack>
  )
}
