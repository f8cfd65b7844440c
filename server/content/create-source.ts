import type {Config} from '../config.ts'
import {createEmbeddedFileSource} from './embedded-source.ts'
import {createSanitySource} from './sanity-source.ts'
import type {ContentSource} from './source.ts'

export function createSource(content: Config['content']): ContentSource {
  return content.kind === 'sanity' ? createSanitySource(content) : createEmbeddedFileSource(content.datasetFile)
}
