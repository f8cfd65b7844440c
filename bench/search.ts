// npm run bench:search: questions as listeners ask them, in Hebrew, loanwords included, each with
// the one item that answers it; the hit rate is how often that item comes first (and in the top 3),
// before transcripts were searched (the same catalog with every episode's transcript left out) and
// after. Paraphrases share no word with their answer's title and description (the bench checks it
// with the search's own analysis); those marked `transcript` are answered by a transcript alone.
// Prints the results; `-- --write` also writes them to bench/results/search.md (committed, so a run
// to look does not change the tree). Runs on the embedded sample through the real snapshot builder.
import {writeFile} from 'node:fs/promises'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedFileSource} from '../server/content/embedded-source.ts'
import FlexSearch from 'flexsearch'
import {termsOf} from '../server/snapshot/hebrew-analysis.ts'
import {words} from '../server/snapshot/hebrew-text.ts'
import {searchCatalog, type SearchHit} from '../server/snapshot/search.ts'
import {
  FIELD_BOOST,
  queryAnalyser,
  SEARCH_FIELDS,
  searchDocuments,
  transcriptText,
  type SearchDocument,
} from '../server/snapshot/search-documents.ts'
import {SearchIndex, type Searched} from '../server/snapshot/search-index.ts'
import {catalogSnapshotBuilder} from '../server/catalog-builder.ts'
import {cuesOf} from '../catalog/v1/transcript.ts'

/** `paraphrase`: no word in common with the answer's title and description; `transcript`: a paraphrase only a transcript answers. */
type Kind = 'keyword' | 'paraphrase' | 'transcript'

// A transcript paraphrase names the second its answer starts at (its cue's start), to see if the hit's cue is there.
const QUESTIONS: [question: string, wanted: string, kind?: Kind, answerAt?: number][] = [
  // The first twelve (2026-11-23).
  ['איזה פרק מדבר על ריאקט?', 'ep-2-react-server-components'],
  ['יש פרק על נגישות של טפסים?', 'ep-28-accessible-forms'],
  ['איך עושים רולבק לדיפלוי?', 'ep-19-reversible-deploys'],
  ['למידת מכונה בטלפון בלי לשלוח מידע לענן', 'ep-27-on-device-ml'],
  ['כמה עולה ניטור בענן', 'ep-29-observability-costs'],
  ['הרצאה על קפקא', 'kafka-lag'],
  ['איך מריצים מיגרציה על טבלה ענקית', 'ep-3-schema-migrations'],
  ['בדיקות אנד טו אנד עם פליירייט', 'ep-23-e2e-that-works'],
  ['מודלים של בינה מלאכותית בתוך מכונית', 'ep-16-models-in-cars'],
  ['איך לקבל וובהוקים בצורה בטוחה', 'ep-31-webhooks-done-right'],
  ['ממשק מימין לשמאל', 'ep-11-rtl-interfaces'],
  ['מי מומחה לקוברנטיס?', 'boaz-klein'],
  // More keywords.
  ['פרק על רדיס', 'ep-24-redis-internals'],
  ['פרק על זיהוי הונאות', 'ep-9-realtime-fraud'],
  ['איך בונים סבב תורנות', 'ep-8-on-call'],
  ['אבטחת חבילות npm', 'ep-4-supply-chain-security'],
  ['האם ראסט תחליף את סי פלוס פלוס?', 'ep-10-modern-cpp'],
  ['באיזה פורמט תמונה להשתמש, WebP או AVIF?', 'ep-20-image-formats'],
  ['ממנהל צוות למנהל מנהלים', 'ep-14-manager-of-managers'],
  ['צוותי פלטפורמה וחוויית מפתחים', 'ep-25-platform-teams'],
  ['מי מומחה לבדיקות קצה לקצה?', 'keren-amsalem'],
  ['מי עובד במובילאיי?', 'hila-nachum'],
  ['באיזה מיקרופון אתם מקליטים?', 'bonus-listener-questions'],
  ['סיכום שנת 2025', 'bonus-year-in-review-2025'],
  ['מעבר למערכת ניהול תוכן', 'ep-30-headless-cms-migration'],
  // Paraphrases: what other fields (takeaways, FAQ, tags, guests) may still say.
  ['איך נמנעים מעיבוד כפול של אותו משלוח?', 'ep-31-webhooks-done-right', 'paraphrase'],
  ['לכמה זמן כדאי להחזיק לוגים מפורטים?', 'ep-29-observability-costs', 'paraphrase'],
  ['איך משתמש עיוור מגלה שמילא משהו לא נכון בהרשמה?', 'ep-28-accessible-forms', 'paraphrase'],
  ['איך מריצים רשת נוירונים על אייפון בלי חיבור לאינטרנט?', 'ep-27-on-device-ml', 'paraphrase'],
  ['איך מעבירים רק אחוז קטן מהתנועה לשרתים החדשים?', 'ep-19-reversible-deploys', 'paraphrase'],
  ['איך מוסיפים עמודה בפוסטגרס בלי להוריד את האתר?', 'ep-3-schema-migrations', 'paraphrase'],
  ['האם כל טסט אוטומטי בדפדפן צריך דאטה משלו?', 'ep-23-e2e-that-works', 'paraphrase'],
  ['איך מגישים למשתמשים תוכן ישן בזמן שהעדכון נטען ברקע?', 'ep-22-cache-invalidation', 'paraphrase'],
  ['האם כדאי לחלק מערכת אחת גדולה להרבה מערכות קטנות?', 'ep-17-when-not-to-split', 'paraphrase'],
  ['איך גורמים לזיהוי הולכי רגל לרוץ מהר על החומרה של מכונית?', 'ep-16-models-in-cars', 'paraphrase'],
  ['התקדמתי לתפקיד שבו אני אחראי על ראשי קבוצות. מה משתנה?', 'ep-14-manager-of-managers', 'paraphrase'],
  ['איך גורמים לאפ שלנו להיפתח מהר בסמארטפונים זולים?', 'ep-13-android-performance', 'paraphrase'],
  ['איך מנתחים הקלטות אודיו של אלפי לקוחות בכל שעה?', 'ep-12-audio-at-scale', 'paraphrase'],
  ['תוכנה לטילים שאסור לה לקרוס', 'ep-10-modern-cpp', 'paraphrase'],
  ['איך תופסים שימוש בכרטיס אשראי גנוב ברגע התשלום?', 'ep-9-realtime-fraud', 'paraphrase'],
  ['איך לא להישבר מזה שמעירים אותי בלילה בגלל תקלות?', 'ep-8-on-call', 'paraphrase'],
  ['האם צאטבוטים כמו GPT מבינים טוב את הלשון שלנו?', 'ep-7-hebrew-nlp', 'paraphrase'],
  ['איך מציגים אותו מאמר גם באתר וגם באפליקציה בלי לשכפל?', 'ep-6-structured-content', 'paraphrase'],
  ['מה עושים אם ספרייה מ-npm הותקנה עם קוד עוין?', 'ep-4-supply-chain-security', 'paraphrase'],
  ['איך גורמים למהנדסים בחברה לאמץ כלים שאנחנו בונים בשבילם?', 'ep-25-platform-teams', 'paraphrase'],
  ['האם כלי AI יחליפו את מי שבודק פול ריקווסטים?', 'ep-26-ai-code-review', 'paraphrase'],
  ['כמה כסף עולה להריץ GPT בפרודקשן?', 'ep-21-inference-economics', 'paraphrase'],
  ['איך מראים גרף עם הרבה מאוד דאטה בלי שהעמוד יקרוס?', 'ep-18-data-visualization', 'paraphrase'],
  ['איך עוברים מוורדפרס לסניטי בלי לשבור לינקים?', 'ep-30-headless-cms-migration', 'paraphrase'],
  ['כמה פרטישנים כדאי לפתוח לכל טופיק?', 'kafka-lag', 'paraphrase'],
  ['מי מהאורחים מתכנת באייפון בשפת סוויפט?', 'yossi-cohen', 'paraphrase'],
  ['מי מהמרואיינים מתכנת בקוטלין?', 'lior-segal', 'paraphrase'],
  ['מי מהאורחים מכיר את וארניש ואנגינקס?', 'ofir-zaken', 'paraphrase'],
  // Paraphrases of what only a transcript says.
  ['כמה מפתחות נדגמים כשצריך לפנות מקום?', 'ep-24-redis-internals', 'transcript', 6],
  ['למה פעולה איטית אחת עוצרת את כל השרת?', 'ep-24-redis-internals', 'transcript', 50.1],
  ['למה טלפון שמופיע באמצע משפט מתהפך?', 'ep-11-rtl-interfaces', 'transcript', 19.5],
  ['איך מציגים כינוי של משתמש שלא ידוע באיזו שפה נכתב?', 'ep-11-rtl-interfaces', 'transcript', 33.2],
  ['למה ההקראה הקולית נשמעת במבטא זר?', 'ep-11-rtl-interfaces', 'transcript', 45],
  ['איך נמנעים משליחת ספריית תאריכים כבדה למשתמש?', 'ep-2-react-server-components', 'transcript', 41.3],
  ['איפה צריך להריץ קוד שמגיב לגרירה ולהקלדה?', 'ep-2-react-server-components', 'transcript', 63.4],
]
const MIN_QUESTIONS = 40
const MIN_PARAPHRASES = 20
const MIN_TRANSCRIPT = 5

const config = loadConfig({PUBLIC_BASE_URL: 'https://api.example.org'})
const snapshot = await catalogSnapshotBuilder({
  source: createEmbeddedFileSource('data/catalog.ndjson'),
  config,
  clock: () => new Date(),
})(undefined, {kind: 'all'})
// Before: the search as it was without transcripts, over the same catalog.
const withoutTranscripts: Searched = {
  catalog: {
    ...snapshot.catalog,
    episodes: snapshot.catalog.episodes.map((entry) => ({...entry, transcript: undefined})),
  },
  version: `${snapshot.version}-without-transcripts`,
  history: {since: () => undefined},
  searchIndex: new SearchIndex(),
}

// The questions are checked before anything is measured.
const documents = searchDocuments(snapshot.catalog)
const analyseQuery = queryAnalyser(documents.map((document) => document.tags))
const termsIn = (text: string) => new Set(words(text).flatMap(termsOf))
/** What the question is searched as: each word's terms and, for a loanword, its English and Hebrew words. */
const questionTerms = (question: string) => new Set(words(question).flatMap(analyseQuery))
const {episodes, meetups, voices} = snapshot.catalog
const titleAndDescription = new Map([
  ...episodes.map(({value}) => [value.slug, `${value.title} ${value.description}`] as const),
  ...meetups.map(({value}) => [value.slug, `${value.title} ${value.abstract ?? ''}`] as const),
  ...voices.map(({value}) => [value.slug, `${value.name} ${value.role} ${value.bio}`] as const),
])
const documentOf = new Map(documents.map((document) => [document.slug, document]))
const shared = (terms: ReadonlySet<string>, text: string) => [...termsIn(text)].filter((term) => terms.has(term))
const faults: string[] = []
for (const [question, wanted, kind = 'keyword', answerAt] of QUESTIONS) {
  const answer = titleAndDescription.get(wanted)
  const document = documentOf.get(wanted)
  if (answer === undefined || !document) {
    faults.push(`"${question}": no published item is ${wanted}`)
    continue
  }
  if (kind === 'keyword') continue
  const terms = questionTerms(question)
  const inAnswer = shared(terms, answer)
  if (inAnswer.length > 0)
    faults.push(
      `"${question}" is marked ${kind} but shares ${inAnswer.join(', ')} with ${wanted}'s title and description`,
    )
  if (kind !== 'transcript') continue
  const elsewhere = (['title', 'tags', 'people', 'takeaways', 'body'] as const).flatMap((field) =>
    shared(terms, document[field]),
  )
  if (elsewhere.length > 0)
    faults.push(`"${question}" is marked transcript but shares ${elsewhere.join(', ')} with ${wanted}'s other fields`)
  const answering = document.transcript && cuesOf(document.transcript).find((cue) => cue.start === answerAt)
  if (!answering)
    faults.push(`"${question}": ${wanted}'s transcript has no cue starting at ${answerAt ?? '(none given)'}`)
  else if (shared(terms, answering.text).length === 0)
    faults.push(`"${question}" shares no word with the cue of ${wanted}'s transcript at ${answering.start}`)
}
const paraphrases = QUESTIONS.filter(([, , kind]) => kind === 'paraphrase' || kind === 'transcript').length
const fromTranscripts = QUESTIONS.filter(([, , kind]) => kind === 'transcript').length
if (QUESTIONS.length < MIN_QUESTIONS) faults.push(`${QUESTIONS.length} questions, fewer than ${MIN_QUESTIONS}`)
if (paraphrases < MIN_PARAPHRASES) faults.push(`${paraphrases} paraphrases, fewer than ${MIN_PARAPHRASES}`)
if (fromTranscripts < MIN_TRANSCRIPT)
  faults.push(`${fromTranscripts} transcript paraphrases, fewer than ${MIN_TRANSCRIPT}`)
if (faults.length > 0) {
  console.error(`bench/search.ts: the questions break their own rules:\n${faults.join('\n')}`)
  process.exit(1)
}

const COLLECTIONS = ['episodes', 'meetups', 'voices'] as const
// Each index is built once, outside the timings.
await snapshot.searchIndex.ready(snapshot)
await withoutTranscripts.searchIndex.ready(withoutTranscripts)
const median = (timings: readonly number[]) => [...timings].sort((a, b) => a - b)[Math.floor(timings.length / 2)] ?? 0

interface Run {
  rank: number
  hits: SearchHit[]
}
function run(searched: Searched, timings: number[]): Run[] {
  return QUESTIONS.map(([question, wanted]) => {
    const started = performance.now()
    // Every hit, so that an answer ranked past the API's page still has its rank.
    const answer = searchCatalog(searched, question, COLLECTIONS, Number.POSITIVE_INFINITY)
    timings.push(performance.now() - started)
    const hits = answer.ready ? answer.hits : []
    return {rank: hits.findIndex((hit) => hit.slug === wanted) + 1, hits}
  })
}
const beforeTimings: number[] = []
const afterTimings: number[] = []
const before = run(withoutTranscripts, beforeTimings)
const after = run(snapshot, afterTimings)

// Every field searched, the transcript (its own index in the server, boost 1) included.
const FIELDS = [...SEARCH_FIELDS, 'transcript'] as const
const BOOST = {...FIELD_BOOST, transcript: 1}
const fieldText = (document: SearchDocument, field: (typeof FIELDS)[number]) =>
  field !== 'transcript' ? document[field] : document.transcript ? transcriptText(document.transcript) : ''

// The same questions through FlexSearch with the same analysis and field boosts: one index per
// field (FlexSearch ranks, it does not score), ranks combined as boost / (rank + 1).
const fieldIndexes = FIELDS.map((field) => {
  const index = new FlexSearch.Index({tokenize: 'strict', encode: (text: string) => words(text).flatMap(termsOf)})
  documents.forEach((document, position) => index.add(position, fieldText(document, field)))
  return {field, index}
})
const flexTimings: number[] = []
const flexRanks = QUESTIONS.map(([question, wanted]) => {
  const started = performance.now()
  const expanded = words(question).flatMap(analyseQuery).join(' ')
  const scores = new Map<number, number>()
  for (const {field, index} of fieldIndexes) {
    const ranked = index.search(expanded, {limit: 50, suggest: true})
    ranked.forEach((id, rank) => {
      const number = Number(id)
      scores.set(number, (scores.get(number) ?? 0) + BOOST[field] / (rank + 1))
    })
  }
  const order = [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => documents[id]?.slug)
  flexTimings.push(performance.now() - started)
  return order.indexOf(wanted) + 1
})

const GROUPS: [name: string, kinds: readonly Kind[]][] = [
  ['all', ['keyword', 'paraphrase', 'transcript']],
  ['keywords', ['keyword']],
  ['paraphrases (transcript ones included)', ['paraphrase', 'transcript']],
  ['transcript paraphrases', ['transcript']],
]
const kindOf = (index: number) => QUESTIONS[index]?.[2] ?? 'keyword'
const count = (ranks: readonly number[], kinds: readonly Kind[], best: number) =>
  ranks.filter((rank, index) => kinds.includes(kindOf(index)) && rank >= 1 && rank <= best).length
const beforeRanks = before.map(({rank}) => rank)
const afterRanks = after.map(({rank}) => rank)
const summary = GROUPS.map(([name, kinds]) => {
  const total = QUESTIONS.filter((_, index) => kinds.includes(kindOf(index))).length
  const cells = [beforeRanks, afterRanks].flatMap((ranks) => [count(ranks, kinds, 1), count(ranks, kinds, 3)])
  return `| ${name} | ${total} | ${cells.map((cell) => `${cell} (${Math.round((cell / total) * 100)}%)`).join(' | ')} | ${count(flexRanks, kinds, 1)} / ${count(flexRanks, kinds, 3)} |`
})
const cueOf = (index: number) => {
  const [, wanted] = QUESTIONS[index] ?? []
  return after[index]?.hits.find((hit) => hit.slug === wanted)?.cue ?? undefined
}
const cuesAtAnswer = QUESTIONS.filter(
  ([, , kind, answerAt], index) => kind === 'transcript' && cueOf(index)?.start_seconds === answerAt,
).length
const rows = QUESTIONS.map(([question, wanted, kind = 'keyword', answerAt], index) => {
  const {rank, hits} = after[index] ?? {rank: 0, hits: []}
  const cue = cueOf(index)
  const at = kind === 'transcript' ? `${cue?.start_seconds ?? 'none'} (answer ${answerAt})` : (cue?.start_seconds ?? '')
  const top = hits
    .slice(0, 3)
    .map((hit) => `\`${hit.slug}\``)
    .join(', ')
  return `| ${question} | ${kind} | \`${wanted}\` | ${before[index]?.rank || '-'} | ${rank || '-'} | ${at} | ${top} |`
})
// A failing paraphrase either shares no term with any field of its answer (only a synonym could find
// it) or does and is ranked below others.
const failing = QUESTIONS.flatMap(([question, wanted, kind], index) => {
  const rank = afterRanks[index] ?? 0
  if (!kind || kind === 'keyword' || (rank >= 1 && rank <= 3)) return []
  const document = documentOf.get(wanted)
  const terms = questionTerms(question)
  const anywhere = document && FIELDS.some((field) => shared(terms, fieldText(document, field)).length > 0)
  return [
    `${question} (${rank ? `rank ${rank}` : 'not found'}${anywhere ? '' : ', no term in any field of the answer'})`,
  ]
})

const report = `# Search benchmark

\`npm run bench:search\` on ${new Date().toISOString().slice(0, 10)}: ${QUESTIONS.length} questions phrased as listeners ask them (not titles), over the sample catalog, each with the one item that answers it.
${paraphrases} of them are **paraphrases**: no term of the question (its words as the search analyses them,
\`termsOf\` of hebrew-analysis.ts, with the English and Hebrew words a loanword is searched as) is a term
of the answer's title and description (an episode's title and description, a meetup's title and abstract,
a voice's name, role and bio). The bench checks this and stops, naming the question, when one breaks it.
A paraphrase can still be found by the fields it was not checked against: tags (a voice's tech stack),
takeaways, FAQ, guests' names, the transcript; and prefix and typo matching can still reach a title word
that is not the same term. ${fromTranscripts} paraphrases (\`transcript\`) ask what only a transcript says: the bench
checks that they share no term with any other field of the answer and at least one with the cue that says the answer.

**Before** is the search without transcripts (the same catalog with every episode's transcript left out,
its own index); **after** is the search as it is, transcripts included. Wanted item first, and in the top three:

| questions | count | first, before | top three, before | first, after | top three, after | FlexSearch (after): first / top three |
|---|---|---|---|---|---|---|
${summary.join('\n')}

For ${cuesAtAnswer} of the ${fromTranscripts} transcript paraphrases, the wanted hit's cue starts where the answer is said.
Median query time: ${median(beforeTimings).toFixed(2)} ms before, ${median(afterTimings).toFixed(2)} ms after.
Paraphrases not in the top three after: ${failing.length === 0 ? 'none' : failing.join('; ')}.

The engine is MiniSearch (BM25+, field boosts, fuzzy and prefix matching) with the Hebrew analysis in
\`server/snapshot/hebrew-analysis.ts\`. Measured on the first twelve questions on 2026-11-23, the hand-rolled
index it replaced put the wanted item first for 7 of 12 (9 in the top three; 0.06 ms a query): it missed
רולבק/דיפלוי (rank 4), קפקא (6), קוברנטיס (not found), and ranked נגישות below a page about formats.
FlexSearch 0.8 with the same analysis and boosts (one index per field, transcripts included, ranks combined):
median ${median(flexTimings).toFixed(2)} ms. MiniSearch was chosen: it scores (BM25+) rather than only ranking, so fields
combine by score, and it has typo and prefix matching per term built in. Orama was not measured.

Ranks are the wanted item's place (- when not found); cue is the second where the wanted hit's transcript
match starts (its \`cue.start_seconds\`), with the second of the cue that answers a transcript paraphrase;
the top three are after.

| question | kind | wanted | before | after | cue | top three |
|---|---|---|---|---|---|---|
${rows.join('\n')}
`
const RESULTS = 'bench/results/search.md'
console.log(report)
if (process.argv.includes('--write')) {
  await writeFile(RESULTS, report)
  console.log(`wrote ${RESULTS}`)
} else console.log(`${RESULTS} is unchanged: \`npm run bench:search -- --write\` writes these results there`)
