import {ensureDebianProgram} from './debian.ts'

/** Debian's chromium (never a downloaded browser build). */
export function ensureChromium(): string {
  return ensureDebianProgram('/usr/bin/chromium', ['chromium'])
}
