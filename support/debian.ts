import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'

/**
 * A program from Debian's packages, installed on the spot when missing and we may (as root, with
 * apt-get). `.ci/run` installs them beforehand; this keeps a plain `npm test` working too.
 */
export function ensureDebianProgram(program: string, packages: readonly string[]): string {
  if (existsSync(program)) return program
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')
  if (!canInstall)
    throw new Error(
      `${program} is missing: install Debian's ${packages.join(' ')} (sudo apt-get install ${packages.join(' ')})`,
    )
  const apt = (...args: string[]) =>
    execFileSync('apt-get', args, {stdio: 'ignore', env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'}})
  apt('update', '-qq')
  apt('install', '-y', '-qq', ...packages)
  return program
}
