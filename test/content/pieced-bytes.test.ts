import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {PiecedBytes} from '../../server/content/pieced-bytes.ts'

const whole = 'שלום, dataset file: 0123456789 '.repeat(3)
const bytes = Buffer.from(whole)
/** The same bytes cut into pieces at these offsets. */
const cut = (...offsets: number[]) => new PiecedBytes([0, ...offsets].map((from, index) => bytes.subarray(from, [...offsets, bytes.length][index])))

describe('pieced bytes', () => {
  it('slices, copies and compares across piece boundaries as one buffer would', () => {
    const pieced = cut(3, 4, 10, 20)
    expect(pieced.length).toBe(bytes.length)
    for (let from = 0; from <= bytes.length; from += 3) {
      for (let to = from; to <= bytes.length; to += 5) {
        expect(pieced.copy(from, to).equals(bytes.subarray(from, to)), `${from}-${to}`).toBe(true)
        expect(pieced.equalsAt(from, bytes.subarray(from, to)), `${from}-${to}`).toBe(true)
      }
    }
    expect(pieced.equalsAt(2, bytes.subarray(3, 9))).toBe(false)
    expect(pieced.equalsAt(bytes.length - 2, bytes.subarray(0, 3)), 'past the end').toBe(false)
  })

  it('joins many pieces into one and keeps the bytes and their digest', () => {
    const many = new PiecedBytes(Array.from(bytes, (_, index) => bytes.subarray(index, index + 1)))
    expect(many.slice(0, bytes.length)).toHaveLength(1)
    expect(many.copy(0, bytes.length).toString()).toBe(whole)
    expect(many.digest()).toBe(createHash('sha256').update(bytes).digest('hex'))
    expect(cut(5, 6).digest()).toBe(many.digest())
  })
})
