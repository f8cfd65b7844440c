import {mkdir, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {Logger} from 'pino'
import type {Config} from './config.ts'
import {StartFailure, errorMessage} from './errors.ts'

/**
 * One line for an operator whose server could not read its catalog at start: which variable to
 * look at and what to do, never a stack trace. The error's own message is kept, cut short.
 */
export function describeStartFailure(error: unknown, content: Config['content']): string {
  const code = errorCode(error)
  const message = firstLine(error)
  if (content.kind === 'embedded') {
    const file = JSON.stringify(content.datasetFile)
    if (code !== undefined && /^E[A-Z]+$/.test(code)) {
      return `DATASET_FILE: cannot read ${file} (${code}). Point DATASET_FILE at a Sanity NDJSON export (npx sanity dataset export), or leave it unset to serve the embedded sample.`
    }
    return `DATASET_FILE: ${file} could not be read as a Sanity NDJSON export: ${message}`
  }
  const project = `Sanity project "${content.projectId}", dataset "${content.dataset}"`
  const status = statusCode(error)
  if (status === 401 || status === 403) {
    return `SANITY_TOKEN: ${project} refused the request (${status}). Set SANITY_TOKEN to a token with read access (Viewer), or leave it unset for a public dataset.`
  }
  if (status === 404)
    return `SANITY_PROJECT_ID / SANITY_DATASET: ${project} was not found (404). Check both names in sanity.io/manage.`
  if (status !== undefined) return `SANITY_PROJECT_ID: ${project} answered ${status}: ${message}`
  const host = content.apiHost ?? `https://${content.projectId}.api.sanity.io`
  return `SANITY_PROJECT_ID: could not reach ${project} at ${host} (${code ?? message}). Check SANITY_PROJECT_ID${content.apiHost ? ' and SANITY_API_HOST' : ''} and the network.`
}

/** REDIS_URL's line when Redis does not answer at start. */
export function describeRedisFailure(error: unknown): string {
  return `REDIS_URL: ${errorMessage(error)}. Start Redis or correct REDIS_URL.`
}

/** A system error code (`ENOENT`, `ECONNREFUSED`), on the error or on its cause (fetch wraps them). */
function errorCode(error: unknown): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 4;
    current = current.cause, depth++
  ) {
    if ('code' in current && typeof current.code === 'string') return current.code
  }
  return undefined
}

/** The HTTP status of a Sanity client error (`statusCode`), if the request got an answer. */
function statusCode(error: unknown): number | undefined {
  return error instanceof Error && 'statusCode' in error && typeof error.statusCode === 'number'
    ? error.statusCode
    : undefined
}

function firstLine(error: unknown): string {
  const text = errorMessage(error)
  const line = text.split('\n')[0] ?? ''
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}

/** Codes of a directory that exists but refuses writes now (a read-only remount, a full disk): worth serving through. */
// ENOENT: a directory that vanished with its mount (Node's recursive mkdir says ENOENT on a read-only one).
const DISK_REFUSALS = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EIO', 'ENOENT'])

/** What a check of SNAPSHOT_DIR found: a path that can never work stops the start; a disk refusing writes now does not. */
export type SnapshotDirectoryProblem = {stop: string} | {refused: string}

/**
 * A SNAPSHOT_DIR that can never work is a configuration error, said in one line before anything
 * starts (a StartFailure); one that refuses writes now (read-only, full) is served through: said
 * once here, and tried again by the saver and the purge queue. Returns why it refuses, if it does.
 */
export async function checkSnapshotDirectory(directory: string, logger: Logger): Promise<string | undefined> {
  const problem = await snapshotDirectoryProblem(directory)
  if (problem && 'stop' in problem) throw new StartFailure(problem.stop)
  if (problem)
    logger.warn(
      `SNAPSHOT_DIR: cannot write in ${JSON.stringify(directory)} (${problem.refused}); serving without saving the snapshot, the CDN purge queue kept in memory, trying the directory again every 5 s`,
    )
  return problem?.refused
}

/** Makes the directory if missing, then writes and removes a file there: rejects with the file system's error. */
export async function probeDirectory(directory: string): Promise<void> {
  const probe = join(directory, `.write-check-${process.pid}`)
  await mkdir(directory, {recursive: true})
  await writeFile(probe, '')
  await rm(probe)
}

/**
 * Why SNAPSHOT_DIR cannot hold the saved snapshot and the purge queue, or undefined when it can.
 * A path that is no directory (a typo) or that never answers stops the start in one line. A disk
 * that refuses writes (read-only, full, no permission) is `refused`: the server serves without
 * saving, keeps the purge queue in memory and tries again, since the saved snapshot is only an
 * optimisation. Bounded in time: Node's recursive mkdir never settles under /proc, and a start
 * must not hang on it.
 */
export async function snapshotDirectoryProblem(
  directory: string,
  deadlineMs = 5000,
): Promise<SnapshotDirectoryProblem | undefined> {
  const written = probeDirectory(directory)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${deadlineMs} ms`), deadlineMs)
    timer.unref()
  })
  try {
    const problem = await Promise.race([written.then(() => undefined), late])
    return problem === undefined ? undefined : {stop: cannotWrite(directory, problem)}
  } catch (error) {
    const code = errorCode(error)
    if (code !== undefined && DISK_REFUSALS.has(code)) return {refused: `${code}: ${firstLine(error)}`}
    return {stop: cannotWrite(directory, code ?? firstLine(error))}
  } finally {
    clearTimeout(timer)
  }
}

const cannotWrite = (directory: string, why: string) =>
  `SNAPSHOT_DIR: cannot write in ${JSON.stringify(directory)} (${why}). Point SNAPSHOT_DIR at a directory this user can write, or leave it unset.`
