// The catalogue's customs data and import rules (docs/catalogue.md#customs): the sample's, and every load error
// naming its field and reason.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { customsTestCatalogueFile } from '../../test/support/customs-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import type { CatalogueFile } from '../domain/catalogue.types.ts'
import { EU_MEMBER_STATES, itemCustoms } from '../domain/customs.ts'
import { CatalogueError, loadCatalogue, parseCatalogue } from './catalogue.loader.ts'

tier('pure')

const sample = loadCatalogue()

function problemsOf(file: unknown): string[] {
  try {
    parseCatalogue(file, 'test.json')
  } catch (error) {
    assert.ok(error instanceof CatalogueError, `expected CatalogueError, got ${String(error)}`)
    return [...error.problems]
  }
  assert.fail('the catalogue loaded, but it should have been refused')
}

function assertProblem(problems: string[], path: string, reason: string): void {
  const found = problems.some((problem) => problem.startsWith(`${path}: `) && problem.includes(reason))
  assert.ok(found, `no problem "${path}: ...${reason}..." among:\n${problems.join('\n')}`)
}

function broken(change: (file: CatalogueFile) => void): CatalogueFile {
  const file = customsTestCatalogueFile()
  change(file)
  return file
}

test('every sample product has an HS code of 6 to 10 digits and a weight; each rule is dated with a source', () => {
  for (const product of sample.products) {
    assert.ok(product.customs, `${product.sku} has no customs data`)
    assert.match(product.customs.hsCode, /^\d{6,10}$/)
    assert.ok(product.customs.weightGrams > 0)
  }
  for (const rule of sample.importRules) {
    assert.match(rule.effectiveDate, /^\d{4}-\d{2}-\d{2}$/)
    assert.ok(rule.source.length > 10, `${rule.name} has no source`)
  }
})

test('the sample: EU IOSS up to EUR 150, UK VAT at sale up to GBP 135, US without a threshold, and CA, AU, NZ', () => {
  const eu = sample.importRuleFor('fr')
  assert.equal(eu?.name, 'European Union')
  assert.deepEqual(eu?.lowValue, { threshold: { minor: 15000n, currency: 'EUR' }, vatCollection: 'ioss' })
  assert.deepEqual([...(eu?.destinations ?? [])], [...EU_MEMBER_STATES])
  assert.equal(eu?.customsUnion, true)
  assert.deepEqual(sample.importRuleFor('GB')?.lowValue, {
    threshold: { minor: 13500n, currency: 'GBP' },
    vatCollection: 'atSale',
  })
  assert.equal(sample.importRuleFor('US')?.lowValue, null)
  for (const country of ['CA', 'AU', 'NZ']) assert.ok(sample.importRuleFor(country), `no rule for ${country}`)
  assert.equal(sample.importRuleFor('CH'), undefined)
  // A Gildan blank is made in Honduras whichever lab prints it.
  assert.equal(itemCustoms(sample, 'GLOBAL-TEE-GIL-64000', 'GB').originCountryCode, 'HN')
  assert.equal(itemCustoms(sample, 'GLOBAL-TEE-BC-3001', 'US').originCountryCode, 'US')
})

test('an HS code not of 6 to 10 digits is a load error naming the product', () => {
  const problems = problemsOf(
    broken((file) => {
      const tee = file.products.find((product) => product.sku === 'TEST-TEE')
      if (tee?.customs) tee.customs.hsCode = '6109'
      const frame = file.products.find((product) => product.sku === 'TEST-FRAME')
      const variant = frame?.variants?.[1]
      if (variant?.customs) variant.customs.hsCode = '49119100001'
    }),
  )
  assertProblem(problems, 'products[1] (TEST-TEE).customs.hsCode', 'must be an HS code of 6 to 10 digits')
  assertProblem(problems, 'products[4] (TEST-FRAME).variants[1].customs.hsCode', 'must be an HS code of 6 to 10 digits')
})

test('customs fields: weight a positive integer, origin a country code, no unknown field', () => {
  const problems = problemsOf(
    broken((file) => {
      const tee = file.products.find((product) => product.sku === 'TEST-TEE')
      if (tee) tee.customs = { hsCode: '610910', originCountryCode: 'XX', weightGrams: 0, colour: 'red' } as never
    }),
  )
  assertProblem(problems, 'products[1] (TEST-TEE).customs.weightGrams', 'must be a positive integer')
  assertProblem(problems, 'products[1] (TEST-TEE).customs.originCountryCode', 'ISO 3166-1 alpha-2')
  assertProblem(problems, 'products[1] (TEST-TEE).customs.colour', 'unknown field')
})

test('import rules: currency, dates, threshold with its collection, chapters, percents, one rule per country', () => {
  const problems = problemsOf(
    broken((file) => {
      const [eu, uk, us, au] = file.importRules ?? []
      if (!eu || !uk || !us || !au) throw new Error('fixture changed')
      eu.currency = 'XYZ'
      eu.effectiveDate = '2021-02-30'
      delete uk.lowValueVatCollection
      us.dutyPercentByHsChapter = { '6': '10' }
      us.defaultDutyPercent = '101'
      au.destinations = ['AU', 'DE']
      ;(au as { lowValueVatCollection: string }).lowValueVatCollection = 'later'
    }),
  )
  assertProblem(problems, 'importRules[0].currency', 'must be a currency of the rate table')
  assertProblem(problems, 'importRules[0].effectiveDate', 'must be a real date')
  assertProblem(problems, 'importRules[1].lowValueVatCollection', 'is required with lowValueThreshold')
  assertProblem(problems, 'importRules[2].dutyPercentByHsChapter.6', 'HS chapter must be two digits')
  assertProblem(problems, 'importRules[2].defaultDutyPercent', 'must not exceed 100')
  assertProblem(problems, 'importRules[3].destinations[1]', 'DE already has a rule (importRules[0])')
  assertProblem(problems, 'importRules[3].lowValueVatCollection', 'must be one of ioss, atSale, exempt')
})

test('a catalogue with customs reads back equal from its own file text', () => {
  const catalogue = parseCatalogue(customsTestCatalogueFile(), 'customs')
  const again = parseCatalogue(JSON.parse(catalogue.fileText()), 'again')
  assert.deepEqual(again.importRules, catalogue.importRules)
  assert.deepEqual(again.findVariant('TEST-FRAME', { color: 'black', size: 'large' })?.customs, {
    hsCode: '4911910000',
    originCountryCode: 'IT',
    weightGrams: 2400,
  })
})
