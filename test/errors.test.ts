import {describe, expect, it} from 'vitest'
import {errorMessage} from '../server/errors.ts'

describe('errorMessage', () => {
  it("reads an Error's message", () => {
    expect(errorMessage(new TypeError('bad input'), 'otherwise')).toBe('bad input')
  })

  it('writes anything else as text, or the fallback when one is given', () => {
    expect(errorMessage('plain')).toBe('plain')
    expect(errorMessage(42)).toBe('42')
    expect(errorMessage({status: 400}, 'The request was refused.')).toBe('The request was refused.')
  })
})
