import {chmod, writeFile} from 'node:fs/promises'
import {parseArgs} from 'node:util'
import {varnishParameters, varnishVcl, type VarnishBackend} from './edge/varnish-vcl.ts'

// npm run edge:vcl -- --backend HOST:PORT [--backend HOST:PORT …] [--purger CIDR …] --out FILE
// Reads CDN_PURGE_TOKEN from the environment (never from the command line, where `ps` shows it);
// writes FILE (mode 0600: it holds the token) and FILE.params, the varnishd -p lines.
function backendOf(value: string): VarnishBackend {
  const match = /^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value)
  const port = Number(match?.[2])
  if (!match?.[1] || !(port > 0 && port < 65536)) throw new Error(`--backend wants HOST:PORT, got ${value}`)
  return {host: match[1], port}
}

try {
  const {values} = parseArgs({options: {backend: {type: 'string', multiple: true}, purger: {type: 'string', multiple: true}, out: {type: 'string'}}})
  if (!values.out) throw new Error('--out FILE is required')
  const token = process.env.CDN_PURGE_TOKEN
  if (!token) throw new Error('set CDN_PURGE_TOKEN (the one the origin purges with)')
  const vcl = varnishVcl({backends: (values.backend ?? []).map(backendOf), purgers: values.purger ?? [], token})
  await writeFile(values.out, vcl, {mode: 0o600})
  await chmod(values.out, 0o600)
  await writeFile(`${values.out}.params`, varnishParameters())
  process.stdout.write(`wrote ${values.out} and ${values.out}.params\n`)
} catch (error) {
  process.stderr.write(`edge:vcl: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
