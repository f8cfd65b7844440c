import {spawn} from 'node:child_process'

export interface MainProcess {
  baseUrl: string
  /** The process id, to read what the process holds (`/proc/{pid}/fd`). */
  pid: number
  /** Everything the process has written so far (JSON log lines). */
  output(): string
  /** Stops reading the process's stdout, as a stalled log collector would: its pipe fills and stays full. */
  stallOutput(): void
  /** Sends a signal the process handles and keeps running after (SIGHUP). */
  signal(signal: NodeJS.Signals): void
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * Runs `server/main.ts` as its own process, as `npm start` does, and waits until it listens;
 * `cwd` runs another copy of the project (a changed copy of `server/`).
 */
export async function startMainProcess(
  environment: Record<string, string>,
  options: {cwd?: string} = {},
): Promise<MainProcess> {
  const child = spawn(process.execPath, ['server/main.ts'], {
    env: {PATH: process.env.PATH, ...environment},
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
  })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let listening: string | undefined
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (listening) return
      const match = /listening on ([\d.]+):(\d+)/.exec(output)
      if (match) resolve((listening = `http://${match[1]}:${match[2]}`))
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then((code) => reject(new Error(`main.ts exited with ${code}:\n${output}`)))
  })
  return {
    baseUrl,
    pid: child.pid ?? 0,
    output: () => output,
    signal(signal) {
      child.kill(signal)
    },
    stallOutput() {
      child.stdout.pause()
    },
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

export interface MainExit {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `server/main.ts` until it exits by itself (a refused start), killed after 20 s if it does not. */
export function runMainToExit(environment: Record<string, string>): Promise<MainExit> {
  const child = spawn(process.execPath, ['server/main.ts'], {
    env: {PATH: process.env.PATH, ...environment},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    }),
  )
}
