// deploy/catalog-api@.service, the unit docs/production.md installs: systemd's own checker accepts
// it (where systemd-analyze is installed), and it starts what `npm start` starts.
import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {START_ARGUMENTS, START_ENV} from '../../support/start-command.ts'
import {loadConfig} from '../../server/config.ts'

const UNIT = 'deploy/catalog-api@.service'
const INSTALLED_AT = '/srv/catalog-api'
const unit = await readFile(UNIT, 'utf8')
const setting = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map(([, value = '']) => value)

describe('the systemd unit', () => {
  // systemd-analyze comes with systemd, which containers often lack; CI's Debian image has it.
  it.runIf(existsSync('/usr/bin/systemd-analyze'))(
    'passes systemd-analyze verify, installed where this checkout is',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'catalog-unit-'))
      try {
        // verify checks that ExecStart exists: point the unit at this checkout's node.
        const file = join(directory, 'catalog-api@.service')
        await writeFile(file, unit.replaceAll(INSTALLED_AT, resolve('.')))
        const {stderr} = await promisify(execFile)('systemd-analyze', ['verify', file], {timeout: 60_000})
        expect(stderr).toBe('')
      } finally {
        await rm(directory, {recursive: true, force: true})
      }
    },
  )

  it("runs the project's own Node with the flags and environment of npm start, so the two cannot drift", () => {
    expect(setting('ExecStart')).toEqual([`${INSTALLED_AT}/node_modules/.bin/node ${START_ARGUMENTS.join(' ')}`])
    const environment = setting('Environment').flatMap((line) => line.split(' '))
    for (const [name, value] of Object.entries(START_ENV)) expect(environment).toContain(`${name}=${value}`)
    expect(setting('WorkingDirectory')).toEqual([INSTALLED_AT])
  })

  it('shares the port between replicas and gives the shutdown drain room to finish', () => {
    expect(setting('Environment').join(' ')).toMatch(/\bREUSE_PORT=true\b/)
    const stopSeconds = Number(setting('TimeoutStopSec')[0])
    expect(stopSeconds).toBeGreaterThan(loadConfig({}).shutdownTimeoutSeconds)
  })
})
