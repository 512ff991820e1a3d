import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { confirmStep, draftExpiry, endCancelledDraft, holdUntilFailure } from './drafts.ts'
import type { OrderDocument } from './order.ts'
import { emptyPipeline } from './pipeline/pipeline-order.ts'

tier('pure')

const now = new Date('2026-03-01T09:00:00.000Z')
const DAY_MS = 86_400_000

function document(extra: Partial<OrderDocument> = {}): OrderDocument {
  return { status: { stage: 'InProgress', details: {}, issues: [] }, ...extra } as unknown as OrderDocument
}

test('holdUntil must be after now and at most 14 days ahead', () => {
  assert.equal(holdUntilFailure(new Date(now.getTime() + 1000).toISOString(), now), undefined)
  assert.equal(holdUntilFailure(new Date(now.getTime() + 14 * DAY_MS).toISOString(), now), undefined)
  assert.equal(holdUntilFailure(now.toISOString(), now)?.code, 'MustBeGreaterThanOrEqualTo')
  const tooFar = holdUntilFailure(new Date(now.getTime() + 14 * DAY_MS + 1).toISOString(), now)
  assert.equal(tooFar?.code, 'MustBeLessThanOrEqualTo')
  assert.equal(tooFar?.comparisonValue, new Date(now.getTime() + 14 * DAY_MS).toISOString())
  assert.equal(holdUntilFailure('not a time', now)?.code, 'InvalidFormat')
})

test('a draft expires 30 days after its create', () => {
  assert.equal(draftExpiry(now).toISOString(), '2026-03-31T09:00:00.000Z')
})

test('confirm starts a draft, releases a hold still holding, repeats as before, and refuses anything else', () => {
  const pipeline = emptyPipeline()
  assert.equal(confirmStep(document({ draft: true, expiresAt: 'x' }), pipeline, now), 'start')
  const later = new Date(now.getTime() + DAY_MS).toISOString()
  assert.equal(confirmStep(document({ holdUntil: later }), pipeline, now), 'release')
  assert.equal(confirmStep(document({ holdUntil: now.toISOString() }), pipeline, now), 'already')
  assert.equal(confirmStep(document(), pipeline, now), 'notAvailable')
  assert.equal(confirmStep(document(), { ...pipeline, draftConfirmedAt: now.toISOString() }, now), 'already')
  const cancelled = document({ draft: true, expiresAt: 'x' })
  const cancelledPipeline = emptyPipeline()
  endCancelledDraft(cancelled, cancelledPipeline, now)
  cancelled.status.stage = 'Cancelled'
  assert.equal(confirmStep(cancelled, cancelledPipeline, now), 'notAvailable')
  assert.equal(Object.hasOwn(cancelled, 'draft'), false)
  assert.equal(cancelledPipeline.draftCancelledAt, now.toISOString())
})
