// The stdout log's batching, through a real file descriptor: request lines gathered into byte
// batches and pino's own lines between them come out whole, in order, in UTF-8.
import {closeSync, openSync, readFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {createStdoutLog, lineDestinationOf} from '../../server/observability/logger.ts'

async function logToFile(write: (log: ReturnType<typeof createStdoutLog>) => void): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'stdout-log-')), 'stdout.log')
  const fd = openSync(file, 'w')
  const log = createStdoutLog('info', {fd})
  write(log)
  await log.close(5000)
  closeSync(fd)
  return readFileSync(file, 'utf8')
}

describe('the stdout log', () => {
  it('writes request lines across many batches and pino lines between them whole, in order, in UTF-8', async () => {
    const expected: string[] = []
    const text = await logToFile(({logger}) => {
      const lines = lineDestinationOf(logger)
      for (let index = 0; index < 3000; index++) {
        // Hebrew takes two bytes a letter: batches fill by bytes, not characters.
        const line = `{"n":${index},"userAgent":"${'שלום '.repeat(index % 40)}agent-${index}"}\n`
        lines?.write(line)
        expected.push(line)
        if (index % 500 === 0) {
          logger.warn(`פרק ${index}`)
          expected.push(`pino ${index}`)
        }
      }
    })
    const written = text.split('\n').filter(Boolean)
    expect(written).toHaveLength(expected.length)
    written.forEach((line, index) => {
      const wanted = expected[index] ?? ''
      if (wanted.startsWith('pino '))
        expect(JSON.parse(line)).toMatchObject({level: 40, msg: `פרק ${wanted.slice('pino '.length)}`})
      else expect(`${line}\n`).toBe(wanted)
    })
  })

  it('writes a line longer than a batch whole, after the lines before it', async () => {
    const long = `{"userAgent":"${'א'.repeat(40_000)}"}\n`
    const text = await logToFile(({logger}) => {
      lineDestinationOf(logger)?.write('{"first":true}\n')
      lineDestinationOf(logger)?.write(long)
      lineDestinationOf(logger)?.write('{"last":true}\n')
    })
    expect(text).toBe(`{"first":true}\n${long}{"last":true}\n`)
  })
})
