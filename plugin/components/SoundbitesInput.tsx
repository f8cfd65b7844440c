import {Button, Card, Flex, Select, Stack, Text} from '@sanity/ui'
import {useMemo, useState, type ChangeEvent} from 'react'
import {insert, isArrayOfObjectsInputProps, setIfMissing, useFormValue, type ArrayOfObjectsInputProps} from 'sanity'
import {formatSoundbiteTime} from '../../catalog/v1/soundbites.ts'
import {episodeFieldPlugin} from './EpisodeFieldInput.tsx'
import {newArrayKey} from '../lib/array-key.ts'
import {cueLabel, soundbiteFromStretch, stretchCuesOf, type Stretch, type StretchCue} from '../lib/soundbite-stretch.ts'

/**
 * Gives the episode's `soundbites` field a way to take a soundbite from a stretch of the transcript.
 * It sits on the soundbites field, not in the transcript's import: an editor adds a soundbite where
 * the soundbites are listed and sees it join them, and the field's own `onChange` adds it (the
 * transcript is only read).
 */
export const episodeSoundbitesPlugin = episodeFieldPlugin({
  name: 'code-talks-episode-soundbites',
  field: 'soundbites',
  accepts: isArrayOfObjectsInputProps,
  input: SoundbitesInput,
})

const seconds = (value: number) => `${value.toLocaleString('he-IL', {maximumFractionDigits: 3})} שניות`

/** The stretch's start and length, as the editor reads it before adding it. */
function stretchSummary(stretch: Stretch): string | undefined {
  if (stretch.start === undefined || stretch.duration === undefined) return undefined
  return `מתחיל ב-\u2066${formatSoundbiteTime(stretch.start)}\u2069, אורכו ${seconds(stretch.duration)}.`
}

/**
 * The soundbites as the default list, with "add a soundbite from the transcript" above it: the
 * editor picks the stretch's first and last cue, sees where it starts and how long it lasts, and
 * adds it; a stretch the shared rule refuses (under 15 s, over 120 s, past the episode's end) is
 * refused here, in its Hebrew words, and cannot be added.
 */
function SoundbitesInput(props: ArrayOfObjectsInputProps) {
  const {onChange, readOnly} = props
  const transcript = useFormValue(['transcript'])
  const duration = useFormValue(['duration'])
  const cues = useMemo(() => stretchCuesOf(transcript), [transcript])
  const [open, setOpen] = useState(false)
  const [firstKey, setFirstKey] = useState('')
  const [lastKey, setLastKey] = useState('')
  const [added, setAdded] = useState<string>()
  const existing = Array.isArray(props.value) ? props.value.length : 0
  const stretch =
    firstKey === '' || lastKey === ''
      ? undefined
      : soundbiteFromStretch(cues, firstKey, lastKey, {existing, episodeDuration: duration, newKey: newArrayKey})
  const summary = stretch && stretchSummary(stretch)

  const add = () => {
    if (!stretch?.ok || readOnly) return
    onChange([setIfMissing([]), insert([stretch.soundbite], 'after', [-1])])
    setAdded(`נוסף קטע נבחר: ${summary ?? ''}`)
    setFirstKey('')
    setLastKey('')
  }
  const choose = (set: (key: string) => void) => (event: ChangeEvent<HTMLSelectElement>) => {
    set(event.currentTarget.value)
    setAdded(undefined)
  }

  return (
    <Stack gap={3}>
      <Card dir="rtl" padding={3} radius={2} border data-testid="soundbite-from-transcript">
        <Stack gap={3}>
          <Flex>
            <Button
              mode={open ? 'default' : 'ghost'}
              text="הוספת קטע שמע מהתמלול"
              selected={open}
              disabled={readOnly || cues.length === 0}
              onClick={() => setOpen(!open)}
            />
          </Flex>
          {cues.length === 0 && (
            <Text size={1} muted>
              כדי לבחור קטע מתוך התמלול, ייבאו תמלול בשדה &quot;תמלול&quot; שלמטה.
            </Text>
          )}
          {/* The options are built only when the panel is open: a transcript may hold thousands of cues. */}
          {open && cues.length > 0 && (
            <Stack gap={3}>
              <Text size={1} muted>
                הקטע מתחיל בתחילת הכתובית הראשונה ונגמר בסוף האחרונה; הכותרת היא מה שנאמר בו.
              </Text>
              <Flex gap={2} wrap="wrap" align="center">
                <CueSelect label="הכתובית הראשונה" cues={cues} value={firstKey} onChange={choose(setFirstKey)} />
                <CueSelect label="הכתובית האחרונה" cues={cues} value={lastKey} onChange={choose(setLastKey)} />
              </Flex>
              {summary && (
                <Text size={1} data-testid="soundbite-stretch">
                  {summary}
                </Text>
              )}
              {stretch && !stretch.ok && (
                <Card padding={3} radius={2} tone="caution" role="alert" data-testid="soundbite-stretch-error">
                  <Text size={1}>{stretch.message}</Text>
                </Card>
              )}
              <Flex>
                <Button tone="primary" text="הוספת הקטע" disabled={readOnly || !stretch?.ok} onClick={add} />
              </Flex>
            </Stack>
          )}
          {added && (
            <Text size={1} muted data-testid="soundbite-added">
              {added}
            </Text>
          )}
        </Stack>
      </Card>
      {props.renderDefault(props)}
    </Stack>
  )
}

/** A select of the transcript's cues, each by its start time and the start of its text. */
function CueSelect(props: {
  label: string
  cues: readonly StretchCue[]
  value: string
  onChange: (event: ChangeEvent<HTMLSelectElement>) => void
}) {
  return (
    <Stack gap={2}>
      <Text size={1} weight="semibold">
        {props.label}
      </Text>
      <Select fontSize={1} padding={2} value={props.value} aria-label={props.label} onChange={props.onChange}>
        <option value="" disabled>
          בחרו כתובית…
        </option>
        {props.cues.map((cue) => (
          <option key={cue.key} value={cue.key}>
            {cueLabel(cue)}
          </option>
        ))}
      </Select>
    </Stack>
  )
}
