// `npm run export -- --out DIR`: the catalog as static files plus an nginx configuration that
// serves them as the origin does. Reads the same environment as `npm start`.
import {existsSync} from 'node:fs'
import {mkdir, rm, writeFile} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import {loadConfig} from './config.ts'
import {createSource} from './content/create-source.ts'
import {exportAddressWarning} from './export/address-warning.ts'
import {nginxConfig} from './export/nginx-config.ts'
import {staticFiles} from './export/static-files.ts'
import {writeExport} from './export/write-export.ts'
import {catalogSnapshotBuilder} from './catalog-builder.ts'

const DEBIAN_BROTLI_MODULE = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so'

const {values} = parseArgs({
  options: {
    out: {type: 'string'},
    // Loopback unless told otherwise: an export is tried here before it is exposed.
    listen: {type: 'string', default: '127.0.0.1:8080'},
    'brotli-module': {type: 'string', default: existsSync(DEBIAN_BROTLI_MODULE) ? DEBIAN_BROTLI_MODULE : ''},
  },
})
if (!values.out) {
  console.error('usage: npm run export -- --out DIR [--listen 127.0.0.1:8080] [--brotli-module PATH]')
  process.exit(2)
}

const config = loadConfig(process.env)
const addressWarning = exportAddressWarning(config.publicBaseUrl, Boolean(process.env.PUBLIC_BASE_URL), values.listen)
if (addressWarning) console.warn(`warning: ${addressWarning}`)
const started = performance.now()
const snapshot = await catalogSnapshotBuilder({
  source: createSource(config.content),
  config,
  clock: () => new Date(),
  staticExport: true,
})(undefined, {kind: 'all'})
await snapshot.warm()
const root = resolve(values.out)
const siteRoot = join(root, 'site')
await rm(siteRoot, {recursive: true, force: true})
const files = staticFiles(snapshot)
const summary = await writeExport(siteRoot, files)
await mkdir(join(root, 'tmp'), {recursive: true})
const brotliModule = values['brotli-module'] || undefined
await writeFile(
  join(root, 'nginx.conf'),
  nginxConfig(files, {
    root: siteRoot,
    listen: values.listen,
    publicBaseUrl: config.publicBaseUrl,
    lifecycle: config.lifecycle,
    brotliModule,
  }),
)
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(
  `Exported ${summary.files} representations (${(summary.bytes / 1e6).toFixed(1)} MB before compression) to ${siteRoot} in ${seconds} s`,
)
console.log(`Serve them: nginx -p ${root} -c ${join(root, 'nginx.conf')} -g 'daemon off;'`)
