import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import { NEAREST_SKUS } from './catalogue.ts'
import { editDistance, nearestMatches } from './edit-distance.ts'

tier('pure')

test('edit distance counts insertions, deletions, substitutions and swaps of neighbours as one step each', () => {
  assert.equal(editDistance('', ''), 0)
  assert.equal(editDistance('', 'abc'), 3)
  assert.equal(editDistance('abc', ''), 3)
  assert.equal(editDistance('kitten', 'sitting'), 3)
  assert.equal(editDistance('GLOBAL-CFPM', 'GLOBAL-CFMP'), 1, 'a swap')
  assert.equal(editDistance('GLOBAL-CAN-16x20', 'GLOBAL-CAN-16x2'), 1, 'a deletion')
  assert.equal(editDistance('GLOBAL-CAN-16x20', 'GLOBAL-CAN-16x200'), 1, 'an insertion')
  assert.equal(editDistance('ca', 'abc'), 3, 'optimal string alignment: a swapped pair is not edited again')
  assert.equal(editDistance('A', 'a'), 1, 'case-sensitive by itself')
})

test('edit distance is a symmetric measure bounded by the longer length and at least the length difference', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
      const distance = editDistance(a, b)
      assert.equal(distance, editDistance(b, a))
      assert.ok(distance <= Math.max(a.length, b.length))
      assert.ok(distance >= Math.abs(a.length - b.length))
      assert.equal(distance === 0, a === b)
    }),
  )
})

test('the nearest matches ignore case, keep within the distance, come nearest first and are limited', () => {
  const candidates = ['GLOBAL-CAN-8x8', 'GLOBAL-CAN-16x16', 'GLOBAL-CAN-16x20', 'GLOBAL-FAP-16x20', 'GLOBAL-MUG-11OZ']
  const options = { limit: 3, maxDistance: () => 3 }
  assert.deepEqual(nearestMatches('global-can-16X21', candidates, options), [
    'GLOBAL-CAN-16x20',
    'GLOBAL-CAN-16x16',
    'GLOBAL-FAP-16x20',
  ])
  assert.deepEqual(nearestMatches('global-can-16x21', candidates, { limit: 1, maxDistance: () => 3 }), [
    'GLOBAL-CAN-16x20',
  ])
  assert.deepEqual(nearestMatches('GLOBAL-NOPE', candidates, options), [])
  assert.deepEqual(nearestMatches('x'.repeat(5000), candidates, options), [], 'a long value is ruled out by length')
})

test("the bundled catalogue's nearest SKUs for common mistakes", () => {
  const catalogue = loadCatalogue()
  // A swap (1), then a letter dropped (2), then two edits elsewhere (2, later in the catalogue).
  assert.deepEqual(catalogue.nearestSkus('GLOBAL-CFMP-16X20'), [
    'GLOBAL-CFPM-16X20',
    'GLOBAL-CFP-16X20',
    'GLOBAL-FAP-16x20',
  ])
  assert.equal(catalogue.nearestSkus('global-can-16x21')[0], 'GLOBAL-CAN-16x20')
  assert.deepEqual(catalogue.nearestSkus('GLOBAL-NOPE'), [])
  assert.equal(NEAREST_SKUS.maxDistance(3), 2)
  assert.equal(NEAREST_SKUS.maxDistance(17), 5)
})
