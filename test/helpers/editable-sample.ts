// A server over an in-memory copy of the sample dataset, fresh for each test, that a test edits as
// an editor would: a document replaced in the dataset, then announced by a delivery signed with
// @sanity/webhook, as Sanity sends one on publish.
import {readFile} from 'node:fs/promises'
import {afterEach, beforeEach, expect} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'
import {sendSignedWebhook} from './signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

export interface EditableSample {
  readonly server: TestServer
  /** The published episode with this slug, as the dataset holds it now. */
  episode(slug: string): SanityDocument
  /** Sets `fields` on the document with this id, as a publish would, and announces it. */
  edit(documentId: string, fields: Record<string, unknown>): Promise<void>
  /** `edit` for the episode with this slug. */
  publish(slug: string, fields: Record<string, unknown>): Promise<void>
}

/** Registers the hooks that start and stop the server around each test of the calling file. */
export function editableSample(): EditableSample {
  let documents: SanityDocument[] = []
  let server: TestServer | undefined
  beforeEach(async () => {
    documents = [...sample]
    server = await startTestServer({
      source: createEmbeddedSource('in-memory sample', async () => documents),
      environment: {SANITY_WEBHOOK_SECRET: SECRET},
    })
  })
  afterEach(() => server?.close())
  const running = () => {
    if (!server) throw new Error('the sample server runs only inside a test')
    return server
  }
  const episode = (slug: string) => {
    const found = documents.find(
      (document) => document._type === 'episode' && JSON.stringify(document['slug']).includes(`"${slug}"`),
    )
    if (!found) throw new Error(`no episode ${slug} in the sample`)
    return found
  }
  const edit = async (documentId: string, fields: Record<string, unknown>) => {
    const before = documents.find((document) => document._id === documentId)
    if (!before) throw new Error(`no document ${documentId} in the sample`)
    const edited = {...before, ...fields, _updatedAt: new Date().toISOString()}
    documents = documents.map((document) => (document === before ? edited : document))
    const delivery = {_id: edited._id, _type: edited._type}
    expect((await sendSignedWebhook(running().baseUrl, SECRET, delivery)).status).toBe(202)
  }
  return {
    get server() {
      return running()
    },
    episode,
    edit,
    publish: (slug, fields) => edit(episode(slug)._id, fields),
  }
}
