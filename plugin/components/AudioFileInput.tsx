import {Button, Card, Flex, Stack, Text} from '@sanity/ui'
import {useEffect, useRef, useState, type ChangeEvent, type DragEvent} from 'react'
import {
  getPublishedId,
  isObjectInputProps,
  set,
  setIfMissing,
  unset,
  useClient,
  useDocumentOperation,
  useFormValue,
  type ObjectInputProps,
} from 'sanity'
import {z} from 'zod'
import {episodeFieldPlugin} from './EpisodeFieldInput.tsx'
import {STUDIO_API_VERSION} from '../../schemas/fields.ts'
import {formatDuration} from '../../catalog/editor-rules/audio-checks.ts'
import {readAudioFacts, type AudioFacts} from '../lib/audio-metadata.ts'
import {durationChoice, replaceQuestion, unreadMessage} from '../lib/audio-reading.ts'

const audioFileValueSchema = z.object({
  asset: z.object({_ref: z.string()}).optional(),
  _upload: z.unknown().optional(),
  durationSeconds: z.number().optional(),
})
const assetSchema = z.object({size: z.number(), mimeType: z.string()}).nullable()

type Reading = {state: 'reading'} | {state: 'read'; facts: AudioFacts; assetBefore?: string}

/** Gives the episode's `audioFile` field its input. */
export const episodeAudioPlugin = episodeFieldPlugin({
  name: 'code-talks-episode-audio',
  field: 'audioFile',
  accepts: isObjectInputProps,
  input: AudioFileInput,
})

/**
 * The episode's audio upload, which describes itself: the default file input, plus the duration read
 * from the picked or dropped file in the browser (music-metadata). Once the upload has become an
 * asset, the duration is kept on the file (`durationSeconds`, for validation) and fills the episode's
 * `duration`, unless the editor typed another one there: then the input asks before replacing it.
 * Only a reading that can be trusted counts (plugin/lib/audio-reading.ts), and a reading is bounded
 * in bytes, reads and time. The byte length and type shown are the asset's, as the feed encloses them.
 */
function AudioFileInput(props: ObjectInputProps) {
  const {onChange} = props
  const value = audioFileValueSchema.safeParse(props.value ?? {}).data ?? {}
  const assetRef = value.asset?._ref
  const documentId = useFormValue(['_id'])
  const {patch} = useDocumentOperation(getPublishedId(typeof documentId === 'string' ? documentId : ''), 'episode')
  const typedDuration = useFormValue(['duration'])
  const typed = typeof typedDuration === 'number' ? typedDuration : undefined
  const [reading, setReading] = useState<Reading>()
  // A reading the editor is asked about, since it would replace the duration they typed.
  const [question, setQuestion] = useState<number>()
  const asset = useAsset(assetRef)
  const latestRef = useRef(assetRef)
  latestRef.current = assetRef
  const readingRef = useRef<AbortController>(undefined)

  const readFile = (file: File | undefined) => {
    if (!file) return
    const assetBefore = latestRef.current
    readingRef.current?.abort()
    const controller = new AbortController()
    readingRef.current = controller
    setReading({state: 'reading'})
    setQuestion(undefined)
    void readAudioFacts(file, {signal: controller.signal}).then((facts) => {
      if (!controller.signal.aborted) setReading({state: 'read', facts, assetBefore})
    })
  }
  useEffect(() => () => readingRef.current?.abort(), [])

  // Applied once the upload this file started has become an asset (a new reference, no upload pending).
  const measured = reading?.state === 'read' ? reading.facts.durationSeconds : undefined
  const uploaded = reading?.state === 'read' && assetRef !== undefined && assetRef !== reading.assetBefore
  useEffect(() => {
    if (!uploaded || value._upload !== undefined || measured === undefined) return
    if (value.durationSeconds === measured) return
    const choice = durationChoice({typed, previousReading: value.durationSeconds, reading: measured})
    onChange([setIfMissing({_type: 'file'}), set(measured, ['durationSeconds'])])
    if (choice === 'set') patch.execute([{set: {duration: measured}}])
    if (choice === 'ask') setQuestion(measured)
  }, [uploaded, measured, typed, value._upload, value.durationSeconds, onChange, patch])

  // A removed file takes its measured duration with it, so validation never compares against it.
  useEffect(() => {
    if (assetRef === undefined && value._upload === undefined && value.durationSeconds !== undefined)
      onChange(unset(['durationSeconds']))
  }, [assetRef, value._upload, value.durationSeconds, onChange])

  const onChangeCapture = (event: ChangeEvent<HTMLInputElement>) => {
    if (event.target instanceof HTMLInputElement && event.target.type === 'file') readFile(event.target.files?.[0])
  }
  const onDropCapture = (event: DragEvent<HTMLDivElement>) => readFile(event.dataTransfer.files[0])

  return (
    <Stack gap={3}>
      <div onChangeCapture={onChangeCapture} onDropCapture={onDropCapture}>
        {props.renderDefault(props)}
      </div>
      <AudioSummary
        reading={reading}
        durationSeconds={assetRef === undefined ? undefined : value.durationSeconds}
        asset={assetRef === undefined ? undefined : asset}
      />
      {question !== undefined && typed !== undefined && typed !== question && assetRef !== undefined && (
        <ReplaceDuration
          typed={typed}
          reading={question}
          onUse={() => {
            patch.execute([{set: {duration: question}}])
            setQuestion(undefined)
          }}
        />
      )}
    </Stack>
  )
}

function AudioSummary(props: {
  reading: Reading | undefined
  durationSeconds: number | undefined
  asset: {size: number; mimeType: string} | undefined
}) {
  const {reading, durationSeconds, asset} = props
  if (reading?.state === 'reading') return <Text size={1}>קורא את משך הקובץ…</Text>
  if (reading?.state === 'read' && reading.facts.durationSeconds === undefined)
    return (
      <Card tone="caution" padding={2} radius={2} dir="rtl" data-testid="audio-file-unread">
        <Text size={1}>{unreadMessage(reading.facts.unread)}</Text>
      </Card>
    )
  if (durationSeconds === undefined && asset === undefined) return null
  const parts = [
    durationSeconds === undefined ? undefined : `משך ${formatDuration(durationSeconds)}`,
    asset === undefined ? undefined : `${asset.size.toLocaleString('he-IL')} בתים`,
    asset?.mimeType,
  ].filter((part) => part !== undefined)
  return (
    <Text size={1} muted data-testid="audio-file-facts">
      מהקובץ: {parts.join(' · ')}
    </Text>
  )
}

/** Asks before the file's duration replaces the one the editor typed, right to left. */
function ReplaceDuration(props: {typed: number; reading: number; onUse: () => void}) {
  const {message, button} = replaceQuestion(props.typed, props.reading)
  return (
    <Card tone="caution" padding={2} radius={2} dir="rtl" data-testid="audio-duration-question">
      <Flex align="center" gap={3} wrap="wrap">
        <Text size={1}>{message}</Text>
        <Button mode="ghost" tone="primary" fontSize={1} padding={2} text={button} onClick={props.onUse} />
      </Flex>
    </Card>
  )
}

/** The uploaded asset's size and type, as the projection reads them for the enclosure. */
function useAsset(assetRef: string | undefined) {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const [asset, setAsset] = useState<{size: number; mimeType: string}>()
  useEffect(() => {
    setAsset(undefined)
    if (assetRef === undefined) return
    let current = true
    client
      .fetch('*[_id == $id][0]{size, mimeType}', {id: assetRef})
      .then((result: unknown) => {
        if (current) setAsset(assetSchema.safeParse(result).data ?? undefined)
      })
      .catch(() => undefined)
    return () => {
      current = false
    }
  }, [client, assetRef])
  return asset
}
