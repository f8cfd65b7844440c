import escape from 'escape-html'
import {API_V1_PREFIX, COLLECTION_PATTERN, isCollectionName, type CollectionName} from '../../catalog/v1/links.ts'
import {chaptersPath} from '../../catalog/v1/chapters.ts'
import {isTranscriptExtension, transcriptPath} from '../../catalog/v1/transcript.ts'
import {parseChangesRequest} from '../api/v1/changes.ts'
import {parseSearchRequest} from '../api/v1/search.ts'
import {splitTarget} from '../http/request-target.ts'
import {streamOpening} from '../http/event-streams.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'

// The portal's examples: each operation's example URL, the bytes this snapshot serves there, its
// try-it button and code samples, and the event stream's example (a stream has no try-it).

/** Text as inline code, escaped: the portal's and its examples'. */
export const code = (text: string) => `<code>${escape(text)}</code>`

// An OpenAPI path (`/episodes/{slug}.json`) and a list path relative to the API prefix.
const CHAPTERS_OPERATION_PATH = '/episodes/{slug}/chapters.json'
const TRANSCRIPT_OPERATION_PATH = /^\/episodes\/\{slug\}\/transcript\.(vtt|srt|json)$/
export const SEARCH_OPERATION_PATH = '/search.json'
export const CHANGES_OPERATION_PATH = '/changes.json'
/** A stream, not a document: no try-it (a fetch would wait for its end), and none in a static export. */
export const EVENTS_OPERATION_PATH = '/events'
/** The change feed's example: the first change of an initial sync. */
const CHANGES_EXAMPLE = `${API_V1_PREFIX}${CHANGES_OPERATION_PATH}?limit=1`
/** The search example: a Hebrew loanword that finds the English tag (ריאקט finds react). */
const SEARCH_EXAMPLE = `${API_V1_PREFIX}${SEARCH_OPERATION_PATH}?q=${encodeURIComponent('ריאקט')}&limit=3`
const OPERATION_PATH = new RegExp(`^/(${COLLECTION_PATTERN})(/\\{slug\\})?\\.json$`)
const LIST_DOCUMENT_PATH = new RegExp(`^(${COLLECTION_PATTERN})\\.json$`)

/** The URL an operation's example and try-it use: the first item, or a list page of one (the first page where `limit` is not served). */
export function examplePath(path: string, snapshot: Snapshot, staticExport: boolean): string {
  if (path === SEARCH_OPERATION_PATH) return SEARCH_EXAMPLE
  if (path === CHANGES_OPERATION_PATH) return CHANGES_EXAMPLE
  if (path === CHAPTERS_OPERATION_PATH) {
    const chaptered = snapshot.catalog.episodes.find((entry) => entry.value.chapters)
    return `${API_V1_PREFIX}/${chaptersPath(chaptered?.value.slug ?? 'example')}`
  }
  const extension = TRANSCRIPT_OPERATION_PATH.exec(path)?.[1]
  if (isTranscriptExtension(extension)) {
    const transcribed = snapshot.catalog.episodes.find((entry) => entry.transcript)
    return `${API_V1_PREFIX}/${transcriptPath(transcribed?.value.slug ?? 'example', extension)}`
  }
  const [, collection, item] = OPERATION_PATH.exec(path) ?? []
  if (!isCollectionName(collection)) return `${API_V1_PREFIX}${path}`
  if (!item) return `${API_V1_PREFIX}/${collection}.json${staticExport ? '' : '?limit=1'}`
  return `${API_V1_PREFIX}/${collection}/${snapshot.catalog[collection][0]?.value.slug ?? 'example'}.json`
}

const EXAMPLE_CHARACTERS = 5000

/**
 * The bytes this snapshot serves at `url`, pretty-printed and cut to a readable length. The bulk
 * document, which grows with the catalog, is not parsed for that: its example is the same document
 * with the first item of each collection.
 */
function exampleBody(url: string, snapshot: Snapshot): string {
  const {path, query} = splitTarget(url.slice(`${API_V1_PREFIX}/`.length))
  if (path === 'all.json') return pretty(bulkExample(snapshot))
  if (`/${path}` === SEARCH_OPERATION_PATH) {
    // Indexing 100,000 items takes seconds and hundreds of MB: a large catalog is indexed on its
    // first search, in the background, never for this page.
    if (!snapshot.searchIndex.answersAtOnce(snapshot))
      return 'This catalog is large: it is indexed in the background on its first search, so this page shows no answer. Try it below.'
    const search = parseSearchRequest(new URLSearchParams(query))
    const answer = search.ok ? snapshot.searchPage(search.request) : undefined
    return answer?.ready ? pretty(JSON.parse(answer.representation.body.toString('utf8'))) : ''
  }
  if (`/${path}` === CHANGES_OPERATION_PATH) {
    const changes = parseChangesRequest(new URLSearchParams(query))
    const page = changes.ok ? snapshot.changesPage(changes.request) : undefined
    return page?.ok ? pretty(JSON.parse(page.representation.body.toString('utf8'))) : ''
  }
  // WebVTT and SubRip are text: shown as served, cut to the same length.
  if (TEXT_DOCUMENT.test(path)) return cut(snapshot.representation(path)?.body.toString('utf8') ?? '')
  const list = LIST_DOCUMENT_PATH.exec(path)?.[1]
  const representation = query && isCollectionName(list) ? snapshot.listPage(list, {limit: 1, cursor: null}) : undefined
  const body = representation?.ok ? representation.representation.body : snapshot.representation(path)?.body
  return body ? pretty(JSON.parse(body.toString('utf8'))) : ''
}

function bulkExample(snapshot: Snapshot): unknown {
  const first = (name: CollectionName) => snapshot.catalog[name].slice(0, 1).map((entry) => entry.value)
  return {
    data: {episodes: first('episodes'), meetups: first('meetups'), voices: first('voices')},
    counts: snapshot.counts,
  }
}

const TEXT_DOCUMENT = /\.(?:vtt|srt)$/
/** Podcasting 2.0 documents (chapters, a transcript) are served as they are, without the API's `data` envelope. */
const BARE_DOCUMENT = /\/(?:chapters|transcript)\.json$/

const cut = (text: string) => (text.length > EXAMPLE_CHARACTERS ? `${text.slice(0, EXAMPLE_CHARACTERS)}\n…` : text)
const pretty = (value: unknown) => cut(JSON.stringify(value, null, 2))

/** curl, then reading the answer as what it is: the API's envelope, a bare JSON document, or text. */
function codeSamples(url: string): string {
  const path = splitTarget(url).path
  const [javascript, python] = TEXT_DOCUMENT.test(path)
    ? ['const text = await response.text()', 'text = response.read().decode("utf-8")']
    : BARE_DOCUMENT.test(path)
      ? ['const document = await response.json()', 'document = json.load(response)']
      : ['const {data} = await response.json()', 'data = json.load(response)["data"]']
  return `<pre><code>curl -i ${escape(url)}</code></pre>
<pre><code>// JavaScript (browser or Node 18+)
const response = await fetch(${escape(JSON.stringify(url))})
${escape(javascript)}</code></pre>
<pre><code># Python 3
import json, urllib.request
with urllib.request.urlopen(${escape(JSON.stringify(url))}) as response:
    ${escape(python)}</code></pre>`
}

export function tryIt(example: string, id: string, snapshot: Snapshot, base: string): string {
  return `<details class="example" open><summary>Example response: ${code(example)}</summary><pre><code class="example-body">${escape(exampleBody(example, snapshot))}</code></pre></details>
<p><button type="button" data-try="${escape(example)}" data-out="try-${id}">Try it: GET ${escape(decodeURI(example))}</button></p>
<pre class="try-out" id="try-${id}" aria-live="polite"></pre>
<details><summary>Code: curl, JavaScript, Python</summary>${codeSamples(`${base}${example}`)}</details>`
}

/** The stream's opening as this snapshot sends it, and the event an edit of its first episode would send. */
export function eventsExample(url: string, snapshot: Snapshot): string {
  const slug = snapshot.catalog.episodes[0]?.value.slug ?? 'example'
  const event = {version: '…', changes: [{type: 'episode', slug, deleted: false}]}
  const stream = `${streamOpening(snapshot.version)}id: …\ndata: ${JSON.stringify(event)}\n\n`
  return `<details class="example" open><summary>Example stream: ${code(url)}</summary><pre><code class="example-body">${escape(stream)}</code></pre></details>
<details><summary>Code: curl, JavaScript</summary><pre><code>curl -N ${escape(url)}</code></pre>
<pre><code>// A browser's EventSource reconnects by itself, sending Last-Event-ID
const events = new EventSource(${escape(JSON.stringify(url))})
events.onmessage = (event) => console.log(JSON.parse(event.data).changes)</code></pre></details>`
}
