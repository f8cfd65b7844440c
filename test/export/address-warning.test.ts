import {describe, expect, it} from 'vitest'
import {exportAddressWarning} from '../../server/export/address-warning.ts'

describe("the export's address warning", () => {
  it('warns when PUBLIC_BASE_URL was left at its default', () => {
    expect(exportAddressWarning('http://localhost:3000', false, '127.0.0.1:8080')).toMatch(
      /PUBLIC_BASE_URL is not set.*http:\/\/127\.0\.0\.1:8080/,
    )
  })

  it('warns when a loopback PUBLIC_BASE_URL names another port than the export listens on', () => {
    expect(exportAddressWarning('http://127.0.0.1:3000', true, '127.0.0.1:8080')).toMatch(
      /listens on 127\.0\.0\.1:8080.*port 3000/,
    )
    expect(exportAddressWarning('http://localhost', true, '8080')).toMatch(/port 80\b/)
  })

  it('trusts a public address, and a loopback one on the port it listens on', () => {
    expect(exportAddressWarning('https://api.example.org', true, '127.0.0.1:8080')).toBeUndefined()
    expect(exportAddressWarning('http://127.0.0.1:8080', true, '127.0.0.1:8080')).toBeUndefined()
    expect(exportAddressWarning('http://localhost:8080', true, '8080')).toBeUndefined()
  })
})
