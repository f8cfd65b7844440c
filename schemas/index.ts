import {episodeType} from './episode.ts'
import {meetupType} from './meetup.ts'
import {voiceType} from './voice.ts'

export {episodeType, meetupType, voiceType}
export const schemaTypes = [episodeType, meetupType, voiceType]
