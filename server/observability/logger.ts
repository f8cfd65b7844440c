import {pino, type DestinationStream, type Level, type Logger} from 'pino'

export type LogLevel = Level | 'silent'

/** What stdout may hold unwritten; past it, lines are dropped (and counted) instead of growing memory. */
const MAX_BUFFERED_LOG_BYTES = 4 * 1024 * 1024
/**
 * Request lines are gathered into a batch, handed to stdout as one write once it holds half this
 * many bytes (the other half is room for the next line), or every FLUSH_INTERVAL_MS when fewer
 * arrive: an access log's buffer. Other lines (start-up, rebuilds, faults) are written at once,
 * after the batch so the order holds.
 */
// A write to stdout costs far more than its bytes, so fewer, larger batches cost requests less
// (figures in bench/results/http.md).
const BATCH_BYTES = 256 * 1024
const FLUSH_INTERVAL_MS = 100

/** The `service` field of every line. */
export const SERVICE = 'catalog-api'

export interface ServerLog {
  logger: Logger
  /** Lines dropped because stdout was not taking them. */
  droppedLines: () => number
  /**
   * Writes out what is buffered, waiting at most `timeoutMs`. What stdout has not taken by then is
   * dropped and reported on stderr, and nothing is written after: a stalled log reader cannot keep
   * the process from exiting (pino's own exit flush would retry a blocked write forever).
   */
  close(timeoutMs: number): Promise<void>
}

/**
 * One JSON line per event on stdout (pipe through `npx pino-pretty` to read them by eye), written
 * asynchronously by pino's destination (sonic-boom). When whatever reads stdout stalls, at most
 * `MAX_BUFFERED_LOG_BYTES` wait, and later lines are dropped and counted: a log must never take the
 * server's memory with it.
 */
export function createStdoutLog(
  level: LogLevel,
  options: {fd?: number; stderr?: (message: string) => void} = {},
): ServerLog {
  // Bytes, not strings: each line is encoded once, into the batch, and no byte is counted or copied
  // again on its way to the descriptor (in text mode, sonic-boom measures and joins every batch anew).
  const stdout = pino.destination({
    dest: options.fd ?? 1,
    sync: false,
    maxLength: MAX_BUFFERED_LOG_BYTES - BATCH_BYTES,
    contentMode: 'buffer',
  })
  // sonic-boom's types declare write(string) only; in contentMode 'buffer' it takes Buffers, and only those.
  const writeBytes = stdout.write.bind(stdout) as unknown as (data: Buffer) => boolean
  const stderr = options.stderr ?? ((message: string) => process.stderr.write(message))
  let dropped = 0
  let handedBytes = 0
  let droppedBytes = 0
  let writtenBytes = 0
  // How many lines the write being handed over holds: a refused batch counts all its lines.
  let handingLines = 1
  stdout.on('drop', (data: Buffer) => {
    dropped += handingLines
    droppedBytes += data.length
  })
  stdout.on('write', (bytes: number) => {
    writtenBytes += bytes
  })
  const hand = (data: Buffer, lines: number) => {
    handedBytes += data.length
    handingLines = lines
    writeBytes(data)
    handingLines = 1
  }

  const batch = Buffer.allocUnsafe(BATCH_BYTES)
  let batchBytes = 0
  let batchLines = 0
  const handBatch = () => {
    if (batchLines === 0) return
    // A copy of what the batch holds, so a stalled stdout keeps only the bytes it was given.
    const data = Buffer.from(batch.subarray(0, batchBytes))
    const lines = batchLines
    batchBytes = 0
    batchLines = 0
    hand(data, lines)
  }
  const flushTimer = setInterval(handBatch, FLUSH_INTERVAL_MS).unref()
  const batched: LineDestination = {
    write(line) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: a line that might not fit goes after the batch.
      const mostBytes = line.length * 3
      if (mostBytes > BATCH_BYTES - batchBytes) handBatch()
      if (mostBytes > BATCH_BYTES) {
        hand(Buffer.from(line), 1)
        return
      }
      batchBytes += batch.write(line, batchBytes)
      batchLines += 1
      if (batchBytes >= BATCH_BYTES / 2) handBatch()
    },
    timeField: isoTimeEachMillisecond(),
  }
  const immediate: DestinationStream = {
    write(line: string) {
      handBatch()
      hand(Buffer.from(line), 1)
    },
  }

  const unwritten = () => handedBytes - droppedBytes - writtenBytes
  const drainedWithin = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      stdout.once('drain', done)
      function done() {
        clearTimeout(timer)
        stdout.off('drain', done)
        resolve()
      }
    })
  let closing: Promise<void> | undefined
  const close = (timeoutMs: number) =>
    (closing ??= (async () => {
      clearInterval(flushTimer)
      handBatch()
      const deadline = Date.now() + timeoutMs
      while (unwritten() > 0 && Date.now() < deadline) await drainedWithin(deadline - Date.now())
      if (unwritten() <= 0) return
      const left = unwritten()
      // Destroyed, the destination is skipped by pino's exit hook, so exiting does not block on it.
      stdout.destroy()
      stderr(
        `${SERVICE}: stdout took no more log within ${timeoutMs} ms; dropped the last ${left} bytes of log lines\n`,
      )
    })())
  return {logger: createLogger(level, immediate, batched), droppedLines: () => dropped, close}
}

/** What request logs need to write lines formatted ahead of time into a logger's own destination. */
export interface LineDestination {
  write(line: string): void
  /** The `,"time":"…"` field as the logger writes it; `monotonicNow` is `performance.now()` when the caller has just read it. */
  timeField: (monotonicNow?: number) => string
}

const lineDestinations = new WeakMap<Logger, LineDestination>()

/** `lines` is where request lines go, when not straight to `destination` (stdout batches them). */
export function createLogger(level: LogLevel, destination: DestinationStream, lines?: LineDestination): Logger {
  const timeField = lines?.timeField ?? isoTimeEachMillisecond()
  const logger = pino({level, base: {service: SERVICE}, timestamp: timeField}, destination)
  lineDestinations.set(logger, lines ?? {write: (line) => destination.write(line), timeField})
  return logger
}

/** The destination of a logger made by `createLogger`, for lines that bypass pino's serialisation. */
export function lineDestinationOf(logger: Logger): LineDestination | undefined {
  return lineDestinations.get(logger)
}

/**
 * pino's ISO `time` field, formatted once per millisecond rather than once per line, since
 * formatting a date is a visible share of a request's logging cost. The millisecond is told by a monotonic reading the caller
 * may already hold (a request line has one for its duration), so most lines read no clock here.
 */
function isoTimeEachMillisecond(): (monotonicNow?: number) => string {
  let formattedIn = Number.NaN
  let field = ''
  return (monotonicNow = performance.now()) => {
    const millisecond = Math.floor(monotonicNow)
    if (millisecond !== formattedIn) {
      formattedIn = millisecond
      field = `,"time":"${new Date().toISOString()}"`
    }
    return field
  }
}
