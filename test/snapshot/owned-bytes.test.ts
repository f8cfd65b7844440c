// A buffer that keeps only its own bytes alive: views are copied, a whole buffer is kept.
import {describe, expect, it} from 'vitest'
import {ownedBytes} from '../../server/snapshot/owned-bytes.ts'

const ownsItsBytes = (bytes: Buffer) => bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length

describe('owned bytes', () => {
  it('copies a view into a larger buffer, from its start or from inside it', () => {
    const slab = Buffer.allocUnsafeSlow(16)
    slab.write('0123456789abcdef')
    for (const view of [slab.subarray(0, 4), slab.subarray(4), slab.subarray(4, 8)]) {
      const owned = ownedBytes(view)
      expect(owned.toString()).toBe(view.toString())
      expect(ownsItsBytes(owned)).toBe(true)
    }
  })

  it('keeps a buffer that is already its own', () => {
    const whole = Buffer.allocUnsafeSlow(8).fill(1)
    expect(ownedBytes(whole)).toBe(whole)
  })
})
