// A merge conflict committed by mistake reads as text in Markdown, which neither tsc nor Prettier
// refuses: two of them sat in README.md and docs/edge.md for a day.
import {execFile} from 'node:child_process'
import {readFile} from 'node:fs/promises'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'

const MARKER = /^(?:<{7}|>{7})(?: |$)|^={7}$/m

describe('the repository', () => {
  it('has no merge-conflict markers in any tracked text file', async () => {
    const {stdout} = await promisify(execFile)('git', [
      'ls-files',
      '-z',
      '--',
      '*.md',
      '*.ts',
      '*.tsx',
      '*.json',
      '*.cjs',
      '*.mjs',
      '*.ndjson',
      '*.yaml',
      '*.yml',
      '*.service',
    ])
    const files = stdout.split('\0').filter(Boolean)
    expect(files.length).toBeGreaterThan(100)
    const marked: string[] = []
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch(() => '')
      if (MARKER.test(text)) marked.push(file)
    }
    expect(marked).toEqual([])
  })
})
