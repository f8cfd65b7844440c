import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'

export const CHROMIUM = '/usr/bin/chromium'

/** Debian's chromium, installed on the spot when missing and we may (as root, with apt-get). */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')
  if (!canInstall) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (sudo apt-get install chromium)`)
  const apt = (...args: string[]) => execFileSync('apt-get', args, {stdio: 'ignore', env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'}})
  apt('update', '-qq')
  apt('install', '-y', '-qq', 'chromium')
  return CHROMIUM
}
