// Site documents across a rebuild: a document whose bytes changed is served with its new bytes,
// and a successor of a snapshot without a feed dates its pages by the built ones.
import {describe, expect, it} from 'vitest'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const page = (body: string) => () => [{path: '/llms.txt', body, contentType: 'text/plain; charset=utf-8'}]

describe('site documents of a successor', () => {
  it('serve their new bytes when they changed, dated by the rebuild; unchanged ones keep their date', async () => {
    const catalog = await catalogOf([voice('dana')])
    const first = buildSnapshot(catalog, snapshotSettings({site: page('one')}), undefined, new Date('2026-01-01'))
    const firstPage = first.site('/llms.txt')
    expect(first.builtSiteDocuments()?.get('/llms.txt')).toBe(firstPage)
    const changed = buildSnapshot(catalog, snapshotSettings({site: page('two')}), first, new Date('2026-02-01'))
    expect(changed.site('/llms.txt')?.body.toString('utf8')).toBe('two')
    expect(changed.site('/llms.txt')?.lastModified).toEqual(new Date('2026-02-01'))
    const same = buildSnapshot(catalog, snapshotSettings({site: page('two')}), changed, new Date('2026-03-01'))
    expect(same.site('/llms.txt')?.body.toString('utf8')).toBe('two')
    expect(same.site('/llms.txt')?.lastModified).toEqual(new Date('2026-02-01'))
  })
})
