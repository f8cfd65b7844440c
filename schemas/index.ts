import {episodeType} from './episode.ts'
import {meetupType} from './meetup.ts'
import {podcastSettingsType} from './podcast-settings.ts'
import {voiceType} from './voice.ts'

export const schemaTypes = [episodeType, meetupType, voiceType, podcastSettingsType]
