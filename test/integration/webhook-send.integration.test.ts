// Integration: `npm run webhook:send` and the openssl line in docs/content-and-webhooks.md, each
// run as its own process (node, bash, openssl, curl) against the real app on a loopback port with
// SANITY_WEBHOOK_SECRET set, over an in-memory copy of the sample dataset.
import {execFile} from 'node:child_process'
import {readFile} from 'node:fs/promises'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../../support/eventually.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const run = promisify(execFile)
const SECRET = 'a-webhook-secret-of-some-length'
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
const episodes = sample.filter((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
let documents: SanityDocument[] = sample
let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    source: createEmbeddedSource('in-memory sample', async () => documents),
    environment: {SANITY_WEBHOOK_SECRET: SECRET},
  })
})
afterAll(() => server.close())

/** Edits an episode's title in the source, as an editor's publish would. */
function retitle(id: string, title: string) {
  documents = documents.map((document) =>
    document._id === id ? {...document, title, _updatedAt: new Date().toISOString()} : document,
  )
}

async function titleOf(id: string): Promise<unknown> {
  const slug = JSON.stringify(episodes.find((document) => document._id === id)?.slug).match(/"current":"([^"]+)"/)?.[1]
  const {data} = (await (await fetch(`${server.baseUrl}/api/v1/episodes/${slug}.json`)).json()) as {
    data: {title: string}
  }
  return data.title
}

/** The command `npm run webhook:send` runs, from package.json. */
async function webhookSend(args: string[], environment: Record<string, string>) {
  const scripts = (JSON.parse(await readFile('package.json', 'utf8')) as {scripts: Record<string, string>}).scripts
  const [command, ...scriptArgs] = (scripts['webhook:send'] ?? '').split(' ')
  expect(command).toBe('node')
  return run(process.execPath, [...scriptArgs, ...args], {
    env: {PATH: process.env.PATH, ...environment},
    timeout: 30_000,
  })
}

/** The shell block of docs/content-and-webhooks.md that signs with openssl. */
async function opensslBlock(): Promise<string> {
  const doc = await readFile('docs/content-and-webhooks.md', 'utf8')
  const block = [...doc.matchAll(/^```sh\n([\s\S]*?)^```/gm)]
    .map(([, text = '']) => text)
    .find((text) => text.includes('openssl dgst'))
  if (!block) throw new Error('no openssl block in docs/content-and-webhooks.md')
  return block
}

describe('npm run webhook:send', () => {
  it('signs a delivery the server accepts, and the document is rebuilt', async () => {
    const id = episodes[0]?._id ?? ''
    retitle(id, 'פרק ששודר מחדש')
    const {stdout} = await webhookSend([id, '--type', 'episode', '--url', `${server.baseUrl}/webhooks/sanity`], {
      SANITY_WEBHOOK_SECRET: SECRET,
    })
    expect(stdout).toContain('→ 202 {"status":"accepted","rebuild":"document"}')
    await eventually(async () => expect(await titleOf(id)).toBe('פרק ששודר מחדש'))
    expect(server.store.status().lastBuild).toMatchObject({kind: 'documents', ok: true, documents: [id]})
  })

  it('fails with a message, and exit code 1, when the server refuses the signature', async () => {
    const refused = webhookSend(
      [episodes[1]?._id ?? '', '--type', 'episode', '--url', `${server.baseUrl}/webhooks/sanity`],
      {SANITY_WEBHOOK_SECRET: 'not-the-server-secret-at-all'},
    )
    await expect(refused).rejects.toMatchObject({code: 1, stdout: expect.stringContaining('→ 400')})
  })

  it('computes the same signature as the documented openssl line, for the same time and body', async () => {
    const {stdout} = await webhookSend(
      [episodes[2]?._id ?? '', '--type', 'episode', '--url', `${server.baseUrl}/webhooks/sanity`],
      {SANITY_WEBHOOK_SECRET: SECRET},
    )
    const [, header = '', body = ''] = /^sanity-webhook-signature: (\S+)\n(.*)$/m.exec(stdout) ?? []
    const t = /^t=(\d+),/.exec(header)?.[1] ?? ''
    const sigLine = (await opensslBlock()).split('\n').find((line) => line.startsWith('sig=')) ?? ''
    const {stdout: fromOpenssl} = await run('bash', ['-c', `${sigLine}\nprintf '%s' "$sig"`], {
      env: {PATH: process.env.PATH, SANITY_WEBHOOK_SECRET: SECRET, t, body},
    })
    expect(fromOpenssl).toBe(header)
  })

  it('the documented openssl and curl block is accepted by the server as written', async () => {
    const block = await opensslBlock()
    const [, id = ''] = /"_id":"([^"]+)"/.exec(block) ?? []
    expect(episodes.map((document) => document._id)).toContain(id)
    retitle(id, 'פרק שנחתם ב־openssl')
    const script = block.replace('http://localhost:3000', server.baseUrl)
    const {stdout} = await run('bash', ['-e', '-c', script], {
      env: {PATH: process.env.PATH, SANITY_WEBHOOK_SECRET: SECRET},
      timeout: 30_000,
    })
    expect(JSON.parse(stdout)).toEqual({status: 'accepted', rebuild: 'document'})
    await eventually(async () => expect(await titleOf(id)).toBe('פרק שנחתם ב־openssl'))
  })
})
