// Integration: `npm run edge:vcl` as its own process, then the varnishd command it prints, run
// as printed by bash (plus -F and its own -n working directory), a real Debian varnishd in front
// of the real app on loopback ports. As root, varnishd reads the VCL as the varnish group.
import {execFile, spawn} from 'node:child_process'
import {chmod, mkdtemp, readFile, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {edgeAddressWarning} from '../../server/edge/varnish-vcl.ts'
import {ensureDebianProgram} from '../helpers/debian.ts'
import {eventually} from '../helpers/eventually.ts'
import {freePort} from '../helpers/free-port.ts'
import {startTestServer, type TestServer} from '../helpers/server.ts'

const run = promisify(execFile)
const TOKEN = 'an-edge-purge-token-of-some-length'
let origin: TestServer
let directory: string

beforeAll(async () => {
  ensureDebianProgram('/usr/sbin/varnishd', ['varnish', 'varnish-modules'])
  origin = await startTestServer()
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
})
