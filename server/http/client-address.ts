import type {IncomingMessage} from 'node:http'
import {ipKeyGenerator} from 'express-rate-limit'
import proxyAddr from 'proxy-addr'

/**
 * The address a request came from: the socket's peer, or, behind proxies the operator trusts
 * (`TRUST_PROXY`), the nearest untrusted address in X-Forwarded-For, as Express's `trust proxy`
 * computes it. A client can never pick its own address by sending the header.
 */
export function clientAddressResolver(trustProxy: number | string[] | undefined): (request: IncomingMessage) => string {
  if (trustProxy === undefined) return (request) => request.socket.remoteAddress ?? 'unknown'
  const trusted =
    typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : proxyAddr.compile(trustProxy)
  return (request) => proxyAddr(request, trusted)
}

/** Whether a socket's peer is a proxy the operator trusts (`TRUST_PROXY`): a hop count trusts whatever peer is nearest. */
export function trustedProxyTest(trustProxy: number | string[] | undefined): (address: string) => boolean {
  if (trustProxy === undefined) return () => false
  if (typeof trustProxy === 'number') return () => trustProxy > 0
  const trusted = proxyAddr.compile(trustProxy)
  return (address) => trusted(address, 0)
}

const MAX_REMEMBERED = 10_000
const keys = new Map<string, string>()

/**
 * The rate-limit key of an address: IPv6 clients are counted per /56, as express-rate-limit
 * does, since one subscriber usually holds a whole prefix. Remembered, because the IPv6 arithmetic
 * costs more than the rest of a request.
 */
export function rateLimitKey(address: string): string {
  if (!address.includes(':')) return address // IPv4, without a regular expression on every request
  let key = keys.get(address)
  if (key === undefined) {
    if (keys.size >= MAX_REMEMBERED) keys.clear()
    key = ipKeyGenerator(address, 56)
    keys.set(address, key)
  }
  return key
}
