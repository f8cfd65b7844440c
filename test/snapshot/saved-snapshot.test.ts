// The saved snapshot file on its own: what a restart gets back, and when it must read the source
// instead. Snapshots are stand-ins holding only what saving reads (test/helpers/saved-snapshot-stand-in.ts).
import {createHash} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {strongEtag} from '../../server/snapshot/representation.ts'
import {describeRefused, openSnapshotFile} from '../../server/snapshot/saved-snapshot.ts'
import {standInSnapshot, type StandInItem} from '../helpers/saved-snapshot-stand-in.ts'

const SETTINGS = {version: '1.0.0', publicBaseUrl: 'http://api.test'}
const CODE = 'code-digest-1'
let directory: string

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'saved-snapshot-'))
})
afterEach(() => rm(directory, {recursive: true, force: true}))

type Item = StandInItem

const item = (slug: string, filler = ''): Item => ({slug, body: Buffer.from(JSON.stringify({data: {slug, filler}}))})
const transcribed = (slug: string, filler: string, said: string): Item => ({
  ...item(slug, filler),
  transcript: Buffer.from(JSON.stringify({version: '1.0.0', segments: [{startTime: 0, endTime: 1, body: said}]})),
})
const BAD = {documentId: 'episodes-bad', collection: 'episodes', severity: 'rejected', messages: ['no title']}

/** `etagOf` gives each item's ETag; by default a stand-in, as saving does not check it (loading a damaged file does). */
const snapshotOf = (
  collections: Partial<Record<CollectionName, Item[]>>,
  options: {missing?: string; etagOf?: (item: Item) => string} = {},
) => standInSnapshot(collections, {...options, problems: [BAD]})

describe('a saved snapshot', () => {
  it('gives back the catalog, each item as served, its ETag and date, and when it was saved', async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    const episodes = [item('ep-1'), item('ep-2', 'עברית')]
    await file.save(snapshotOf({episodes, voices: [item('dana')]}), 'fingerprint-1')
    const saved = await file.load()
    expect(saved?.savedAt).toEqual(new Date('2026-02-02T00:00:00Z'))
    expect(saved?.fingerprint).toBe('fingerprint-1')
    expect(saved?.catalog.episodes).toEqual([
      {value: {slug: 'ep-1', filler: ''}, documentId: 'episodes-ep-1', updatedAt: '2026-01-01T00:00:00Z'},
      {value: {slug: 'ep-2', filler: 'עברית'}, documentId: 'episodes-ep-2', updatedAt: '2026-01-02T00:00:00Z'},
    ])
    expect(saved?.catalog.meetups).toEqual([])
    expect(saved?.catalog.voices.map((entry) => entry.documentId)).toEqual(['voices-dana'])
    expect(saved?.catalog.problems).toEqual([
      {documentId: 'episodes-bad', collection: 'episodes', severity: 'rejected', messages: ['no title']},
    ])
    expect(saved?.catalog.podcast).toBeNull()
    expect(Object.isFrozen(saved?.catalog.episodes[0])).toBe(true)
    const known = [...(saved?.items ?? [])].map(([entry, value]) => [
      (entry as CatalogEntry<{slug: string}>).value.slug,
      value.body.toString(),
      value.etag,
      value.lastModified.toISOString(),
    ])
    expect(known).toEqual([
      ['ep-1', episodes[0]?.body.toString(), '"etag-ep-1"', '2025-01-01T00:00:00.000Z'],
      ['ep-2', episodes[1]?.body.toString(), '"etag-ep-2"', '2025-02-01T00:00:00.000Z'],
      ['dana', item('dana').body.toString(), '"etag-dana"', '2025-01-01T00:00:00.000Z'],
    ])
    expect(await readdir(directory), 'no temporary file left').toEqual(['snapshot.ndjson'])
  })

  it("keeps an episode's transcript on the line after its item, and gives it back", async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    const said = transcribed('ep-2', 'עברית', 'מה שנאמר בפרק')
    await file.save(snapshotOf({episodes: [item('ep-1'), said, item('ep-3')]}), 'f')
    const lines = (await readFile(join(directory, 'snapshot.ndjson'), 'utf8')).split('\n')
    expect(lines.slice(1)).toEqual([
      item('ep-1').body.toString(),
      said.body.toString(),
      said.transcript?.toString(),
      item('ep-3').body.toString(),
      '',
    ])
    const saved = await file.load()
    expect(saved?.catalog.episodes.map((entry) => entry.transcript?.toString())).toEqual([
      undefined,
      said.transcript?.toString(),
      undefined,
    ])
  })

  it('lets the header go once read: its items are views into their own bytes, a header of several read blocks included', async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    const episodes = [item('ep-1'), item('ep-2', 'עברית')]
    // The header is read in blocks of a megabyte until its newline: a long fingerprint spans a few.
    const fingerprint = 'f'.repeat(2.5 * 1024 * 1024)
    await file.save(snapshotOf({episodes, voices: [item('dana')]}), fingerprint)
    const whole = await readFile(join(directory, 'snapshot.ndjson'))
    const saved = await file.load()
    expect(saved?.fingerprint).toBe(fingerprint)
    const bodies = [...(saved?.items.values() ?? [])].map((known) => known.body)
    expect(bodies.map((body) => body.toString())).toEqual([...episodes, item('dana')].map(({body}) => body.toString()))
    expect(new Set(bodies.map((body) => body.buffer)).size).toBe(1)
    expect(bodies[0]?.buffer.byteLength).toBe(whole.length - whole.indexOf('\n') - 1)
  })

  it("is one header line (the header's digest, then the header), then each body on a line", async () => {
    await openSnapshotFile(directory, SETTINGS, CODE).save(
      snapshotOf({meetups: [item('m-1')], voices: [item('v-1')]}),
      'f',
    )
    const lines = (await readFile(join(directory, 'snapshot.ndjson'), 'utf8')).split('\n')
    expect(lines).toHaveLength(4)
    const [digest, header = ''] = (lines[0] ?? '').split(/ (.*)/s)
    expect(digest).toBe(createHash('sha256').update(header).digest('base64url'))
    expect(JSON.parse(header)).toMatchObject({
      format: 6,
      fingerprint: 'f',
      savedAt: Date.parse('2026-02-02T00:00:00Z'),
      items: {
        episodes: [],
        meetups: [['meetups-m-1', '2026-01-01T00:00:00Z', '"etag-m-1"', Date.parse('2025-01-01T00:00:00Z')]],
      },
    })
    expect(lines.slice(1)).toEqual([item('m-1').body.toString(), item('v-1').body.toString(), ''])
  })

  it('keeps bodies whole across the megabyte write blocks, a body larger than a block included', async () => {
    const episodes = [
      item('a', 'x'.repeat(700_000)),
      item('b', 'y'.repeat(400_000)),
      item('c', 'z'.repeat(1_100_000)),
      item('d', 'w'.repeat(1_048_550)),
      item('e', 'v'),
    ]
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf({episodes}), 'big')
    const saved = await file.load()
    expect(
      [...(saved?.items.values() ?? [])].map((known) =>
        known.body.equals(episodes.find((entry) => known.etag === `"etag-${entry.slug}"`)?.body ?? Buffer.alloc(0)),
      ),
    ).toEqual([true, true, true, true, true])
    const expected = Buffer.concat(episodes.flatMap((entry) => [entry.body, Buffer.from('\n')]))
    const bytes = await readFile(join(directory, 'snapshot.ndjson'))
    expect(bytes.subarray(bytes.indexOf(0x0a) + 1).equals(expected)).toBe(true)
  })

  it('replaces the previous file whole', async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf({episodes: [item('old')]}), 'one')
    await file.save(snapshotOf({episodes: [item('new')]}), 'two')
    const saved = await file.load()
    expect(saved?.fingerprint).toBe('two')
    expect(saved?.catalog.episodes.map((entry) => entry.documentId)).toEqual(['episodes-new'])
  })

  it('creates its directory', async () => {
    const nested = join(directory, 'a', 'b')
    await openSnapshotFile(nested, SETTINGS, CODE).save(snapshotOf({episodes: [item('x')]}), 'f')
    expect(await readdir(nested)).toEqual(['snapshot.ndjson'])
  })

  it('refuses to save an item the catalog lists but the snapshot does not serve, and leaves nothing behind', async () => {
    await expect(
      openSnapshotFile(directory, SETTINGS, CODE).save(snapshotOf({voices: [item('dana')]}, {missing: 'dana'}), 'f'),
    ).rejects.toThrow('voices/dana is in the catalog but not served')
    expect(await readdir(directory)).toEqual([])
  })
})

describe('when the saved snapshot is not used', () => {
  it('is not there', async () => {
    expect(await openSnapshotFile(directory, SETTINGS, CODE).load()).toBeUndefined()
  })

  it('was saved under other settings (not reused) or by other code (marked, a fallback)', async () => {
    await openSnapshotFile(directory, SETTINGS, CODE).save(snapshotOf({episodes: [item('x')]}), 'f')
    expect(
      await openSnapshotFile(directory, {...SETTINGS, siteUrl: 'https://elsewhere.test'}, CODE).load(),
    ).toBeUndefined()
    expect(await openSnapshotFile(directory, SETTINGS, 'code-digest-2').load()).toMatchObject({otherCode: true})
    expect(await openSnapshotFile(directory, {...SETTINGS}, CODE).load()).toMatchObject({otherCode: false})
  })

  it('has a header of another shape', async () => {
    const path = join(directory, 'snapshot.ndjson')
    await openSnapshotFile(directory, SETTINGS, CODE).save(snapshotOf({episodes: [item('x')]}), 'f')
    const [header = '', ...rest] = (await readFile(path, 'utf8')).split('\n')
    const older = JSON.stringify({...JSON.parse(header.slice(header.indexOf(' ') + 1)), format: 2})
    await writeFile(path, [older, ...rest].join('\n'))
    expect(await openSnapshotFile(directory, SETTINGS, CODE).load()).toBeUndefined()
  })

  it('rejects a file cut short or with lines its header does not list', async () => {
    const path = join(directory, 'snapshot.ndjson')
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf({episodes: [item('x'), item('y')]}), 'f')
    const whole = await readFile(path)
    await writeFile(path, whole.subarray(0, whole.length - 1))
    await expect(file.load()).rejects.toThrow(`${path} ends before its last item: it was cut short`)
    await writeFile(path, Buffer.concat([whole, Buffer.from('{"data":{}}\n')]))
    await expect(file.load()).rejects.toThrow(`${path} holds more lines than its header lists`)
    await writeFile(path, whole.subarray(0, whole.indexOf('\n')))
    await expect(file.load()).rejects.toThrow(`${path} ends inside its header: it was cut short`)
  })
})

describe('a damaged saved snapshot', () => {
  const path = () => join(directory, 'snapshot.ndjson')
  const THREE = [item('x', 'first'), item('y', 'second'), item('z', 'third')]
  /** Saved with each item's true ETag, as the server saves it. */
  const saveThree = async () => {
    await openSnapshotFile(directory, SETTINGS, CODE).save(
      snapshotOf({episodes: THREE, voices: [item('v')]}, {etagOf: (entry) => strongEtag(entry.body)}),
      'f',
    )
    return readFile(path(), 'utf8')
  }
  /** The load leaves out `y` alone, reports it, and gives back every other item as saved. */
  const onlyYRefused = async () => {
    const saved = await openSnapshotFile(directory, SETTINGS, CODE).load()
    expect(saved?.refused).toEqual([{collection: 'episodes', documentId: 'episodes-y'}])
    expect(saved?.catalog.episodes.map((entry) => entry.documentId)).toEqual(['episodes-x', 'episodes-z'])
    expect([...(saved?.items.values() ?? [])].map((known) => known.body.toString())).toEqual(
      [THREE[0], THREE[2], item('v')].map((entry) => entry?.body.toString()),
    )
    expect(saved?.catalog.problems).toEqual([
      {documentId: 'episodes-bad', collection: 'episodes', severity: 'rejected', messages: ['no title']},
      {
        documentId: 'episodes-y',
        collection: 'episodes',
        severity: 'rejected',
        messages: [
          "the saved snapshot's bytes of this item do not match their checksum; left out until the source is read",
        ],
      },
    ])
  }

  it('leaves out an item one byte of which changed, and keeps the others', async () => {
    const text = await saveThree()
    await writeFile(path(), text.replace('second', 'secoNd'))
    await onlyYRefused()
  })

  it("leaves out an episode whose transcript's bytes changed, and keeps the others", async () => {
    const withTranscript = [THREE[0] ?? item('x'), transcribed('y', 'second', 'נאמר'), THREE[2] ?? item('z')]
    await openSnapshotFile(directory, SETTINGS, CODE).save(
      snapshotOf({episodes: withTranscript, voices: [item('v')]}, {etagOf: (entry) => strongEtag(entry.body)}),
      'f',
    )
    await writeFile(path(), (await readFile(path(), 'utf8')).replace('נאמר', 'נאמד'))
    await onlyYRefused()
  })

  it('leaves out an item whose line was swapped for other valid JSON', async () => {
    const text = await saveThree()
    await writeFile(
      path(),
      text.replace(item('y', 'second').body.toString(), JSON.stringify({data: {slug: 'elsewhere', filler: 'second'}})),
    )
    await onlyYRefused()
  })

  it('is refused whole when more than half of its items are damaged', async () => {
    const text = await saveThree()
    await writeFile(path(), text.replace('first', 'firsT').replace('second', 'secoNd').replace('third', 'thirD'))
    await expect(openSnapshotFile(directory, SETTINGS, CODE).load()).rejects.toThrow(
      'the items do not match their checksum (3 of 4)',
    )
  })

  it('is refused whole when its header changed', async () => {
    const text = await saveThree()
    await writeFile(path(), text.replace('"episodes-x"', '"episodes-w"'))
    await expect(openSnapshotFile(directory, SETTINGS, CODE).load()).rejects.toThrow(
      'the header does not match its checksum',
    )
  })

  it('names its refused items in one line, the first ten, and counts the rest', () => {
    const refused = Array.from({length: 12}, (_, index) => ({collection: 'voices' as const, documentId: `v-${index}`}))
    expect(describeRefused(refused.slice(0, 1))).toBe(
      '1 saved item(s) do not match their checksum and are left out: voices v-0',
    )
    expect(describeRefused(refused)).toBe(
      `12 saved item(s) do not match their checksum and are left out: ${refused
        .slice(0, 10)
        .map((entry) => `voices ${entry.documentId}`)
        .join(', ')} and 2 more`,
    )
  })
})

describe('temporary files left by a killed save', () => {
  it('are removed when the saved snapshot is loaded, and nothing else is', async () => {
    await openSnapshotFile(directory, SETTINGS, CODE).save(snapshotOf({episodes: [item('x')]}), 'f')
    await writeFile(join(directory, 'snapshot.ndjson.4242.1764190000000.tmp'), 'half a snapshot')
    await writeFile(join(directory, 'purge-queue.json'), '{}')
    expect(await openSnapshotFile(directory, SETTINGS, CODE).load()).toBeDefined()
    expect((await readdir(directory)).sort()).toEqual(['purge-queue.json', 'snapshot.ndjson'])
  })
})
