// The settings and GROQ evaluation the catalog mapping tests share: documents in memory, read with
// the server's own queries through the embedded source.
import {createLinks} from '../../catalog/v1/links.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../../catalog/queries.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})
export const settings = {links, feedUrl: 'https://site.test/feed.xml'}

/** One GROQ query over these documents, as the embedded source answers it. */
export const fetchFrom = (documents: SanityDocument[], query: string, params?: Record<string, unknown>) =>
  createEmbeddedSource('inline', async () => documents).fetch(query, params)

/** The podcast settings singleton as a published document, valid as it stands (its row is `settingsRow()`'s). */
export const settingsDocument: SanityDocument = {
  _id: 'podcastSettings',
  _type: 'podcastSettings',
  _rev: 'rev',
  _createdAt: '2026-01-01T00:00:00Z',
  _updatedAt: '2026-01-01T00:00:00Z',
  title: 'Code Talks',
  description: 'פודקאסט',
  author: 'Example',
  owner: {name: 'Owner', email: 'owner@example.com'},
  artwork: {_type: 'image', asset: {_type: 'reference', _ref: 'image-abc123-1400x1400-png'}},
  categories: ['Technology'],
  copyright: '© Example',
}

/** CATALOG_QUERY's result over these documents and valid settings: without settings a catalog reports them missing. */
export const catalogRowsOf = (documents: SanityDocument[]) => fetchFrom([settingsDocument, ...documents], CATALOG_QUERY)

/** A podcast settings row as the settings query returns it, valid as it stands. */
export const settingsRow = (fields: Record<string, unknown> = {}) => ({
  _id: 'podcastSettings',
  _updatedAt: '2026-01-01T00:00:00Z',
  title: 'Code Talks',
  description: 'פודקאסט',
  author: 'Example',
  owner_name: 'Owner',
  owner_email: 'owner@example.com',
  artwork: {asset: {_ref: 'image-abc123-1400x1400-png'}},
  categories: ['Technology'],
  copyright: '© Example',
  hosts: [],
  ...fields,
})

/** The channel tags of settings that set none of them. */
export const UNSET_CHANNEL_TAGS = {
  txts: [],
  medium: 'podcast',
  updateFrequency: null,
  podroll: [],
  newFeedUrl: null,
  block: false,
  complete: false,
  license: null,
}
