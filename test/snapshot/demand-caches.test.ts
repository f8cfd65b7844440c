import {describe, expect, it} from 'vitest'
import {compress} from '../../server/snapshot/compression.ts'
import {createDemandCaches} from '../../server/snapshot/demand-caches.ts'
import {ownedBytes} from '../../server/snapshot/owned-bytes.ts'
import {represent} from '../../server/snapshot/representation.ts'

describe('the caches built on demand', () => {
  it('count a page by its bytes in every coding, its key and what the entry holds besides', () => {
    const caches = createDemandCaches({pageCacheBytes: 1024 * 1024, variantCacheBytes: 1024 * 1024})
    const page = represent(Buffer.from('{"data":[]}'), () => new Date(0))
    const shortKey = 'v1 voices 10 0'
    const longKey = `v1 voices 10 0 ${'x'.repeat(1000)}`
    caches.pages.set(shortKey, page)
    const counted = caches.pages.calculatedSize
    caches.pages.set(longKey, page)
    expect(caches.pages.calculatedSize - counted).toBe(counted + longKey.length - shortKey.length)
    expect(counted).toBeGreaterThanOrEqual(page.body.length * 3 + shortKey.length + 1024)
  })
})

describe('bytes of their own', () => {
  it('copies a view out of the slab behind it, and leaves a buffer of its own as it is', () => {
    const slab = Buffer.alloc(64 * 1024, 1)
    const view = slab.subarray(100, 400)
    const owned = ownedBytes(view)
    expect(owned.equals(view)).toBe(true)
    expect(owned.buffer.byteLength).toBe(300)
    expect(ownedBytes(owned)).toBe(owned)
  })

  it('keeps no compressor chunk behind a small compressed body', async () => {
    for (const coding of ['br', 'gzip'] as const) {
      const compressed = await compress(coding, Buffer.from(`{"data":${JSON.stringify('שלום '.repeat(50))}}`))
      expect(compressed.buffer.byteLength, coding).toBe(compressed.length)
    }
  })
})

describe('what the caches count', () => {
  it('count a page at three times its bytes, its key and 2 KB besides, and drop the least recently used past their bound', () => {
    const page = represent(Buffer.alloc(1000), () => new Date(0))
    const caches = createDemandCaches({pageCacheBytes: 2 * (3000 + 5 + 2048), variantCacheBytes: 1024})
    caches.pages.set('key-1', page)
    expect(caches.pages.calculatedSize).toBe(3000 + 5 + 2048)
    caches.pages.set('key-2', page)
    caches.pages.get('key-1')
    caches.pages.set('key-3', page)
    expect([...caches.pages.keys()].sort()).toEqual(['key-1', 'key-3'])
  })

  it('count a variant at its bytes, its key and 256 bytes besides, within their own bound', () => {
    const variant = {coding: 'gzip' as const, body: Buffer.alloc(100), etag: '"x-gzip"'}
    const caches = createDemandCaches({pageCacheBytes: 1024, variantCacheBytes: 2 * (100 + 5 + 256)})
    caches.variants.set('v-1', variant)
    expect(caches.variants.calculatedSize).toBe(100 + 3 + 256)
    caches.variants.set('v-22', variant)
    caches.variants.set('v-333', variant)
    expect([...caches.variants.keys()].sort()).toEqual(['v-22', 'v-333'])
    expect(caches.pages.calculatedSize).toBe(0)
  })
})
