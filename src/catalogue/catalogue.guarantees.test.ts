// Shipping guarantees in the catalogue (docs/catalogue.md#shipping-guarantees): optional and additive, validated at
// load with every problem named; the sample guarantees Express and Overnight.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueFile, testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { CatalogueError, loadCatalogue, parseCatalogue } from './catalogue.loader.ts'

tier('pure')

function problemsOf(json: unknown): string[] {
  try {
    parseCatalogue(json, 'test.json')
  } catch (error) {
    assert.ok(error instanceof CatalogueError, `expected CatalogueError, got ${String(error)}`)
    return [...error.problems]
  }
  assert.fail('the catalogue loaded, but it should have been refused')
}

test('the sample guarantees Express and Overnight at 50%, and no other method', () => {
  const sample = loadCatalogue()
  assert.deepEqual(sample.shippingGuarantee('Express'), { creditPercent: '50', basisPoints: 5000 })
  assert.deepEqual(sample.shippingGuarantee('Overnight'), { creditPercent: '50', basisPoints: 5000 })
  for (const method of ['Budget', 'Standard', 'StandardPlus'] as const) {
    assert.equal(sample.shippingGuarantee(method), undefined, method)
  }
})

test('a catalogue without shippingMethods loads as before: nothing is guaranteed', () => {
  const catalogue = parseCatalogue(testCatalogueFile(), 'test.json')
  assert.equal(catalogue.shippingGuarantee('Express'), undefined)
  assert.equal(JSON.parse(catalogue.fileText()).shippingMethods, undefined)
})

test('a guarantee loads, keeps its spelling, and survives the stored text', () => {
  const file = {
    ...testCatalogueFile(),
    shippingMethods: { Express: { guarantee: { creditPercent: '33.5' } }, Budget: {} },
  }
  const catalogue = parseCatalogue(file, 'test.json')
  assert.deepEqual(catalogue.shippingGuarantee('Express'), { creditPercent: '33.5', basisPoints: 3350 })
  assert.equal(catalogue.shippingGuarantee('Budget'), undefined)
  const again = parseCatalogue(JSON.parse(catalogue.fileText()), 'again.json')
  assert.deepEqual(again.shippingGuarantee('Express'), { creditPercent: '33.5', basisPoints: 3350 })
})

test('every problem of shippingMethods is named at once', () => {
  const json = testCatalogueJson()
  json.shippingMethods = {
    express: { guarantee: { creditPercent: '50' } },
    Express: { guarantee: { creditPercent: '150' } },
    Overnight: { guarantee: { creditPercent: '0' } },
    StandardPlus: { guarantee: { creditPercent: 50 } },
    Standard: { guarantee: {}, refund: true },
  }
  const problems = problemsOf(json)
  const expected = [
    'shippingMethods.express: key must be a shipping method (Budget, Standard, StandardPlus, Express, Overnight)',
    'shippingMethods.Express.guarantee.creditPercent: must not exceed 100',
    'shippingMethods.Overnight.guarantee.creditPercent: must be more than 0',
    'shippingMethods.StandardPlus.guarantee.creditPercent: must be a string, got number 50',
    'shippingMethods.Standard.guarantee.creditPercent: is required',
    'shippingMethods.Standard.refund: unknown field (expected one of guarantee)',
  ]
  for (const line of expected) assert.ok(problems.includes(line), `missing "${line}" among:\n${problems.join('\n')}`)
})

test('a guarantee on a method no lab ships by is refused', () => {
  const file = testCatalogueFile()
  for (const lab of file.labs) lab.shippingRates = lab.shippingRates.filter((rate) => rate.method !== 'Overnight')
  const problems = problemsOf({ ...file, shippingMethods: { Overnight: { guarantee: { creditPercent: '50' } } } })
  assert.deepEqual(problems, ['shippingMethods.Overnight: no lab has a shipping rate for Overnight'])
})
