// Fixed header lines as plain values: how they are checked and joined once, and the start-up
// check that the server's response class puts them into the head. No connection is opened.
import {ServerResponse} from 'node:http'
import {describe, expect, it} from 'vitest'
import {FixedHeadResponse, fixedHeaders, fixedHeadsWork, joinFixedHeaders} from '../../server/http/response-headers.ts'

describe('fixed headers', () => {
  it('join each name and value into a head line, in order, and keep the list', () => {
    const list = ['ETag', '"abc"', 'Vary', 'Accept-Encoding']
    expect(fixedHeaders(list)).toEqual({list, lines: 'ETag: "abc"\r\nVary: Accept-Encoding\r\n'})
    expect(fixedHeaders([])).toEqual({list: [], lines: ''})
  })

  it('refuse a name without its value', () => {
    expect(() => fixedHeaders(['ETag', '"abc"', 'Vary'])).toThrow(
      new Error('A header list pairs every name with a value.'),
    )
  })

  it('refuse a name that is not an HTTP token, as writeHead would', () => {
    expect(() => fixedHeaders(['X Bad', 'value'])).toThrow(expect.objectContaining({code: 'ERR_INVALID_HTTP_TOKEN'}))
  })

  it('refuse the headers Node reads as it writes the head, however they are spelt', () => {
    for (const name of ['Content-Length', 'date', 'CONNECTION', 'Transfer-Encoding'])
      expect(() => fixedHeaders([name, '0']), name).toThrow(
        new Error(`${name} is read by Node as it writes the head, so it cannot be a fixed header.`),
      )
  })

  it('joined, are the first lines then the second', () => {
    const joined = joinFixedHeaders(fixedHeaders(['ETag', '"abc"']), fixedHeaders(['Vary', 'Accept-Encoding']))
    expect(joined).toEqual({
      list: ['ETag', '"abc"', 'Vary', 'Accept-Encoding'],
      lines: 'ETag: "abc"\r\nVary: Accept-Encoding\r\n',
    })
  })
})

describe('the check that fixed lines reach the head', () => {
  it("holds for the server's response class on this Node", () => {
    expect(fixedHeadsWork()).toBe(true)
  })

  it('fails, without throwing, when writing the head throws', () => {
    class Throwing extends FixedHeadResponse {
      override _storeHeader(): void {
        throw new Error('writeHead changed inside')
      }
    }
    expect(fixedHeadsWork(Throwing)).toBe(false)
  })

  it('fails when the head leaves the fixed lines out', () => {
    // A Node whose writeHead no longer goes through `_storeHeader`'s override.
    class Dropping extends FixedHeadResponse {
      override _storeHeader(firstLine: string, headers: readonly string[]): void {
        ServerResponse.prototype._storeHeader.call(this, firstLine, headers)
      }
    }
    expect(fixedHeadsWork(Dropping)).toBe(false)
  })
})
