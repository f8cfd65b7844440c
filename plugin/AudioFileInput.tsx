import {Card, Stack, Text} from '@sanity/ui'
import {useEffect, useRef, useState, type ChangeEvent, type DragEvent} from 'react'
import {
  definePlugin,
  getPublishedId,
  isObjectInputProps,
  set,
  setIfMissing,
  unset,
  useClient,
  useDocumentOperation,
  useFormValue,
  type InputProps,
  type ObjectInputProps,
} from 'sanity'
import {z} from 'zod'
import {STUDIO_API_VERSION} from '../schemas/fields.ts'
import {formatDuration} from './audio-checks.ts'
import {readAudioFacts, type AudioFacts} from './audio-metadata.ts'

const audioFileValueSchema = z.object({
  asset: z.object({_ref: z.string()}).optional(),
  _upload: z.unknown().optional(),
  durationSeconds: z.number().optional(),
})
const assetSchema = z.object({size: z.number(), mimeType: z.string()}).nullable()

type Reading = {state: 'reading'} | {state: 'unreadable'} | {state: 'read'; facts: AudioFacts; assetBefore?: string}

/** Gives the episode's `audioFile` field its input (schemas cannot import JSX: the server reads them). */
export const episodeAudioPlugin = definePlugin({
  name: 'code-talks-episode-audio',
  form: {components: {input: EpisodeAudioInput}},
})

function EpisodeAudioInput(props: InputProps) {
  const isEpisode = useFormValue(['_type']) === 'episode'
  if (isEpisode && isObjectInputProps(props) && props.path.length === 1 && props.path[0] === 'audioFile')
    return <AudioFileInput {...props} />
  return props.renderDefault(props)
}

/**
 * The episode's audio upload, which describes itself: the default file input, plus the duration read
 * from the picked or dropped file in the browser (music-metadata). Once the upload has become an
 * asset, the duration is kept on the file (`durationSeconds`, for validation) and fills the episode's
 * `duration`; the byte length and type shown are the asset's, as the feed encloses them.
 */
function AudioFileInput(props: ObjectInputProps) {
  const {onChange} = props
  const value = audioFileValueSchema.safeParse(props.value ?? {}).data ?? {}
  const assetRef = value.asset?._ref
  const documentId = useFormValue(['_id'])
  const {patch} = useDocumentOperation(getPublishedId(typeof documentId === 'string' ? documentId : ''), 'episode')
  const [reading, setReading] = useState<Reading>()
  const asset = useAsset(assetRef)
  const latestRef = useRef(assetRef)
  latestRef.current = assetRef

  const readFile = (file: File | undefined) => {
    if (!file) return
    const assetBefore = latestRef.current
    setReading({state: 'reading'})
    readAudioFacts(file).then(
      (facts) => setReading({state: 'read', facts, assetBefore}),
      () => setReading({state: 'unreadable'}),
    )
  }

  // Applied once the upload this file started has become an asset (a new reference, no upload pending).
  const measured = reading?.state === 'read' ? reading.facts.durationSeconds : undefined
  const uploaded = reading?.state === 'read' && assetRef !== undefined && assetRef !== reading.assetBefore
  useEffect(() => {
    if (!uploaded || value._upload !== undefined || measured === undefined) return
    if (value.durationSeconds === measured) return
    onChange([setIfMissing({_type: 'file'}), set(measured, ['durationSeconds'])])
    patch.execute([{set: {duration: measured}}])
  }, [uploaded, measured, value._upload, value.durationSeconds, onChange, patch])

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
  if (reading?.state === 'unreadable' || (reading?.state === 'read' && reading.facts.durationSeconds === undefined))
    return (
      <Card tone="caution" padding={2} radius={2}>
        <Text size={1}>לא הצלחנו לקרוא את משך הקובץ: הקלידו אותו בשדה "משך".</Text>
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
