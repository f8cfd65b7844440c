import {pino, type DestinationStream, type Level, type Logger} from 'pino'

export type LogLevel = Level | 'silent'

/**
 * One JSON line per event on stdout (pipe through `npx pino-pretty` to read them by eye). Written
 * asynchronously so logging keeps up with the request rate; pino flushes what is buffered on exit.
 */
export function createLogger(level: LogLevel, destination: DestinationStream = pino.destination({dest: 1, sync: false})): Logger {
  return pino({level, base: {service: 'catalog-api'}, timestamp: pino.stdTimeFunctions.isoTime}, destination)
}
