import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { CMYK_PROFILE_NAMES, cmykProfileFiles } from '../domain/colour-profiles.ts'
import { SRGB_COLOUR } from '../domain/print-specs.ts'
import { CatalogueError, loadCatalogue, parseCatalogue } from './catalogue.loader.ts'

tier('pure')

const CMYK = { space: 'cmyk', profile: 'printroute-fogra39', intent: 'relative', blackPointCompensation: true }

function problemsOf(json: unknown): string[] {
  try {
    parseCatalogue(json, 'test.json')
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

test('a catalogue without colour entries gives every offer sRGB, as print files always were', () => {
  const catalogue = parseCatalogue(testCatalogueJson(), 'test.json')
  for (const product of catalogue.products) {
    for (const variant of product.variants) {
      for (const offer of variant.offers) assert.deepEqual(offer.colour, SRGB_COLOUR)
    }
  }
})

test("a lab's defaultColour reaches its products; a product's own colour wins", () => {
  const json = testCatalogueJson()
  json.labs[0].defaultColour = CMYK
  json.labs[0].products[0].colour = {
    space: 'cmyk',
    profile: 'printroute-fogra39',
    intent: 'perceptual',
    blackPointCompensation: false,
  }
  json.labs[0].products[1].colour = { space: 'srgb' }
  const catalogue = parseCatalogue(json, 'test.json')
  const offer = (sku: string, attributes: Record<string, string>, lab: string) =>
    catalogue.findVariant(sku, attributes)?.offers.find((candidate) => candidate.lab.code === lab)
  assert.deepEqual(offer('TEST-CANVAS', { wrap: 'black' }, 'gb1')?.colour, {
    space: 'cmyk',
    profile: 'printroute-fogra39',
    intent: 'perceptual',
    blackPointCompensation: false,
  })
  assert.deepEqual(offer('TEST-TEE', { color: 'black', size: 's' }, 'gb1')?.colour, SRGB_COLOUR)
  assert.deepEqual(offer('TEST-CASE', {}, 'gb1')?.colour, CMYK, 'the lab default')
  const usOffers = catalogue.products.flatMap((product) =>
    product.variants.flatMap((variant) => variant.offers.filter((candidate) => candidate.lab.code === 'us1')),
  )
  assert.ok(usOffers.length > 0)
  for (const usOffer of usOffers) assert.deepEqual(usOffer.colour, SRGB_COLOUR, 'another lab is untouched')
})

test('colour entries are refused naming every problem', () => {
  const json = testCatalogueJson()
  json.labs[0].defaultColour = { space: 'cmyk', profile: 'coated-fogra99' }
  json.labs[0].products[0].colour = { space: 'srgb', profile: 'printroute-fogra39', intent: 'relative' }
  json.labs[0].products[3].colour = {
    space: 'cmyk',
    profile: 'printroute-fogra39',
    intent: 'absolute',
    blackPointCompensation: true,
  }
  json.labs[0].products[4].colour = { space: 'lab', intent: 'vivid' }
  const problems = problemsOf(json)
  assertProblem(
    problems,
    'labs[0] (gb1).defaultColour.profile',
    'unknown profile "coated-fogra99" (printroute ships: printroute-fogra39)',
  )
  assertProblem(problems, 'labs[0] (gb1).defaultColour.intent', 'is required with space cmyk')
  assertProblem(problems, 'labs[0] (gb1).defaultColour.blackPointCompensation', 'is required with space cmyk')
  assertProblem(problems, 'labs[0] (gb1).products[0].colour.profile', 'only allowed with space cmyk')
  assertProblem(problems, 'labs[0] (gb1).products[0].colour.intent', 'only allowed with space cmyk')
  assertProblem(
    problems,
    'labs[0] (gb1).products[3].colour.blackPointCompensation',
    'must be false with intent absolute',
  )
  assertProblem(problems, 'labs[0] (gb1).products[4].colour.space', 'must be one of')
  assertProblem(problems, 'labs[0] (gb1).products[4].colour.intent', 'must be one of')
})

test('a cmyk space without a profile is refused; PNG cannot hold CMYK, named where the colour comes from', () => {
  const json = testCatalogueJson()
  json.labs[0].products[0].colour = { space: 'cmyk', intent: 'relative', blackPointCompensation: false }
  json.labs[1].defaultColour = CMYK
  json.labs[0].products[1].colour = CMYK
  const problems = problemsOf(json)
  assertProblem(problems, 'labs[0] (gb1).products[0].colour.profile', 'is required with space cmyk')
  assertProblem(problems, 'labs[0] (gb1).products[1].colour', 'cmyk needs a format that holds CMYK')
  // us1 prints png by default: each of its products inherits a CMYK it cannot hold.
  assertProblem(problems, 'labs[1] (us1).products[0]', "prints png, which cannot hold the lab's defaultColour cmyk")
  assertProblem(problems, 'labs[1] (us1).products[1]', "prints png, which cannot hold the lab's defaultColour cmyk")
})

test("the sample's Leipzig lab prints CMYK through FOGRA39, its sublimation products sRGB", () => {
  const sample = loadCatalogue()
  const offer = (sku: string) =>
    sample.findProduct(sku)?.variants[0]?.offers.find((candidate) => candidate.lab.code === 'de1')
  assert.deepEqual(offer('GLOBAL-FAP-16x24')?.colour, CMYK)
  assert.equal(offer('GLOBAL-FAP-16x24')?.printFileFormat, 'tiff')
  assert.deepEqual(offer('GLOBAL-MUG-11OZ')?.colour, SRGB_COLOUR)
  const other = sample.findProduct('GLOBAL-FAP-16x24')?.variants[0]?.offers.find((o) => o.lab.code === 'uk6')
  assert.deepEqual(other?.colour, SRGB_COLOUR)
})

test('every profile name the catalogue accepts has its files in profiles/', () => {
  for (const name of CMYK_PROFILE_NAMES) {
    for (const file of cmykProfileFiles(name)) {
      const path = fileURLToPath(new URL(`../../profiles/${file}`, import.meta.url))
      assert.ok(existsSync(path), `profiles/${file} is missing`)
    }
  }
})
