import {Card, Stack, Text} from '@sanity/ui'
import {useState} from 'react'
import {set, type ArrayOfObjectsInputProps} from 'sanity'
import {chaptersFromJson, CHAPTERS_FILE_MAX_BYTES} from '../lib/chapters-import.ts'
import {newArrayKey} from '../lib/array-key.ts'
import {FilePickButton} from './FilePickButton.tsx'

/**
 * The chapters list with an import beside it: a Podcasting 2.0 chapters JSON file, read in the
 * browser, replaces the list (the validation then says what to fix), or a Hebrew error says why not.
 */
export function ChaptersInput(props: ArrayOfObjectsInputProps) {
  const {onChange, readOnly} = props
  const [error, setError] = useState<string>()

  const importFile = async (file: File) => {
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
      <FilePickButton
        text="ייבוא מקטעים מקובץ JSON (Podcasting 2.0)"
        accept=".json,application/json"
        disabled={readOnly}
        testId="chapters-import-file"
        onFile={(file) => void importFile(file)}
      />
      {error && (
        <Card padding={3} radius={2} tone="critical" role="alert">
          <Text size={1}>{error}</Text>
        </Card>
      )}
    </Stack>
  )
}
