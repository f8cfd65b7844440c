import {readFile} from 'node:fs/promises'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET} from './server.ts'

/** The shipped sample dataset, parsed as the embedded source parses it. */
export const sampleDocuments = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

const published = (type: string) =>
  sampleDocuments.filter((document) => document._type === type && !document._id.startsWith('drafts.')).length

/** Published documents per collection in the sample: what the API serves when every one passes the contract. */
export const sampleCounts = {episodes: published('episode'), meetups: published('meetup'), voices: published('voice')}
