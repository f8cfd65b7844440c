import {readFile} from 'node:fs/promises'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

/** The shipped sample dataset, parsed as the embedded source parses it. */
export const sampleDocuments = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

const published = (type: string) =>
  sampleDocuments.filter((document) => document._type === type && !document._id.startsWith('drafts.')).length

/** Published documents per collection in the sample: what the API serves when every one passes the contract. */
export const sampleCounts = {episodes: published('episode'), meetups: published('meetup'), voices: published('voice')}

/** A snapshot of the sample built as the origin builds one (or as `npm run export` does), with no socket. */
export function sampleSnapshot(options: {staticExport: boolean}): Promise<Snapshot> {
  return catalogSnapshotBuilder({
    source: createEmbeddedFileSource(SAMPLE_DATASET),
    config: loadConfig({PUBLIC_BASE_URL: 'http://api.test'}),
    clock: () => new Date(),
    staticExport: options.staticExport,
  })(undefined, {kind: 'all'})
}
