import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { Ajv } from 'ajv'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { SAMPLE_CATALOGUE_PATH } from './catalogue.loader.ts'
import { catalogueSchemaJson } from './catalogue.schema.ts'

tier('pure')

const publishedPath = new URL('../../docs/catalogue.schema.json', import.meta.url)

/** The published file, compiled by a plain Ajv as an editor or another tool would. */
function publishedValidator() {
  return new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(publishedPath, 'utf8')))
}

test('docs/catalogue.schema.json is exactly the schema the loader checks', () => {
  assert.equal(
    readFileSync(publishedPath, 'utf8'),
    catalogueSchemaJson(),
    'run `node scripts/generate-catalogue-schema.ts` after changing src/catalogue/catalogue.schema.ts',
  )
})

test('the bundled sample, the docs example and the test catalogue pass the published schema', () => {
  const validate = publishedValidator()
  const markdown = readFileSync(new URL('../../docs/catalogue.md', import.meta.url), 'utf8')
  const example = /```json\n([\s\S]*?)\n```/.exec(markdown)?.[1]
  assert.ok(example)
  for (const document of [JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8')), JSON.parse(example)]) {
    assert.ok(validate(document), JSON.stringify(validate.errors))
  }
  const commented = testCatalogueJson()
  commented.$schema = '../docs/catalogue.schema.json'
  commented.zones.$comment = 'comments are allowed anywhere, maps included'
  assert.ok(validate(commented), JSON.stringify(validate.errors))
})

test('the published schema refuses what an editor should flag: typos, wrong types, unknown codes', () => {
  const validate = publishedValidator()
  const cases: [string, (json: any) => void][] = [
    ['/products/0', (json) => (json.products[0].descripton = json.products[0].description)],
    ['/labs/0/products/0/unitCost', (json) => (json.labs[0].products[0].unitCost = 12.5)],
    ['/labs/0/countryCode', (json) => (json.labs[0].countryCode = 'UK')],
    ['/labs/0/shippingRates/0/method', (json) => (json.labs[0].shippingRates[0].method = 'Courier')],
    ['/taxRates', (json) => (json.taxRates.gb = { name: 'VAT', ratePercent: '20' })],
  ]
  for (const [path, breakIt] of cases) {
    const json = testCatalogueJson()
    breakIt(json)
    assert.equal(validate(json), false, path)
    assert.ok(
      validate.errors?.some((error) => error.instancePath === path || error.instancePath.startsWith(`${path}/`)),
      `${path}: ${JSON.stringify(validate.errors)}`,
    )
  }
})
