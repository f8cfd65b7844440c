import {describe, expect, it} from 'vitest'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'

describe('surrogate keys', () => {
  it('go in the configured provider header only, beside the global key, with the edge TTL', () => {
    expect(createSurrogateKeying('varnish').headersFor('episodes/ep-1', 'episodes')).toEqual({
      xkey: 'catalog episodes/ep-1',
      'CDN-Cache-Control': 'max-age=86400, stale-if-error=86400',
      'Surrogate-Control': 'max-age=86400, stale-if-error=86400',
    })
    expect(createSurrogateKeying('fastly').headersFor('voices', 'voices')).toMatchObject({'Surrogate-Key': 'catalog voices'})
    expect(Object.keys(createSurrogateKeying('cloudflare').headersFor('all', 'all'))).toEqual(['Cache-Tag', 'CDN-Cache-Control', 'Surrogate-Control'])
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
