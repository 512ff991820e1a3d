// sdk/src/openapi.ts is generated from the server's OpenAPI document; this fails when the committed file no longer
// matches what the route schemas describe (a schema changed without `npm run sdk:generate`).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { generateSdkTypes, SDK_TYPES_FILE } from '../../scripts/sdk-types.ts'
import { tier } from '../support/tiers.ts'

tier('pure')

test('the SDK types match the OpenAPI document the server serves', async () => {
  const fresh = (await generateSdkTypes()).split('\n')
  const committed = readFileSync(SDK_TYPES_FILE, 'utf8').split('\n')
  const firstDifferent = fresh.findIndex((text, index) => text !== committed[index])
  const line = firstDifferent === -1 ? Math.min(fresh.length, committed.length) : firstDifferent
  const differs = firstDifferent !== -1 || fresh.length !== committed.length
  assert.ok(
    !differs,
    `sdk/src/openapi.ts is stale: run npm run sdk:generate (first difference at line ${line + 1}: ` +
      `committed ${JSON.stringify(committed[line])}, document gives ${JSON.stringify(fresh[line])})`,
  )
})
