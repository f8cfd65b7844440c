// Integration: `npm run edge:vcl` as its own process, then the varnishd command it prints, run
// as printed by bash (plus -F and its own -n working directory), a real Debian varnishd in front
// of the real app on loopback ports. As root, varnishd reads the VCL as the varnish group. The
// operator's pages are read through varnishd started by support/varnish.ts with the VCL
// edge:vcl writes for an --operator-acl that leaves the test's loopback client out, and for the
// default one that lets it in.
import {execFile, spawn} from 'node:child_process'
import {request} from 'node:http'
import {access, chmod, mkdtemp, readFile, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {edgeAddressWarning} from '../../server/edge/varnish-vcl.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {originHealthyBehind, startVarnish} from '../../support/varnish.ts'

const run = promisify(execFile)
const TOKEN = 'an-edge-purge-token-of-some-length'
let origin: TestServer
let directory: string

beforeAll(async () => {
  ensureDebianProgram('/usr/sbin/varnishd', ['varnish', 'varnish-modules'])
  origin = await startTestServer({environment: {SANITY_WEBHOOK_SECRET: 'a-webhook-secret-of-some-length'}})
  directory = await mkdtemp(join(tmpdir(), 'catalog-edge-vcl-'))
  // mkdtemp makes it 0700; the varnish group must be able to reach the file inside.
  await chmod(directory, 0o755)
})
afterAll(async () => {
  await origin.close()
  await rm(directory, {recursive: true, force: true})
})

async function edgeVcl(args: string[], environment: Record<string, string> = {}) {
  const scripts = (JSON.parse(await readFile('package.json', 'utf8')) as {scripts: Record<string, string>}).scripts
  expect(scripts['edge:vcl']).toBe('node server/edge-vcl.ts')
  return run(process.execPath, ['server/edge-vcl.ts', ...args], {
    env: {PATH: process.env.PATH, CDN_PURGE_TOKEN: TOKEN, ...environment},
    timeout: 30_000,
  })
}

describe('npm run edge:vcl', () => {
  it('prints a varnishd command that starts Varnish in front of the origin, as printed', async () => {
    const port = await freePort()
    const vclFile = join(directory, 'catalog.vcl')
    const {stdout} = await edgeVcl([
      '--backend',
      new URL(origin.baseUrl).host,
      '--out',
      vclFile,
      '--listen',
      `127.0.0.1:${port}`,
    ])
    const command = /^ {2}(\/\S*varnishd .*)$/m.exec(stdout)?.[1] ?? ''
    expect(command).toBe(`/usr/sbin/varnishd -a 127.0.0.1:${port} -f ${vclFile} -s malloc,1g $(cat ${vclFile}.params)`)
    expect(stdout).toMatch(/PUBLIC_BASE_URL set to the edge's public address/)
    const {mode, gid} = await stat(vclFile)
    const varnishGid = Number((await run('getent', ['group', 'varnish'])).stdout.split(':')[2])
    expect({mode: (mode & 0o777).toString(8), gid}).toEqual({mode: '640', gid: varnishGid})

    let output = ''
    const varnishd = spawn('bash', ['-c', `exec ${command} -F -n ${join(directory, 'work')}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    varnishd.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    varnishd.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<void>((resolve) => varnishd.once('exit', () => resolve()))
    try {
      await eventually(async () => {
        if (varnishd.exitCode !== null) throw new Error(`varnishd exited with ${varnishd.exitCode}:\n${output}`)
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/index.json`)
        expect({status: response.status, cache: response.headers.get('x-cache')}).toMatchObject({
          status: 200,
          cache: expect.stringMatching(/^(HIT|MISS)$/),
        })
      }, 20_000)
    } finally {
      varnishd.kill('SIGTERM')
      await exited
    }
  }, 60_000)

  it('warns when the origin purges a CDN but PUBLIC_BASE_URL names loopback', async () => {
    const {stderr} = await edgeVcl(['--backend', '127.0.0.1:3000', '--out', join(directory, 'warned.vcl')], {
      CDN_PURGE: 'varnish',
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    })
    expect(stderr).toMatch(
      /^warning: CDN_PURGE is varnish but PUBLIC_BASE_URL is http:\/\/127\.0\.0\.1:3000, a loopback address/m,
    )
    expect(edgeAddressWarning('http://localhost:3000', 'fastly')).toMatch(/loopback/)
    expect(edgeAddressWarning(undefined, 'varnish')).toMatch(/not set/)
    expect(edgeAddressWarning('https://api.example.org', 'varnish')).toBeUndefined()
    expect(edgeAddressWarning('http://localhost:3000', undefined)).toBeUndefined()
  })

  it('creates the directory --out names, as mkdir -p would', async () => {
    const vclFile = join(directory, 'fresh-edge', 'nested', 'catalog.vcl')
    const {stdout} = await edgeVcl(['--backend', '127.0.0.1:3000', '--out', vclFile])
    expect(stdout).toContain(`wrote ${vclFile} `)
    await access(vclFile)
    await access(`${vclFile}.params`)
  })

  it.each([
    ['10.0.0.1/8', '10.0.0.1/8 has bits set past its /8 prefix; did you mean 10.0.0.0/8?'],
    ['10.0.0.0/8,admin.example.org', 'not an IP address or CIDR range: "admin.example.org"'],
  ])('refuses --operator-acl %s with exit 1, naming the mistake, and writes nothing', async (acl, mistake) => {
    const vclFile = join(directory, `refused-${acl.replaceAll(/\W/g, '-')}`, 'catalog.vcl')
    const refusal = await edgeVcl(['--backend', '127.0.0.1:3000', '--operator-acl', acl, '--out', vclFile]).then(
      () => ({code: 0, stderr: ''}),
      (error: unknown) => error,
    )
    expect(refusal).toMatchObject({code: 1, stderr: `edge:vcl: --operator-acl: ${mistake}\n`})
    await expect(access(vclFile)).rejects.toThrow(/ENOENT/)
  })
})

interface Answer {
  status: number
  type: string | undefined
  cacheControl: string | undefined
  /** Set by the origin on everything it answers; Varnish's own answers have none. */
  requestId: string | undefined
  body: string
}

/** One request with `target` sent as is: absolute-form, a fragment, a case Node's URL parser would change. */
function send(base: string, target: string, method = 'GET'): Promise<Answer> {
  const {hostname, port} = new URL(base)
  return new Promise((resolve, reject) => {
    const outgoing = request({host: hostname, port, path: target, method, agent: false}, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: response.headers['content-type'],
          cacheControl: response.headers['cache-control'],
          requestId: [response.headers['x-request-id']].flat()[0],
          body,
        }),
      )
    })
    outgoing.on('error', reject)
    outgoing.end(method === 'POST' ? '{}' : undefined)
  })
}

/** Targets the origin itself routes to /status or /metrics (checked below, so the list stays true). */
const ROUTED = [
  '/status',
  '/metrics',
  '/metrics?x',
  '/status?',
  '/status#x',
  'HTTP://x/metrics',
  'https://x/status',
  'ftp://x/metrics',
]
/** Spellings the origin does not route there, which the VCL refuses as well (any case, extra slashes). */
const LOOKALIKES = ['/STATUS', '//metrics', '/status/', '/Metrics?x']

describe("the operator's pages through Varnish", () => {
  it('answer 404 to a client outside --operator-acl, however the path is spelt, and the webhook still reaches the origin', async () => {
    for (const target of ROUTED)
      expect({target, status: (await send(origin.baseUrl, target)).status}).toEqual({target, status: 200})
    const outsider = await startVarnish({
      backends: [new URL(origin.baseUrl).host],
      token: TOKEN,
      vclArguments: ['--operator-acl', '10.9.9.9/32,2001:db8::/32'],
    })
    try {
      await eventually(async () => expect((await send(outsider.url, '/api/v1/index.json')).status).toBe(200), 30_000)
      const requests: [target: string, method: string][] = [
        ...[...ROUTED, ...LOOKALIKES].map((target): [string, string] => [target, 'GET']),
        ['/status', 'HEAD'],
        ['/metrics', 'POST'],
      ]
      for (const [target, method] of requests) {
        const answer = await send(outsider.url, target, method)
        const body = method === 'HEAD' ? '' : {type: 'about:blank', status: 404, title: 'Not Found'}
        expect({target, method, ...answer, body: method === 'HEAD' ? '' : JSON.parse(answer.body)}).toEqual({
          target,
          method,
          status: 404,
          type: 'application/problem+json',
          cacheControl: 'no-store',
          requestId: undefined,
          body,
        })
      }

      // An unsigned delivery: the origin's own refusal, the same through Varnish as direct.
      const direct = await send(origin.baseUrl, '/webhooks/sanity', 'POST')
      const through = await send(outsider.url, '/webhooks/sanity', 'POST')
      expect(direct.status).toBe(400)
      expect({...through, fromOrigin: through.requestId !== undefined, requestId: undefined}).toEqual({
        ...direct,
        fromOrigin: true,
        requestId: undefined,
      })
    } finally {
      await outsider.stop()
    }
  }, 90_000)

  it('pass them to a client inside it: loopback, the default', async () => {
    const insider = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN})
    try {
      await originHealthyBehind(insider)
      for (const target of ['/status', '/metrics', '/metrics?x', 'HTTP://x/metrics']) {
        const answer = await send(insider.url, target)
        expect({target, status: answer.status, fromOrigin: answer.requestId !== undefined}).toEqual({
          target,
          status: 200,
          fromOrigin: true,
        })
        expect(answer.body).toMatch(target.includes('metrics') ? /^# HELP /m : /^\{"status":"(ok|degraded)","source":/)
      }
    } finally {
      await insider.stop()
    }
  }, 90_000)
})
