import type {DocumentRule} from 'sanity'
import {checkCharacters} from '../catalog/editor-rules/validation.ts'
import {episodeType} from './episode.ts'
import {meetupType} from './meetup.ts'
import {podcastSettingsType} from './podcast-settings.ts'
import {voiceType} from './voice.ts'

// One rule for every text field of every document type: characters no feed can carry are refused
// where they sit, whatever field (or nested field) an editor pasted them into.
const withCharacterRule = <Type extends {fields: readonly {name: string; title?: string}[]}>(type: Type) => ({
  ...type,
  validation: (rule: DocumentRule) =>
    rule.custom((document) =>
      checkCharacters(document, (name) => type.fields.find((field) => field.name === name)?.title),
    ),
})

export const schemaTypes = [episodeType, meetupType, voiceType, podcastSettingsType].map(withCharacterRule)
