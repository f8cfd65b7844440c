import {describe, expect, it} from 'vitest'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'

describe('surrogate keys', () => {
  it('go in the configured provider header only, beside the global key, with the edge TTL', () => {
    expect(createSurrogateKeying('varnish').headersFor('episodes/ep-1', 'episodes')).toEqual({
      xkey: 'catalog episodes/ep-1',
      'CDN-Cache-Control': 'max-age=86400, stale-if-error=86400',
      'Surrogate-Control': 'max-age=86400, stale-if-error=86400',
    })
    expect(createSurrogateKeying('fastly').headersFor('voices', 'voices')).toMatchObject({
      'Surrogate-Key': 'catalog voices',
    })
    expect(Object.keys(createSurrogateKeying('cloudflare').headersFor('all', 'all'))).toEqual([
      'Cache-Tag',
      'CDN-Cache-Control',
      'Surrogate-Control',
    ])
    expect(createSurrogateKeying('cloudflare').headersFor('all', 'all')['Cache-Tag']).toBe('catalog,all')
  })

  it('fall back to the coarser key when a key would pass the provider limit, and count it', () => {
    const keying = createSurrogateKeying('fastly', {maxKeyBytes: 40})
    const long = `episodes/${'a'.repeat(40)}`
    expect(keying.headersFor(long, 'episodes')['Surrogate-Key']).toBe('catalog episodes')
    expect(keying.effectiveKey(long, 'episodes')).toBe('episodes')
    expect(keying.headersFor('episodes/short', 'episodes')['Surrogate-Key']).toBe('catalog episodes/short')
    expect(keying.fallbacks).toBe(1)
  })
})

describe('provider limits', () => {
  it('name each provider header, separator and header size', () => {
    const limits = (['varnish', 'fastly', 'cloudflare'] as const).map((provider) => {
      const keying = createSurrogateKeying(provider)
      return [keying.header, keying.separator, keying.maxHeaderBytes]
    })
    expect(limits).toEqual([
      ['xkey', ' ', 8192],
      ['Surrogate-Key', ' ', 16384],
      ['Cache-Tag', ',', 16384],
    ])
  })

  it('take a key of exactly 1 KB by default, counted in bytes, and fall back past it', () => {
    const keying = createSurrogateKeying('varnish')
    const exact = `e/${'a'.repeat(1022)}`
    expect(keying.effectiveKey(exact, 'e')).toBe(exact)
    expect(keying.effectiveKey(`${exact}a`, 'e')).toBe('e')
    expect(keying.effectiveKey(`e/${'א'.repeat(512)}`, 'e'), '1026 bytes in 514 characters').toBe('e')
    expect(keying.fallbacks, 'effectiveKey alone counts nothing').toBe(0)
  })

  it('fall back when the global key and the key together pass the header size', () => {
    const keying = createSurrogateKeying('cloudflare', {maxHeaderBytes: 20})
    // "catalog," is 8 bytes: 12 are left for the key.
    expect(keying.effectiveKey('k'.repeat(12), 'c')).toBe('k'.repeat(12))
    expect(keying.effectiveKey('k'.repeat(13), 'c')).toBe('c')
    expect(keying.maxHeaderBytes).toBe(20)
  })

  it('give the edge the configured time to keep a response', () => {
    expect(createSurrogateKeying('fastly', {edgeMaxAgeSeconds: 600}).headersFor('k', 'k')).toEqual({
      'Surrogate-Key': 'catalog k',
      'CDN-Cache-Control': 'max-age=600, stale-if-error=86400',
      'Surrogate-Control': 'max-age=600, stale-if-error=86400',
    })
  })

  it('count only the representations given a coarser key', () => {
    const keying = createSurrogateKeying('varnish', {maxKeyBytes: 10})
    keying.headersFor('short', 'c')
    keying.headersFor('also-short', 'c')
    expect(keying.fallbacks).toBe(0)
    keying.headersFor('far-too-long', 'c')
    expect(keying.fallbacks).toBe(1)
  })

  it('freeze the headers they hand out', () => {
    expect(Object.isFrozen(createSurrogateKeying('varnish').headersFor('k', 'k'))).toBe(true)
  })
})
