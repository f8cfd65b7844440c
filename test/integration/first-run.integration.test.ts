// Integration: `server/main.ts` as its own process, started the wrong way as a newcomer would; each
// mistake gets one line on stderr that names the variable and what to do, exit code 1, no stack trace.
import {createServer, type Server} from 'node:http'
import {afterEach, describe, expect, it} from 'vitest'
import {freePort} from '../../support/free-port.ts'
import {runMainToExit, type MainExit} from '../helpers/main-process.ts'

/** npm start's process, started the wrong way; PORT 0, so a start that goes through never collides. */
const runMain = (environment: Record<string, string>) => runMainToExit({PORT: '0', ...environment})

function expectOneLine(exit: MainExit, ...patterns: RegExp[]): void {
  expect(exit.code).toBe(1)
  const lines = exit.stderr.trim().split('\n')
  expect(lines, exit.stderr).toHaveLength(1)
  expect(exit.stderr).not.toMatch(/^\s+at /m)
  for (const pattern of patterns) expect(lines[0]).toMatch(pattern)
}

let stand: Server | undefined
afterEach(async () => {
  await new Promise((resolve) => stand?.close(resolve) ?? resolve(undefined))
  stand = undefined
})

/** A stand-in for Sanity's API that answers every request with `status`. */
async function sanityAnswering(status: number): Promise<string> {
  stand = createServer((_request, response) =>
    response
      .writeHead(status, {'Content-Type': 'application/json'})
      .end(JSON.stringify({error: 'Unauthorized', message: 'no'})),
  )
  await new Promise<void>((resolve) => stand?.listen(0, '127.0.0.1', resolve))
  const address = stand.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return `http://127.0.0.1:${address.port}`
}

describe('a first run that says what to do', () => {
  it('names DATASET_FILE for a dataset file that is missing', async () => {
    expectOneLine(
      await runMain({DATASET_FILE: 'data/no-such-file.ndjson'}),
      /DATASET_FILE/,
      /no-such-file\.ndjson/,
      /ENOENT/,
    )
  })

  it('names DATASET_FILE for a file that is not a Sanity export', async () => {
    expectOneLine(await runMain({DATASET_FILE: 'package.json'}), /DATASET_FILE/, /package\.json/)
  })

  it('names SANITY_PROJECT_ID for a project it cannot reach', async () => {
    const closedPort = await freePort() // nothing listens there
    expectOneLine(
      await runMain({SANITY_PROJECT_ID: 'abc123', SANITY_API_HOST: `http://127.0.0.1:${closedPort}`}),
      /SANITY_PROJECT_ID/,
      /ECONNREFUSED/,
      /SANITY_API_HOST/,
    )
  })

  it('names SANITY_TOKEN for a project that refuses the token', async () => {
    const apiHost = await sanityAnswering(401)
    expectOneLine(
      await runMain({SANITY_PROJECT_ID: 'abc123', SANITY_API_HOST: apiHost, SANITY_TOKEN: 'sk-not-a-real-token'}),
      /SANITY_TOKEN/,
      /401/,
    )
  })

  it('never repeats a secret in a configuration error', async () => {
    const exit = await runMain({
      SANITY_WEBHOOK_SECRET: 'tooshort',
      SANITY_TOKEN: 'sk-secret',
      SANITY_PROJECT_ID: 'Bad Id',
    })
    expectOneLine(exit, /SANITY_WEBHOOK_SECRET: .*a value of 8 characters/)
    expect(exit.stderr).not.toContain('tooshort')
  })
})
