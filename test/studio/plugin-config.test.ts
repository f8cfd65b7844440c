// The plugin configured by its options alone, as Sanity resolves a Studio's configuration.
import {createClient} from '@sanity/client'
import {createMockAuthStore, prepareConfig, type Source} from 'sanity'
import {describe, expect, it} from 'vitest'
import {CATALOG_NAMESPACE} from '../../plugin/lib/i18n.ts'
import {catalogPlugin, catalogStructure, type CatalogPluginOptions} from '../../plugin/index.ts'

const options = {publicBaseUrl: 'https://api.example', siteUrl: 'https://codetalks.example'}

async function resolved(pluginOptions: CatalogPluginOptions) {
  // Logged in as an administrator without asking anyone: the configuration is resolved offline.
  const client = createClient({projectId: 'test', dataset: 'production', apiVersion: '2025-02-19', useCdn: false})
  const auth = createMockAuthStore({
    client,
    currentUser: {
      id: 'editor',
      name: 'עורכת',
      email: 'editor@example.com',
      role: 'administrator',
      roles: [{name: 'administrator', title: 'Administrator'}],
    },
  })
  const prepared = prepareConfig({
    projectId: 'test',
    dataset: 'production',
    auth,
    plugins: [catalogPlugin(pluginOptions)],
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the only way to read the schema a prepared workspace holds
  }).workspaces[0]?.__internal.sources[0]
  if (!prepared) throw new Error('no workspace')
  const source = await new Promise<Source>((resolve, reject) =>
    prepared.source.subscribe({next: resolve, error: reject}),
  )
  return {
    types: source.schema
      .getTypeNames()
      .filter((name) => ['episode', 'meetup', 'voice'].includes(name))
      .sort(),
    tools: source.tools,
    i18n: source.i18n,
  }
}

describe('catalogPlugin', () => {
  it('brings the document types and a structure tool with the catalog lists and API view', async () => {
    const {types, tools} = await resolved(options)
    expect(types).toEqual(['episode', 'meetup', 'voice'])
    const structure = tools.filter((tool) => tool.name === 'structure')
    expect(structure).toHaveLength(1)
    expect(structure[0]?.options).toMatchObject({
      structure: catalogStructure,
      defaultDocumentNode: expect.any(Function),
    })
  })

  it("speaks Hebrew in the Studio's own locale (the Studio has no Hebrew one)", async () => {
    const {i18n} = await resolved(options)
    expect(i18n.currentLocale.id).toBe('en-US')
    await i18n.loadNamespaces([CATALOG_NAMESPACE])
    expect(i18n.t('structure.voices', {ns: CATALOG_NAMESPACE})).toBe('קולות')
    expect(i18n.t('api-view.query-failed', {ns: CATALOG_NAMESPACE, message: 'timeout'})).toBe(
      'השאילתה של ה-API נכשלה: timeout',
    )
  })

  it('leaves the structure to a team that has its own', async () => {
    const {types, tools} = await resolved({...options, structure: false})
    expect(types).toEqual(['episode', 'meetup', 'voice'])
    expect(tools.filter((tool) => tool.name === 'structure')).toEqual([])
  })
})
