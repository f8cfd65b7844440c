// Unit: PODPING_URL and PODPING_TOKEN in loadConfig: both or neither, an http(s) endpoint, a token
// podping.cloud can take as a header value, never echoed in the error.
import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'

const TOKEN = 'Blahblah^^12345678'

function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error('expected a configuration error')
}

describe('Podping settings', () => {
  it('announces nowhere without them, and to the endpoint as written with both', () => {
    expect(loadConfig({}).podping).toBeUndefined()
    expect(loadConfig({PODPING_URL: 'https://podping.cloud/', PODPING_TOKEN: TOKEN}).podping).toEqual({
      url: 'https://podping.cloud/',
      token: TOKEN,
    })
  })

  it('refuses one without the other, naming both', () => {
    expect(messageOf(() => loadConfig({PODPING_URL: 'https://podping.cloud/'}))).toBe(
      'Invalid configuration: PODPING_TOKEN: PODPING_URL and PODPING_TOKEN are set together or not at all',
    )
    expect(messageOf(() => loadConfig({PODPING_TOKEN: TOKEN}))).toBe(
      'Invalid configuration: PODPING_URL: PODPING_URL and PODPING_TOKEN are set together or not at all',
    )
  })

  it('refuses an endpoint that is not http(s), and a token that is not a plain header value, without showing the token', () => {
    expect(messageOf(() => loadConfig({PODPING_URL: 'ftp://podping.cloud/', PODPING_TOKEN: TOKEN}))).toBe(
      'Invalid configuration: PODPING_URL: must be an absolute http(s) URL (got "ftp://podping.cloud/")',
    )
    for (const token of ['short', 'has a space in it', 'line\nbreak-12345', 'x'.repeat(257)]) {
      const message = messageOf(() => loadConfig({PODPING_URL: 'https://podping.cloud/', PODPING_TOKEN: token}))
      expect(message).toBe(
        `Invalid configuration: PODPING_TOKEN: must be 8 to 256 visible ASCII characters, no spaces (got a value of ${token.length} characters)`,
      )
    }
  })
})
