import {Button, Card, Flex, Heading, Select, Stack, Text, TextArea} from '@sanity/ui'
import {useEffect, useRef, useState, type ChangeEvent} from 'react'
import {isArrayOfObjectsInputProps, set, useClient, useFormValue, type ArrayOfObjectsInputProps} from 'sanity'
import {z} from 'zod'
import {episodeFieldPlugin} from './EpisodeFieldInput.tsx'
import {newArrayKey} from '../lib/array-key.ts'
import {FilePickButton} from './FilePickButton.tsx'
import {PODCAST_SETTINGS_ID} from '../../schemas/podcast-settings.ts'
import {STUDIO_API_VERSION} from '../../schemas/fields.ts'
import {transcriptFileTooLarge} from '../../catalog/editor-rules/transcript.ts'
import {
  matchSpeakers,
  studioTranscript,
  transcriptFromText,
  type CandidateVoice,
  type ImportedCue,
} from '../lib/transcript-import.ts'

/** Gives the episode's `transcript` field its import. */
export const episodeTranscriptPlugin = episodeFieldPlugin({
  name: 'code-talks-episode-transcript',
  field: 'transcript',
  accepts: isArrayOfObjectsInputProps,
  input: TranscriptInput,
})

// A select's value for "keep the name as the file gives it": a colon is in no document id.
const KEEP_NAME = ':keep-name'
/** How many of a refused file's errors are listed; the rest are counted. */
const ERRORS_SHOWN = 5

type Imported = {format: 'vtt' | 'srt'; cues: ImportedCue[]; speakers: string[]}

/**
 * The transcript's cues as the default list, with an import above it: a WebVTT or SubRip file (or
 * pasted text) is read in the browser, its speakers are matched to the episode's guests and the
 * podcast's hosts by name, and the editor decides about each speaker no voice matched (a voice, or
 * the name as it is) before the import replaces the whole list. A bad file is refused in Hebrew,
 * naming its lines.
 */
function TranscriptInput(props: ArrayOfObjectsInputProps) {
  const {onChange, readOnly} = props
  const duration = useFormValue(['duration'])
  const voices = useCandidateVoices(guestIdsOf(useFormValue(['guests'])))
  const [imported, setImported] = useState<Imported>()
  const [errors, setErrors] = useState<string[]>()
  // The editor's own choice per speaker: a voice id or KEEP_NAME; a name matched by itself needs none.
  const [choices, setChoices] = useState<Record<string, string>>({})
  const [pasting, setPasting] = useState(false)
  const [pasted, setPasted] = useState('')
  const [reading, setReading] = useState(false)
  const [replaced, setReplaced] = useState<number>()
  // Only the latest reading counts: a file picked while another is parsed replaces it.
  const readingRef = useRef(0)

  const read = async (text: string) => {
    const reading = (readingRef.current += 1)
    setReading(true)
    setReplaced(undefined)
    const result = await transcriptFromText(text, duration)
    if (reading !== readingRef.current) return
    setReading(false)
    setChoices({})
    setErrors(result.ok ? undefined : result.errors)
    setImported(result.ok ? result : undefined)
  }

  const readFile = async (file: File) => {
    // Refused by its size before a byte of it is read.
    const tooLarge = transcriptFileTooLarge(file.size)
    if (tooLarge) {
      setImported(undefined)
      setErrors([tooLarge])
      return
    }
    await read(await file.text())
  }

  const matches = imported ? matchSpeakers(imported.speakers, voices) : []
  const choiceOf = (name: string, voiceId: string | undefined) => choices[name] ?? voiceId ?? ''
  const undecided = matches.filter((match) => choiceOf(match.name, match.voiceId) === '').length

  const replace = () => {
    if (!imported || undecided > 0) return
    const voiceOf = new Map(
      matches.flatMap((match): [string, string][] => {
        const choice = choiceOf(match.name, match.voiceId)
        return choice === KEEP_NAME ? [] : [[match.name, choice]]
      }),
    )
    onChange(set(studioTranscript(imported.cues, voiceOf, newArrayKey)))
    setReplaced(imported.cues.length)
    setImported(undefined)
    setPasted('')
    setPasting(false)
  }

  const existing = Array.isArray(props.value) ? props.value.length : 0

  return (
    <Stack gap={3}>
      <Card dir="rtl" padding={3} radius={2} border data-testid="transcript-import">
        <Stack gap={3}>
          <Heading as="h3" size={0}>
            ייבוא תמלול
          </Heading>
          <Text size={1} muted>
            קובץ WebVTT או SubRip, או טקסט מודבק. ב-WebVTT הדובר של כל כתובית נלקח מתגית v שלה, והשמות מותאמים לאורחי
            הפרק ולמגישי התוכנית. הייבוא מחליף את כל התמלול שלמטה.
          </Text>
          <Flex gap={2} wrap="wrap">
            <FilePickButton
              text="בחירת קובץ"
              accept=".vtt,.srt,text/vtt,application/x-subrip,application/srt"
              disabled={readOnly}
              testId="transcript-import-file"
              onFile={(file) => void readFile(file)}
            />
            <Button
              mode={pasting ? 'default' : 'ghost'}
              text="הדבקה"
              disabled={readOnly}
              selected={pasting}
              onClick={() => setPasting(!pasting)}
            />
          </Flex>
          {pasting && (
            <Stack gap={2}>
              <TextArea
                dir="auto"
                rows={6}
                value={pasted}
                placeholder={'WEBVTT\n\n00:00:00.000 --> 00:00:04.000\n<v שם הדובר>מה שנאמר'}
                data-testid="transcript-import-paste"
                onChange={(event) => setPasted(event.currentTarget.value)}
              />
              <Button
                mode="ghost"
                text="קריאת הטקסט"
                disabled={readOnly || pasted.trim() === ''}
                onClick={() => void read(pasted)}
              />
            </Stack>
          )}
          {reading && <Text size={1}>קורא את התמלול…</Text>}
          {errors && (
            <Card padding={3} radius={2} tone="caution" role="alert" data-testid="transcript-import-error">
              <Stack gap={2}>
                <Text size={1} weight="semibold">
                  לא ניתן לייבא את התמלול:
                </Text>
                {errors.slice(0, ERRORS_SHOWN).map((error) => (
                  <Text key={error} size={1}>
                    {error}
                  </Text>
                ))}
                {errors.length > ERRORS_SHOWN && <Text size={1}>ועוד {errors.length - ERRORS_SHOWN} בעיות.</Text>}
              </Stack>
            </Card>
          )}
          {imported && (
            <Stack gap={3}>
              <Text size={1} data-testid="transcript-import-summary">
                {summaryOf(imported)}
                {existing > 0 && ` התמלול הקיים (${existing.toLocaleString('he-IL')} שורות) יוחלף.`}
              </Text>
              {matches.map((match, index) => (
                <SpeakerRow
                  key={match.name}
                  number={index + 1}
                  name={match.name}
                  matched={voices.find((voice) => voice._id === match.voiceId)}
                  voices={voices}
                  choice={choiceOf(match.name, match.voiceId)}
                  readOnly={readOnly}
                  onChoose={(choice) => setChoices({...choices, [match.name]: choice})}
                />
              ))}
              {undecided > 0 && (
                <Text size={1} muted>
                  בחרו קול לכל דובר שלא נמצא, או השאירו את שמו כפי שהוא.
                </Text>
              )}
              <Flex gap={2}>
                <Button tone="primary" text="החלפת התמלול" disabled={readOnly || undecided > 0} onClick={replace} />
                <Button mode="ghost" text="ביטול" onClick={() => setImported(undefined)} />
              </Flex>
            </Stack>
          )}
          {replaced !== undefined && (
            <Text size={1} muted data-testid="transcript-import-done">
              התמלול הוחלף: {replaced.toLocaleString('he-IL')} כתוביות.
            </Text>
          )}
        </Stack>
      </Card>
      {props.renderDefault(props)}
    </Stack>
  )
}

/** What was read, the file's format last: a Latin word before a number would take the number into its run. */
function summaryOf({format, cues, speakers}: Imported): string {
  const said =
    speakers.length === 0 ? 'בלי דוברים' : speakers.length === 1 ? 'ודובר אחד' : `ו-${speakers.length} דוברים`
  return `${cues.length.toLocaleString('he-IL')} כתוביות ${said}, מקובץ ${format === 'vtt' ? 'WebVTT' : 'SubRip'}.`
}

/** One speaker of the file: the voice it was matched to, or the editor's choice. */
function SpeakerRow(props: {
  number: number
  name: string
  matched: CandidateVoice | undefined
  voices: readonly CandidateVoice[]
  choice: string
  readOnly: boolean | undefined
  onChoose: (choice: string) => void
}) {
  const {name, matched, voices, choice} = props
  return (
    <Card
      padding={2}
      radius={2}
      tone={choice === '' ? 'caution' : 'default'}
      data-testid={`transcript-speaker-${props.number}`}
    >
      <Flex align="center" gap={3} wrap="wrap">
        <Text size={1}>
          <bdi>{name}</bdi>: {matched ? 'נמצא קול בשם הזה.' : 'לא נמצא קול בשם הזה.'}
        </Text>
        <Select
          fontSize={1}
          padding={2}
          value={choice}
          disabled={props.readOnly}
          aria-label={`הדובר ${name}`}
          onChange={(event: ChangeEvent<HTMLSelectElement>) => props.onChoose(event.currentTarget.value)}
        >
          <option value="" disabled>
            בחרו קול…
          </option>
          <option value={KEEP_NAME}>להשאיר את השם „{name}" כפי שהוא</option>
          {voices.map((voice) => (
            <option key={voice._id} value={voice._id}>
              {voice.name}
            </option>
          ))}
        </Select>
      </Flex>
    </Card>
  )
}

const referencesSchema = z.array(z.object({_ref: z.string()})).catch([])
const guestIdsOf = (guests: unknown) => referencesSchema.parse(guests ?? []).map((guest) => guest._ref)
const voicesSchema = z.array(z.object({_id: z.string(), name: z.string()}))

// Published voices only: a speaker is a reference to a published voice, as the guests and hosts are.
const CANDIDATES_QUERY = `*[_type == "voice" && !(_id in path("drafts.**"))
  && (_id in $guestIds || _id in *[_id == $settingsId][0].hosts[]._ref)]{_id, name}`

/** The voices an episode's speaker may be: its guests (first, in their order), then the podcast's hosts. */
function useCandidateVoices(guestIds: string[]): CandidateVoice[] {
  const client = useClient({apiVersion: STUDIO_API_VERSION})
  const [voices, setVoices] = useState<CandidateVoice[]>([])
  const key = guestIds.join(' ')
  useEffect(() => {
    let current = true
    const ids = key === '' ? [] : key.split(' ')
    client
      .fetch(CANDIDATES_QUERY, {guestIds: ids, settingsId: PODCAST_SETTINGS_ID})
      .then((result: unknown) => {
        const found = voicesSchema.safeParse(result).data ?? []
        const rank = (voice: CandidateVoice) => (ids.includes(voice._id) ? ids.indexOf(voice._id) : ids.length)
        if (current) setVoices(found.toSorted((one, other) => rank(one) - rank(other)))
      })
      .catch(() => undefined)
    return () => {
      current = false
    }
  }, [client, key])
  return voices
}
