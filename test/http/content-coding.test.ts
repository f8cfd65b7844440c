import {describe, expect, it} from 'vitest'
import {negotiateContentCoding} from '../../server/http/content-coding.ts'

describe('Accept-Encoding negotiation', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['BR', 'br'],
    ['*', 'br'],
    ['*;q=0.1, gzip;q=0.2', 'gzip'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
    ['br;q=0, gzip;q=0', 'identity'],
    // Nothing acceptable, identity refused: RFC 9110 lets the server send identity rather than a 406.
    ['identity;q=0, deflate', 'identity'],
    ['gzip;q=nonsense', 'identity'],
  ] as const)('%j -> %s', (header, expected) => {
    expect(negotiateContentCoding(header)).toBe(expected)
  })

  it('answers the same for a remembered header', () => {
    expect(negotiateContentCoding('gzip;q=0.9, br;q=0.8')).toBe('gzip')
    expect(negotiateContentCoding('gzip;q=0.9, br;q=0.8')).toBe('gzip')
  })
})
