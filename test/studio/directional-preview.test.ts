// The plugin's preview wrapper, rendered by React: Hebrew previews right-to-left, others untouched.
import {createElement} from 'react'
import {renderToStaticMarkup} from 'react-dom/server'
import {createSchema, type PreviewProps} from 'sanity'
import {describe, expect, it} from 'vitest'
import {DirectionalPreview} from '../../plugin/DirectionalPreview.tsx'
import {schemaTypes} from '../../schemas/index.ts'

const schema = createSchema({name: 'catalog', types: schemaTypes})

function rendered(typeName: string): string {
  const props: PreviewProps = {
    schemaType: schema.get(typeName),
    title: 'כותרת ארוכה מאוד של פרק',
    layout: 'default',
    renderDefault: (defaultProps) => createElement('span', null, String(defaultProps.title)),
  }
  return renderToStaticMarkup(createElement(DirectionalPreview, props))
}

describe('previews', () => {
  it.each(['episode', 'meetup', 'voice'])('lay out a %s right-to-left, so a long Hebrew title is cut at its end', (type) => {
    expect(rendered(type)).toBe('<div dir="rtl" style="display:contents"><span>כותרת ארוכה מאוד של פרק</span></div>')
  })

  it('leave other types as the Studio draws them', () => {
    expect(rendered('sanity.imageAsset')).toBe('<span>כותרת ארוכה מאוד של פרק</span>')
  })
})
