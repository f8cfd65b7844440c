import {execFile, spawn, type ChildProcess} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {ensureDebianProgram} from './debian.ts'
import {eventually} from './eventually.ts'
import {freePort} from './free-port.ts'

export interface RunningVarnish {
  url: string
  port: number
  /** The VCL `npm run edge:vcl` wrote, and its parameters file. */
  vclFile: string
  stop(): Promise<void>
}

/**
 * Debian's varnishd in the foreground on a loopback port, with the VCL and parameters that
 * `npm run edge:vcl` generates for `backends`. `-j none`: the tests may run as root, and the
 * VCL (which holds the purge token) is readable by its owner only.
 */
export async function startVarnish(options: {
  backends: readonly string[]
  token: string
  port?: number
  parameters?: 'recommended' | 'default'
  cpu?: number
  storageMiB?: number
  /** More `npm run edge:vcl` arguments, such as `--operator-acl`. */
  vclArguments?: readonly string[]
}): Promise<RunningVarnish> {
  const program = ensureDebianProgram('/usr/sbin/varnishd', ['varnish', 'varnish-modules'])
  ensureDebianProgram('/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so', ['varnish-modules'])
  const directory = await mkdtemp(join(tmpdir(), 'catalog-varnish-'))
  const vclFile = join(directory, 'edge.vcl')
  await promisify(execFile)(
    process.execPath,
    [
      'server/edge-vcl.ts',
      ...options.backends.flatMap((backend) => ['--backend', backend]),
      ...(options.vclArguments ?? []),
      '--out',
      vclFile,
    ],
    {
      env: {...process.env, CDN_PURGE_TOKEN: options.token},
    },
  )
  const parameters =
    options.parameters === 'default'
      ? []
      : (await readFile(`${vclFile}.params`, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .flatMap((line) => line.split(' '))
  const port = options.port ?? (await freePort())
  // Pinned to one CPU for benchmarks: taskset execs varnishd, so the child is varnishd itself.
  const [command, ...prefix] = options.cpu === undefined ? [program] : ['taskset', '-c', String(options.cpu), program]
  const child: ChildProcess = spawn(
    command ?? program,
    [
      ...prefix,
      '-F',
      '-j',
      'none',
      '-n',
      join(directory, 'work'),
      '-a',
      `127.0.0.1:${port}`,
      '-f',
      vclFile,
      '-s',
      `malloc,${options.storageMiB ?? 64}m`,
      ...parameters,
    ],
    {
      stdio: 'ignore',
    },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = `http://127.0.0.1:${port}`
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`varnishd exited with ${child.exitCode}`)
    await fetch(`${url}/status`)
  }, 20_000)
  return {
    url,
    port,
    vclFile,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
      await rm(directory, {recursive: true, force: true})
    },
  }
}

/**
 * Resolves once Varnish fetches from the origin: the VCL's probe can mark a backend sick at start
 * (a probe that timed out on a busy machine), and a sick backend answers every miss with 503.
 * `/status` is passed to loopback (the default --operator-acl), so a 200 means the backend is healthy.
 */
export async function originHealthyBehind(varnish: RunningVarnish): Promise<void> {
  await eventually(async () => {
    const response = await fetch(`${varnish.url}/status`)
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`Varnish answered /status with ${response.status}`)
  }, 30_000)
}
