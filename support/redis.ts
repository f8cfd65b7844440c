import {spawn} from 'node:child_process'
import {ensureDebianProgram} from './debian.ts'
import {freePort} from './free-port.ts'

export interface RedisServer {
  url: string
  stop(): Promise<void>
  /** Starts it again on the same port (after `stop`), empty. */
  restart(): Promise<void>
  /**
   * Runs `work` while the server is stopped by SIGSTOP (it keeps its connections open and answers
   * nothing, as a hung Redis does), and wakes it with SIGCONT when `work` settles, whatever happened.
   */
  whileHung<T>(work: () => Promise<T>): Promise<T>
  /** SIGCONT: for an afterAll, in case a test timed out while Redis was hung. */
  wake(): void
}

/** Debian's redis-server on a free loopback port, in memory only. */
export async function startRedis(): Promise<RedisServer> {
  const program = ensureDebianProgram('/usr/bin/redis-server', ['redis-server'])
  const port = await freePort()
  const launch = () =>
    new Promise<() => Promise<void>>((resolve, reject) => {
      const child = spawn(
        program,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {stdio: ['ignore', 'pipe', 'pipe']},
      )
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes('Ready to accept connections')) {
          current = child
          resolve(
            () =>
              new Promise<void>((stopped) =>
                child.exitCode !== null ? stopped() : (child.once('exit', () => stopped()), child.kill('SIGKILL')),
              ),
          )
        }
      })
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)))
    })
  let current: ReturnType<typeof spawn> | undefined
  let stop = await launch()
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => stop(),
    async restart() {
      stop = await launch()
    },
    async whileHung(work) {
      current?.kill('SIGSTOP')
      try {
        return await work()
      } finally {
        current?.kill('SIGCONT')
      }
    },
    wake: () => void current?.kill('SIGCONT'),
  }
}
