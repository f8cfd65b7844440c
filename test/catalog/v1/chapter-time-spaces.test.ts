// A chapter time as typed, with spaces around it: read as the time it names.
import {describe, expect, it} from 'vitest'
import {parseChapterTime} from '../../../catalog/v1/chapters.ts'

describe('parseChapterTime', () => {
  it('reads a time with spaces around it', () => {
    expect(parseChapterTime(' 1:05 ')).toBe(65)
    expect(parseChapterTime('\t1:00:00\n')).toBe(3600)
  })
})
