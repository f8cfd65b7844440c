import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {chmod, chown, mkdir, writeFile} from 'node:fs/promises'
import {delimiter, dirname, join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import {
  edgeAddressWarning,
  varnishdCommand,
  varnishParameters,
  varnishVcl,
  type VarnishBackend,
} from './edge/varnish-vcl.ts'
import {errorMessage} from './errors.ts'

// npm run edge:vcl -- --backend HOST:PORT [--backend HOST:PORT …] [--purger CIDR …] [--operator-acl CIDR,…] --out FILE [--listen :80] [--storage malloc,1g]
// Reads CDN_PURGE_TOKEN from the environment (never from the command line, where `ps` shows it);
// writes FILE (mode 0640, group varnish: it holds the token, and varnishd reads it as that group)
// and FILE.params, the varnishd -p lines, then prints the varnishd command.
function backendOf(value: string): VarnishBackend {
  const match = /^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value)
  const port = Number(match?.[2])
  if (!match?.[1] || !(port > 0 && port < 65536)) throw new Error(`--backend wants HOST:PORT, got ${value}`)
  return {host: match[1], port}
}

/** The varnish group's id, from the system's group database (which may not be /etc/group). */
function varnishGroupId(): number | undefined {
  try {
    const gid = Number(execFileSync('getent', ['group', 'varnish'], {encoding: 'utf8'}).split(':')[2])
    return Number.isInteger(gid) ? gid : undefined
  } catch {
    return undefined
  }
}

/** varnishd's absolute path: Debian installs it in /usr/sbin, which a user's PATH often lacks. */
function varnishdProgram(): string {
  const directories = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin']
  return (
    directories
      .map((directory) => join(directory, 'varnishd'))
      .find((path) => path.startsWith('/') && existsSync(path)) ?? 'varnishd'
  )
}

try {
  const {values} = parseArgs({
    options: {
      backend: {type: 'string', multiple: true},
      purger: {type: 'string', multiple: true},
      'operator-acl': {type: 'string', multiple: true},
      out: {type: 'string'},
      listen: {type: 'string', default: ':80'},
      storage: {type: 'string', default: 'malloc,1g'},
    },
  })
  if (!values.out) throw new Error('--out FILE is required')
  const token = process.env.CDN_PURGE_TOKEN
  if (!token) throw new Error('set CDN_PURGE_TOKEN (the one the origin purges with)')
  const vcl = varnishVcl({
    backends: (values.backend ?? []).map(backendOf),
    purgers: values.purger ?? [],
    operators: values['operator-acl'] ?? [],
    token,
  })
  const vclFile = resolve(values.out)
  const parametersFile = `${vclFile}.params`
  await mkdir(dirname(vclFile), {recursive: true})
  await writeFile(vclFile, vcl, {mode: 0o600})
  const gid = varnishGroupId()
  let readableBy =
    'its owner only: varnishd, which reads it as the varnish group, will say "Permission denied" unless it runs with -j none'
  if (gid === undefined) {
    await chmod(vclFile, 0o600)
    readableBy +=
      " (there is no varnish group here: install Debian's varnish package, or chgrp the file to the group varnishd runs as, then chmod 0640)"
  } else {
    try {
      await chown(vclFile, -1, gid)
      await chmod(vclFile, 0o640)
      readableBy = 'its owner and the varnish group'
    } catch (error) {
      await chmod(vclFile, 0o600)
      readableBy += ` (chgrp varnish failed: ${error instanceof Error && 'code' in error ? String(error.code) : String(error)}; run: sudo chgrp varnish ${vclFile} && sudo chmod 0640 ${vclFile})`
    }
  }
  await writeFile(parametersFile, varnishParameters())
  const command = varnishdCommand({
    program: varnishdProgram(),
    listen: values.listen,
    storage: values.storage,
    vclFile,
    parametersFile,
  })
  process.stdout.write(
    [
      `wrote ${vclFile} (readable by ${readableBy}) and ${parametersFile}`,
      'start Varnish with:',
      `  ${command}`,
      "Run the origin with PUBLIC_BASE_URL set to the edge's public address (what clients type), not the origin's: every link it writes is cached by the edge as it is.",
      '',
    ].join('\n'),
  )
  const warning = edgeAddressWarning(process.env.PUBLIC_BASE_URL || undefined, process.env.CDN_PURGE || undefined)
  if (warning) process.stderr.write(`warning: ${warning}\n`)
} catch (error) {
  process.stderr.write(`edge:vcl: ${errorMessage(error)}\n`)
  process.exit(1)
}
