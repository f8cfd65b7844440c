// The collection a Sanity document type is served in, as the Studio and webhooks ask for it.
import {describe, expect, it} from 'vitest'
import {collectionOfDocumentType} from '../../../catalog/v1/links.ts'

describe('collectionOfDocumentType', () => {
  it('names the collection of each served type, and none for any other, prototype names included', () => {
    expect(['episode', 'meetup', 'voice'].map(collectionOfDocumentType)).toEqual(['episodes', 'meetups', 'voices'])
    expect(['podcastSettings', 'constructor', '__proto__'].map(collectionOfDocumentType)).toEqual([
      undefined,
      undefined,
      undefined,
    ])
  })
})
