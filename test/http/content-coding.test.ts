import Negotiator from 'negotiator'
import {describe, expect, it, vi} from 'vitest'
import {negotiateContentCoding, selectVariant} from '../../server/http/content-coding.ts'
import {represent} from '../../server/snapshot/representation.ts'

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

  it('forgets remembered headers once 256 others came, so distinct headers cannot fill the memory', () => {
    negotiateContentCoding('gzip;q=0.7, br;q=0.6')
    for (let index = 0; index < 256; index += 1) negotiateContentCoding(`gzip;level=${index}`)
    const parse = vi.spyOn(Negotiator.prototype, 'encoding')
    try {
      expect(negotiateContentCoding('gzip;q=0.7, br;q=0.6')).toBe('gzip')
      expect(parse).toHaveBeenCalledTimes(1)
    } finally {
      parse.mockRestore()
    }
  })

  describe('q-values at their edges', () => {
    it.each([
      // q=0 is "not acceptable", for a coding, for identity and through *.
      ['gzip;q=0', 'identity'],
      ['br;q=0, *', 'gzip'],
      ['*, br;q=0', 'gzip'],
      ['*;q=0', 'identity'],
      ['*;q=0, gzip', 'gzip'],
      ['br;q=0.', 'identity'],
      // identity refused: any coding the client takes, else identity anyway (no 406).
      ['identity;q=0', 'identity'],
      ['identity;q=0, *', 'br'],
      ['identity;q=0, gzip;q=0', 'identity'],
      ['identity;q=0, gzip;q=0.001', 'gzip'],
      // identity preferred when the client says so; ties go br, gzip, identity.
      ['br;q=0.5, identity', 'identity'],
      ['identity;q=1, gzip;q=0.5', 'identity'],
      ['*;q=0.5, identity;q=0.6', 'identity'],
      ['identity, br', 'br'],
      ['identity, gzip', 'gzip'],
      ['gzip;q=1.0, br;q=1.000', 'br'],
      ['gzip;q=0.5, br;q=0.5', 'br'],
      ['br;q=0.001, gzip;q=0.002', 'gzip'],
      ['gzip;q=.5, br;q=0.4', 'gzip'],
      ['gzip;q=-1', 'identity'],
      // Codings and parameter names are case-insensitive.
      ['GZIP;Q=0.4, br;q=0.5', 'br'],
      ['Identity;q=0, GZIP;q=0', 'identity'],
      ['IDENTITY;q=0.9, gzip;q=0.8', 'identity'],
      // Optional whitespace, empty list elements and other parameters.
      [' gzip ; q=0.5 ,  br ; q=0.6 ', 'br'],
      ['\tgzip;q=0.5,\tbr;q=0.6', 'br'],
      ['gzip; q=0.5, br; q=0.4', 'gzip'],
      [',,, gzip ,', 'gzip'],
      ['gzip;level=9;q=0.5, br;q=0.4', 'gzip'],
      // Not gzip by another name: x-gzip is not offered.
      ['x-gzip', 'identity'],
    ] as const)('%j -> %s', (header, expected) => {
      expect(negotiateContentCoding(header)).toBe(expected)
    })
  })
})

describe('the variant sent', () => {
  const date = new Date('2026-05-06T07:08:09Z')
  const text = JSON.stringify({data: 'פרק '.repeat(300)})

  it('is identity when the client takes no coding', () => {
    const representation = represent(text, () => date)
    for (const acceptEncoding of [undefined, '', 'identity', 'deflate'])
      expect(selectVariant(representation, acceptEncoding), acceptEncoding).toBe(representation.identity)
  })

  it("is the negotiated coding's once compressed, at once", async () => {
    const representation = represent(text, () => date)
    await representation.precompress()
    expect(selectVariant(representation, 'gzip')).toBe(representation.encoded('gzip'))
    expect(selectVariant(representation, 'gzip, br')).toBe(representation.encoded('br'))
  })

  it('is identity at once when compressing would not make it smaller', async () => {
    const representation = represent('{}', () => date)
    await representation.precompress()
    expect(selectVariant(representation, 'br')).toBe(representation.identity)
  })

  it('waits for its first compression, and is that variant', async () => {
    const representation = represent(text, () => date)
    const selected = selectVariant(representation, 'gzip')
    expect(selected).toBeInstanceOf(Promise)
    const variant = await selected
    expect(variant).toBe(representation.encoded('gzip'))
    expect(variant.coding).toBe('gzip')
  })

  it('is identity when the compression fails', async () => {
    const identity = {coding: 'identity', body: Buffer.from(text), etag: '"x"'} as const
    const failing = {
      identity,
      encoded: () => undefined,
      encode: () => Promise.reject(new Error('no threadpool')),
    }
    expect(await selectVariant(failing, 'br')).toBe(identity)
  })
})
