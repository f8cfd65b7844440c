// The typed client's types are what openapi-typescript makes today from the server's current OpenAPI
// document (built in-process, as /api/openapi.json serves it), as CI holds sanity.types.ts to TypeGen.
import {readFile} from 'node:fs/promises'
import {expect, it} from 'vitest'
import {CLIENT_TYPES_FILE, generateClientTypes} from '../../scripts/client-types.ts'

it('client/src/openapi.ts is what npm run client:types makes from the OpenAPI document today', async () => {
  const committed = await readFile(CLIENT_TYPES_FILE, 'utf8')
  expect(committed, `${CLIENT_TYPES_FILE} is out of date: run npm run client:types and commit it`).toBe(
    await generateClientTypes(),
  )
})
