// A rule part must be NAME=VALUE with a known name and exactly one "=": anything else is named
// as not a rule part, whatever the value would be.
import {describe, expect, it} from 'vitest'
import {rruleProblem} from '../../../catalog/v1/rrule.ts'

describe('rruleProblem on malformed parts', () => {
  it.each([
    ['an unknown name with a value', 'FREQ=DAILY;FOO=1', '"FOO=1" is not a rule part of RFC 5545'],
    ['a known name without "="', 'FREQ', '"FREQ" is not a rule part of RFC 5545'],
    ['a known name and a second "="', 'FREQ=DAILY=2', '"FREQ=DAILY=2" is not a rule part of RFC 5545'],
  ])('%s', (_name, rule, problem) => {
    expect(rruleProblem(rule)).toBe(problem)
  })
})
