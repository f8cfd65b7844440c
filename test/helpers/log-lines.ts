import {pino, type Logger} from 'pino'

/** A log line as pino writes it, parsed. */
export interface LogLine {
  level: number
  msg: string
  component?: string
  err?: {message: string}
}

const LEVELS = {info: 30, warn: 40, error: 50} as const

/** A real pino logger whose lines a test reads back: what a module logs for itself. */
export function recordingLogger(): {
  logger: Logger
  lines: LogLine[]
  messages: (level?: keyof typeof LEVELS) => string[]
} {
  const lines: LogLine[] = []
  const logger = pino({level: 'info'}, {write: (line: string) => void lines.push(JSON.parse(line) as LogLine)})
  const messages = (level?: keyof typeof LEVELS) =>
    lines.filter((line) => level === undefined || line.level === LEVELS[level]).map((line) => line.msg)
  return {logger, lines, messages}
}
