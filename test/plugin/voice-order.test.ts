import {describe, expect, it} from 'vitest'
import {voicesInApiOrder} from '../../plugin/lib/voice-order.ts'

describe("the Studio's voice list", () => {
  it('orders voices as the API does (Hebrew collator), not by code point', () => {
    // By code point ג׳ (U+05F3) sorts after גל, and Latin before Hebrew.
    const rows = [
      {_id: 'gal', name: 'גל', slug: 'gal'},
      {_id: 'george', name: 'ג׳ורג׳', slug: 'george'},
      {_id: 'alon', name: 'אלון', slug: 'alon'},
      {_id: 'dana-2', name: 'דנה', slug: 'dana-2'},
      {_id: 'dana-1', name: 'דנה', slug: 'dana-1'},
    ]
    expect(voicesInApiOrder(rows)).toEqual(['alon', 'george', 'gal', 'dana-1', 'dana-2'])
    const byCodePoint = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((row) => row._id)
    expect(voicesInApiOrder(rows)).not.toEqual(byCodePoint)
  })

  it("lists a voice once, placed by its draft's name, and a new voice without a name first", () => {
    const rows = [
      {_id: 'drafts.zvi', name: 'אבי', slug: 'zvi'},
      {_id: 'zvi', name: 'צבי', slug: 'zvi'},
      {_id: 'bina', name: 'בינה', slug: 'bina'},
      {_id: 'drafts.new', name: null, slug: null},
      {_id: 'versions.r1.bina', name: 'תמר', slug: 'bina'},
    ]
    expect(voicesInApiOrder(rows)).toEqual(['new', 'zvi', 'bina'])
    expect(voicesInApiOrder(rows.toReversed())).toEqual(['new', 'zvi', 'bina'])
  })
})
