// `npm start`'s process as the benchmarks that time it start, watch, signal and stop it.
import {spawn, type ChildProcess} from 'node:child_process'
import {readFile} from 'node:fs/promises'
import {encodeSignatureHeader} from '@sanity/webhook'
import {START_ARGUMENTS, START_ENV} from '../support/start-command.ts'

export interface ServerProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
  /** CPU time the process has used, in clock ticks (utime + stime of /proc/<pid>/stat). */
  cpuTicks: () => Promise<number>
  /**
   * Waits (up to `timeoutMs`) until the process has used under two ticks of CPU in 500 ms: an edit
   * is measured on a settled server, not one still warming the previous snapshot.
   */
  settled: (timeoutMs: number) => Promise<void>
  stop: () => Promise<void>
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts `npm start`'s process (`nodeFlags` before its own) and resolves when it has answered its
 * first 200 (polled every 10 ms). `environment` adds to, or replaces, a quiet default.
 */
export async function startServerProcess(
  environment: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<{server: ServerProcess; firstOkMs: number}> {
  const started = performance.now()
  const child = spawn(process.execPath, [...nodeFlags, ...START_ARGUMENTS], {
    env: {
      ...START_ENV,
      PATH: process.env.PATH,
      NODE_OPTIONS: '',
      PORT: '0',
      LOG_LEVEL: 'info',
      RECONCILE_INTERVAL_SECONDS: '0',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  // The tail only: a long run logs every build.
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-400_000)))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    const port = /listening on [\d.]+:(\d+)/.exec(output)?.[1]
    if (port) {
      const baseUrl = `http://127.0.0.1:${port}`
      const ok = await fetch(`${baseUrl}/api/v1/index.json`).then(
        (response) => response.ok,
        () => false,
      )
      if (ok) return {server: serverProcess(child, baseUrl, () => output), firstOkMs: performance.now() - started}
    }
    await sleep(10)
  }
}

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms`)
    await sleep(20)
  }
}

function serverProcess(child: ChildProcess, baseUrl: string, output: () => string): ServerProcess {
  const cpuTicks = async () => {
    const fields = (await readFile(`/proc/${String(child.pid)}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? []
    return Number(fields[11]) + Number(fields[12])
  }
  return {
    child,
    baseUrl,
    output,
    cpuTicks,
    async settled(timeoutMs) {
      const deadline = performance.now() + timeoutMs
      for (let before = await cpuTicks(); performance.now() < deadline;) {
        await sleep(500)
        const now = await cpuTicks()
        if (now - before < 2) return
        before = now
      }
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Announces a change of `document` as Sanity does: a webhook signed with `secret`. */
export async function deliverWebhook(
  server: Pick<ServerProcess, 'baseUrl'>,
  document: {_id: string; _type: string},
  secret: string,
): Promise<void> {
  const body = JSON.stringify(document)
  const response = await fetch(`${server.baseUrl}/webhooks/sanity`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'sanity-webhook-signature': await encodeSignatureHeader(body, Date.now(), secret),
    },
    body,
  })
  if (response.status !== 202) throw new Error(`webhook answered ${response.status}`)
}
