// The edges of reading the channel tags: unset values, values of the wrong shape, list bounds and
// the COUNT rule, each seen in the tags and warnings the mapper returns. Rows the test writes.
import {describe, expect, it} from 'vitest'
import {mapChannelTags, MAX_TXTS} from '../../../catalog/v1/channel-tags.ts'
import {UNSET_CHANNEL_TAGS} from '../../helpers/catalog-mapping.ts'

describe('mapChannelTags at the edges', () => {
  it('gives the defaults, and no warning, for tags that are missing or null', () => {
    expect(mapChannelTags({})).toEqual({tags: UNSET_CHANNEL_TAGS, warnings: []})
    expect(
      mapChannelTags({
        txts: null,
        medium: null,
        update_frequency: null,
        podroll: null,
        new_feed_url: null,
        block: null,
        complete: null,
      }),
    ).toEqual({tags: UNSET_CHANNEL_TAGS, warnings: []})
  })

  it('treats a purpose of only spaces as not set', () => {
    expect(mapChannelTags({txts: [{text: 'free', purpose: '   '}]})).toEqual({
      tags: {...UNSET_CHANNEL_TAGS, txts: [{text: 'free', purpose: null}]},
      warnings: [],
    })
  })

  it('leaves out a list that is not a list, naming it', () => {
    expect(mapChannelTags({txts: 'free', podroll: {feed_url: 'https://feeds.test/a.xml'}})).toEqual({
      tags: UNSET_CHANNEL_TAGS,
      warnings: ['txts: not a list; left out of the feed', 'podroll: not a list; left out of the feed'],
    })
  })

  it('takes exactly the maximum number of txts without a warning', () => {
    const txts = Array.from({length: MAX_TXTS}, (_, index) => ({text: `t${index}`}))
    const {tags, warnings} = mapChannelTags({txts})
    expect(tags.txts).toHaveLength(MAX_TXTS)
    expect(warnings).toEqual([])
  })

  it('names update_frequency and complete in the warnings for them', () => {
    const {tags, warnings} = mapChannelTags({update_frequency: {text: ''}, complete: 'yes'})
    expect(tags).toEqual(UNSET_CHANNEL_TAGS)
    expect(warnings.map((warning) => warning.split(/[.:]/)[0])).toEqual(['update_frequency', 'complete'])
  })

  it('keeps a schedule with no rule, and a rule without COUNT that has no start', () => {
    expect(mapChannelTags({update_frequency: {text: 'weekly'}})).toEqual({
      tags: {...UNSET_CHANNEL_TAGS, updateFrequency: {text: 'weekly', rrule: null, start: null, complete: false}},
      warnings: [],
    })
    expect(mapChannelTags({update_frequency: {text: 'daily', rrule: 'FREQ=DAILY'}})).toEqual({
      tags: {
        ...UNSET_CHANNEL_TAGS,
        updateFrequency: {text: 'daily', rrule: 'FREQ=DAILY', start: null, complete: false},
      },
      warnings: [],
    })
  })

  it('leaves out a rule that opens with COUNT and has no start', () => {
    expect(mapChannelTags({update_frequency: {text: 'five', rrule: 'COUNT=5;FREQ=DAILY'}})).toEqual({
      tags: {...UNSET_CHANNEL_TAGS, updateFrequency: {text: 'five', rrule: null, start: null, complete: false}},
      warnings: ['update_frequency.rrule: COUNT needs a start date; left out of the feed'],
    })
  })
})
