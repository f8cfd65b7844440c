// The channel tags of the podcast settings: each valid one is kept, each invalid one is left out
// with a warning that names it, and the channel stays. Rows the test writes, no source.
import {describe, expect, it} from 'vitest'
import {mapChannelTags, MAX_TXTS, PODCAST_MEDIUMS} from '../../../catalog/v1/channel-tags.ts'
import {rruleProblem} from '../../../catalog/v1/rrule.ts'
import {
  MEDIUM_CHOICES,
  checkRemoteShow,
  checkRrule,
  checkRuleStart,
} from '../../../catalog/editor-rules/channel-tags.ts'

const GUID = '917393e3-1b1e-5cef-ace4-edaa54e1f810'

describe('mapChannelTags', () => {
  it('keeps every tag that is set and valid', () => {
    expect(
      mapChannelTags({
        txts: [
          {text: '05124', purpose: 'applepodcastsverify'},
          {text: 'free', purpose: ''},
        ],
        medium: 'video',
        update_frequency: {text: 'כל שבועיים', rrule: 'FREQ=WEEKLY;INTERVAL=2', start: '2026-01-04', complete: null},
        podroll: [{feed_guid: GUID, feed_url: null, title: 'Podcasting 2.0'}, {feed_url: 'https://feeds.test/a.xml'}],
        new_feed_url: 'https://new.test/feed.xml',
        block: true,
        complete: false,
        license: {identifier: 'cc-by-4.0', url: null},
      }),
    ).toEqual({
      tags: {
        txts: [
          {text: '05124', purpose: 'applepodcastsverify'},
          {text: 'free', purpose: null},
        ],
        medium: 'video',
        updateFrequency: {text: 'כל שבועיים', rrule: 'FREQ=WEEKLY;INTERVAL=2', start: '2026-01-04', complete: false},
        podroll: [
          {feedGuid: GUID, feedUrl: null, title: 'Podcasting 2.0'},
          {feedGuid: null, feedUrl: 'https://feeds.test/a.xml', title: null},
        ],
        newFeedUrl: 'https://new.test/feed.xml',
        block: true,
        complete: false,
        license: {identifier: 'cc-by-4.0', url: null},
      },
      warnings: [],
    })
  })

  it('leaves out each bad part with a warning that names it, and keeps the rest', () => {
    const {tags, warnings} = mapChannelTags({
      txts: [{text: ''}, {text: 'ok'}, ...Array.from({length: MAX_TXTS}, () => ({text: 'more'}))],
      medium: 'radio',
      update_frequency: {text: 'שבועי', rrule: 'FREQ=FORTNIGHTLY'},
      podroll: [{title: 'no address'}, {feed_url: 'http://insecure.test/feed.xml'}, {feed_url: 'https://פיד.test/'}],
      new_feed_url: 'http://old.test/feed.xml',
      block: 'yes',
      license: {identifier: 'my-own-license', url: null},
    })
    expect(tags).toEqual({
      txts: Array.from({length: MAX_TXTS - 1}, (_, index) => ({text: index === 0 ? 'ok' : 'more', purpose: null})),
      medium: 'podcast',
      updateFrequency: {text: 'שבועי', rrule: null, start: null, complete: false},
      podroll: [],
      newFeedUrl: null,
      block: false,
      complete: false,
      license: null,
    })
    expect(warnings.map((warning) => warning.split(':')[0])).toEqual([
      'txts',
      'txts.0.text',
      'podroll.0',
      'podroll.1.feed_url',
      'podroll.2.feed_url',
      'license',
      'medium',
      'update_frequency.rrule',
      'new_feed_url',
      'block',
    ])
    expect(warnings.every((warning) => warning.includes('left out') || warning.includes('only the first'))).toBe(true)
  })

  it('leaves out a rule with COUNT and no start, as the namespace requires a dtstart with it', () => {
    expect(mapChannelTags({update_frequency: {text: 'עשרה פרקים', rrule: 'FREQ=WEEKLY;COUNT=10'}}).warnings).toEqual([
      'update_frequency.rrule: COUNT needs a start date; left out of the feed',
    ])
  })
})

describe('rruleProblem', () => {
  it.each([
    'FREQ=WEEKLY;INTERVAL=2',
    'FREQ=DAILY;INTERVAL=1;BYDAY=MO,TU,WE,TH,FR',
    'FREQ=YEARLY;BYDAY=+4TH;BYMONTH=11',
    'FREQ=WEEKLY;UNTIL=2023-12-31T00:00:00.000Z;BYDAY=MO',
    'FREQ=MONTHLY;BYMONTHDAY=-1;UNTIL=20261231T000000Z',
  ])('takes %s', (rule) => {
    expect(rruleProblem(rule)).toBeUndefined()
  })

  it.each([
    ['INTERVAL=2', 'FREQ is missing'],
    ['FREQ=FORTNIGHTLY', 'FREQ=FORTNIGHTLY is not a valid value'],
    ['FREQ=WEEKLY;INTERVAL=0', 'INTERVAL=0 is not a valid value'],
    ['FREQ=WEEKLY;FREQ=DAILY', 'FREQ is given twice'],
    ['FREQ=WEEKLY;COUNT=3;UNTIL=20260101', 'COUNT and UNTIL cannot both be given'],
    ['FREQ=WEEKLY;BYDAY=XX', 'BYDAY=XX is not a valid value'],
    ['every two weeks', '"every two weeks" is not a rule part of RFC 5545'],
  ])('refuses %s', (rule, problem) => {
    expect(rruleProblem(rule)).toBe(problem)
  })
})

describe('the Studio checks', () => {
  it('offer exactly the mediums the server takes', () => {
    expect(MEDIUM_CHOICES.map((choice) => choice.value)).toEqual([...PODCAST_MEDIUMS])
  })

  it('say in Hebrew what is wrong with a rule, a start and a recommended show', () => {
    expect(checkRrule('FREQ=WEEKLY;INTERVAL=2')).toBe(true)
    expect(checkRrule(undefined)).toBe(true)
    expect(checkRrule('כל שבועיים')).toMatch(/RFC 5545/)
    expect(checkRuleStart({rrule: 'FREQ=WEEKLY;COUNT=10'})).toMatch(/תאריך התחלה/)
    expect(checkRuleStart({rrule: 'FREQ=WEEKLY;COUNT=10', start: '2026-01-04'})).toBe(true)
    expect(checkRemoteShow({feedGuid: GUID})).toBe(true)
    expect(checkRemoteShow({feedUrl: 'https://feeds.test/a.xml'})).toBe(true)
    expect(checkRemoteShow({})).toMatch(/podcast:guid/)
    expect(checkRemoteShow({feedGuid: 'not-a-guid'})).toMatch(/UUID/)
    expect(checkRemoteShow({feedUrl: 'http://feeds.test/a.xml'})).toMatch(/https/)
  })
})
