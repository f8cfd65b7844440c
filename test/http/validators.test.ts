// Conditional requests (RFC 9110 13) as plain functions of a request's header record and the
// selected variant's validators: no request, response or socket.
import {describe, expect, it} from 'vitest'
import {evaluatePreconditions, ifRangeHolds, type ConditionalHeaders} from '../../server/http/validators.ts'

const ETAG = '"abc"'
const LAST_MODIFIED = 'Wed, 06 May 2026 07:08:09 GMT'
const document = {lastModified: new Date('2026-05-06T07:08:09Z'), lastModifiedHeader: LAST_MODIFIED}
const EARLIER = 'Tue, 05 May 2026 00:00:00 GMT'
const LATER = 'Thu, 07 May 2026 00:00:00 GMT'

const outcome = (headers: ConditionalHeaders) => evaluatePreconditions(headers, ETAG, document)

describe('a request without validators', () => {
  it('proceeds', () => {
    expect(outcome({})).toBe('proceed')
  })
})

describe('If-Match', () => {
  it('fails for other bytes, a weak tag of these, or a list without this tag', () => {
    for (const ifMatch of ['"other"', `W/${ETAG}`, '"a", "b"', '"ab"', '**'])
      expect(outcome({'if-match': ifMatch}), ifMatch).toBe('failed')
  })

  it('holds for `*`, the tag itself and a list that names it', () => {
    for (const ifMatch of ['*', ' * ', ETAG, `"a", ${ETAG}`, `"a",${ETAG} , W/"b"`])
      expect(outcome({'if-match': ifMatch}), ifMatch).toBe('proceed')
  })

  it('is read before If-None-Match: a request with both that fails is a 412, not a 304', () => {
    expect(outcome({'if-match': '"other"', 'if-none-match': ETAG})).toBe('failed')
    expect(outcome({'if-match': ETAG, 'if-none-match': ETAG})).toBe('not-modified')
  })

  it('holds for a tag with a comma in it, sent back as it was', () => {
    expect(evaluatePreconditions({'if-match': '"a,b"'}, '"a,b"', document)).toBe('proceed')
  })

  it('leaves If-Unmodified-Since unread', () => {
    expect(outcome({'if-match': ETAG, 'if-unmodified-since': EARLIER})).toBe('proceed')
  })
})

describe('If-Unmodified-Since', () => {
  it('fails when the document changed after it', () => {
    expect(outcome({'if-unmodified-since': EARLIER})).toBe('failed')
  })

  it('holds at or after the change', () => {
    expect(outcome({'if-unmodified-since': LAST_MODIFIED})).toBe('proceed')
    expect(outcome({'if-unmodified-since': LATER})).toBe('proceed')
  })

  it("reads RFC 850's and asctime's dates, asctime's as UTC", () => {
    expect(outcome({'if-unmodified-since': 'Tuesday, 05-May-26 00:00:00 GMT'})).toBe('failed')
    expect(outcome({'if-unmodified-since': 'Wed May  6 07:08:08 2026'})).toBe('failed')
    expect(outcome({'if-unmodified-since': 'Wed May  6 07:08:09 2026'})).toBe('proceed')
  })

  it("reads asctime's date as UTC where the local time zone is not UTC", () => {
    const zone = process.env.TZ
    process.env.TZ = 'Asia/Jerusalem'
    try {
      expect(outcome({'if-unmodified-since': 'Wed May  6 07:08:09 2026'})).toBe('proceed')
      expect(outcome({'if-unmodified-since': 'Wed May  6 07:08:08 2026'})).toBe('failed')
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('is ignored when it is not an HTTP-date', () => {
    for (const value of ['1', 'yesterday', `${EARLIER}, ${EARLIER}`, '2026-05-05'])
      expect(outcome({'if-unmodified-since': value}), value).toBe('proceed')
  })
})

describe('If-None-Match', () => {
  it('is not modified for this tag, weakly compared, in a list or `*`', () => {
    for (const ifNoneMatch of [ETAG, `W/${ETAG}`, `"a", ${ETAG}`, '*'])
      expect(outcome({'if-none-match': ifNoneMatch}), ifNoneMatch).toBe('not-modified')
  })

  it('is not modified for a tag with a comma in it, sent back as it was', () => {
    expect(evaluatePreconditions({'if-none-match': '"a,b"'}, '"a,b"', document)).toBe('not-modified')
  })

  it('proceeds for other bytes, and then leaves If-Modified-Since unread', () => {
    expect(outcome({'if-none-match': '"other"'})).toBe('proceed')
    expect(outcome({'if-none-match': '"other"', 'if-modified-since': LATER})).toBe('proceed')
  })
})

describe('If-Modified-Since', () => {
  it('is not modified at or after the change, and proceeds before it', () => {
    expect(outcome({'if-modified-since': LAST_MODIFIED})).toBe('not-modified')
    expect(outcome({'if-modified-since': LATER})).toBe('not-modified')
    expect(outcome({'if-modified-since': EARLIER})).toBe('proceed')
  })

  it('is ignored when it is not an HTTP-date, and read in all three forms', () => {
    for (const notADate of ['2099', '2099-01-01T00:00:00Z', 'tomorrow', `${LATER}, ${LATER}`])
      expect(outcome({'if-modified-since': notADate})).toBe('proceed')
    expect(outcome({'if-modified-since': 'Thursday, 07-May-26 00:00:00 GMT'})).toBe('not-modified')
    expect(outcome({'if-modified-since': 'Thu May  7 00:00:00 2026'})).toBe('not-modified')
    expect(outcome({'if-modified-since': 'Tue May  5 00:00:00 2026'})).toBe('proceed')
  })
})

describe('If-Range', () => {
  it('lets a Range apply without one, or naming exactly these bytes or this Last-Modified', () => {
    expect(ifRangeHolds(undefined, ETAG, LAST_MODIFIED)).toBe(true)
    expect(ifRangeHolds(ETAG, ETAG, LAST_MODIFIED)).toBe(true)
    expect(ifRangeHolds(LAST_MODIFIED, ETAG, LAST_MODIFIED)).toBe(true)
  })

  it('does not for other bytes, a weak tag, or another date', () => {
    for (const ifRange of ['"other"', `W/${ETAG}`, LATER, ''])
      expect(ifRangeHolds(ifRange, ETAG, LAST_MODIFIED), ifRange).toBe(false)
  })
})
