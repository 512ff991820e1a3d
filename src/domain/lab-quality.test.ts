// A lab's quality rate and whether it keeps the lab from new work (domain/lab-quality.ts,
// docs/allocation.md#lab-quality): upheld claimed items per 1,000 items shipped, never above its threshold below the
// minimum volume, compared unrounded, and a pause or full day named before the quality in the allocation's reasons.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { parseCatalogue, SAMPLE_CATALOGUE_PATH } from '../catalogue/catalogue.loader.ts'
import type { Catalogue } from './catalogue.ts'
import { unavailableLabs } from './lab-availability.ts'
import {
  isBelowQualityThreshold,
  LAB_QUALITY_MIN_ITEMS_SHIPPED,
  labQualityOf,
  labQualityWindowStart,
  labsBelowQuality,
  qualityRatePerThousand,
} from './lab-quality.ts'

tier('pure')

/** The sample catalogue with `change` made to its file. */
function changedSampleCatalogue(name: string, change: (file: any) => void): Catalogue {
  const file = JSON.parse(readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'))
  change(file)
  return parseCatalogue(file, name)
}

test('the rate is upheld items per 1,000 shipped, to one decimal; none without items shipped', () => {
  assert.equal(qualityRatePerThousand({ upheldItems: 3, itemsShipped: 1000 }), 3)
  assert.equal(qualityRatePerThousand({ upheldItems: 1, itemsShipped: 3 }), 333.3)
  assert.equal(qualityRatePerThousand({ upheldItems: 0, itemsShipped: 50 }), 0)
  assert.equal(qualityRatePerThousand({ upheldItems: 2, itemsShipped: 0 }), null)
})

test('a lab is below its threshold only above it, with a threshold, and from the minimum volume on', () => {
  const lab = { qualityThreshold: 10 }
  assert.equal(LAB_QUALITY_MIN_ITEMS_SHIPPED, 50)
  assert.equal(isBelowQualityThreshold(lab, { upheldItems: 1, itemsShipped: 50 }), true, '20 per 1,000')
  assert.equal(isBelowQualityThreshold(lab, { upheldItems: 1, itemsShipped: 100 }), false, 'exactly 10: not above')
  assert.equal(isBelowQualityThreshold(lab, { upheldItems: 1001, itemsShipped: 100_000 }), true, '10.01, unrounded')
  assert.equal(isBelowQualityThreshold(lab, { upheldItems: 5, itemsShipped: 49 }), false, 'under the minimum volume')
  assert.equal(isBelowQualityThreshold({ qualityThreshold: null }, { upheldItems: 50, itemsShipped: 50 }), false)
  assert.equal(isBelowQualityThreshold({ qualityThreshold: 0 }, { upheldItems: 1, itemsShipped: 500 }), true)
  assert.equal(isBelowQualityThreshold(lab, undefined), false, 'no counts: nothing shipped')
  // It falls back once the rate does: more items shipped, or an upheld claim leaving the window.
  assert.equal(isBelowQualityThreshold(lab, { upheldItems: 1, itemsShipped: 200 }), false)
})

test("the catalogue's labs above their threshold are excluded as QualityBelowThreshold, after a pause", () => {
  const catalogue = changedSampleCatalogue('quality', (file) => {
    for (const lab of file.labs) if (lab.code === 'uk6' || lab.code === 'nl1') lab.qualityThreshold = 5
  })
  const counts = [
    { labCode: 'uk6', upheldItems: 2, itemsShipped: 100 },
    { labCode: 'nl1', upheldItems: 2, itemsShipped: 100 },
    { labCode: 'us1', upheldItems: 90, itemsShipped: 100 },
  ]
  const below = labsBelowQuality(catalogue, counts)
  assert.deepEqual(below.sort(), ['nl1', 'uk6'], 'a lab without a threshold is never excluded')
  const now = new Date('2026-03-01T09:00:00Z')
  const paused = [
    {
      labCode: 'nl1',
      paused: true,
      capacityDate: null,
      capacityJobs: null,
      capacityBase: 0,
      givenDate: null,
      givenJobs: 0,
    },
  ]
  const reasons = unavailableLabs(catalogue, paused, now, below)
  assert.equal(reasons.uk6, 'QualityBelowThreshold')
  assert.equal(reasons.nl1, 'LabPaused')
  assert.deepEqual(unavailableLabs(catalogue, [], now), {}, 'no quality given: no exclusion')

  const quality = labQualityOf(catalogue.findLab('uk6') as never, counts[0])
  assert.deepEqual(quality, {
    labCode: 'uk6',
    upheldItems: 2,
    itemsShipped: 100,
    ratePerThousand: 20,
    threshold: 5,
    belowThreshold: true,
  })
  assert.equal(
    labsBelowQuality(
      changedSampleCatalogue('none', () => {}),
      counts,
    ).length,
    0,
  )
})

test('the window is the last 90 days', () => {
  assert.equal(labQualityWindowStart(new Date('2026-03-31T00:00:00Z')).toISOString(), '2025-12-31T00:00:00.000Z')
})
