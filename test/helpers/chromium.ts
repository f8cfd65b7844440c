import {chromium, type Browser} from 'playwright-core'
import {ensureDebianProgram} from '../../support/debian.ts'

/** Debian's chromium (never a downloaded browser build). */
export function ensureChromium(): string {
  return ensureDebianProgram('/usr/bin/chromium', ['chromium'])
}

/** Debian's chromium, headless and quiet: no sandbox, GPU, background requests, updates or first-run pages. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  })
}
