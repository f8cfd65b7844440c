/**
 * What to tell the operator when the export's links will not point where it is served: every link
 * is written from PUBLIC_BASE_URL, whose default (`http://localhost:3000`) suits `npm start`, not an
 * nginx listening elsewhere. A public address behind a proxy is the operator's to know; only a
 * missing setting, or a loopback one on another port, is surely wrong.
 */
export function exportAddressWarning(
  publicBaseUrl: string,
  publicBaseUrlSet: boolean,
  listen: string,
): string | undefined {
  const port = /(?:^|:)(\d+)$/.exec(listen)?.[1]
  if (!publicBaseUrlSet) {
    return `PUBLIC_BASE_URL is not set, so every link in the export points at ${publicBaseUrl}; set it to the address clients will use (http://127.0.0.1:${port ?? '8080'} to try it here).`
  }
  const url = new URL(publicBaseUrl)
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  const publicPort = url.port || (url.protocol === 'https:' ? '443' : '80')
  if (loopback && port !== undefined && publicPort !== port) {
    return `PUBLIC_BASE_URL is ${publicBaseUrl}, but the export listens on ${listen}: its links point at port ${publicPort}. Set PUBLIC_BASE_URL to the address clients will use.`
  }
  return undefined
}
