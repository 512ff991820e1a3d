// Draft orders and per-order holds as pure rules (docs/api.md#drafts-and-holds).
//
// A draft is an order created with `draft: true`: stored, validated and priced like any other, but not started
// (no download, allocation, charge or render) until it is confirmed. A per-order hold (`holdUntil`) starts the
// order at that instant instead of now, like the account's pause window but visible all along. The order shows
// `draft: true` and `expiresAt` while it is a draft (absent otherwise) and `holdUntil` from its create on; the
// pipeline state remembers a confirm or an early release (DraftMarks), so a second confirm answers as the first did.
import type { Failure } from './failures.ts'
import { type JobRequest, jobRequest } from './jobs.ts'
import { DRAFT_LIFETIME_DAYS, MAX_HOLD_DAYS } from './limits.ts'
import type { OrderDocument } from './order.ts'
import type { PipelineState } from './pipeline/pipeline-order.ts'

const DAY_MS = 86_400_000

/** What the pipeline state remembers of a draft or a hold once it ended: a second confirm answers the same. */
export interface DraftMarks {
  /** When the draft was confirmed (its start was queued then). */
  draftConfirmedAt?: string
  /** When the draft was cancelled; with `draftExpired` when its expiry did it. */
  draftCancelledAt?: string
  draftExpired?: boolean
  /** When the order's hold was released early (confirm). */
  holdReleasedAt?: string
}

/** The job that cancels the draft at `expiresAt` unless it was confirmed or cancelled before. */
export function expireDraftJob(orderId: string, expiresAt: Date): JobRequest {
  return jobRequest('expire-draft', { orderId }, expiresAt)
}

/** When a draft created at `now` expires. */
export function draftExpiry(now: Date): Date {
  return new Date(now.getTime() + DRAFT_LIFETIME_DAYS * DAY_MS)
}

/**
 * What is wrong with a `holdUntil` sent at `now`: not after now, or more than MAX_HOLD_DAYS ahead; undefined when
 * it is fine. The schema has checked it is a date-time.
 */
export function holdUntilFailure(holdUntil: string, now: Date): Failure | undefined {
  const at = Date.parse(holdUntil)
  if (Number.isNaN(at)) return { code: 'InvalidFormat', providedValue: holdUntil, comparisonValue: 'date-time' }
  if (at <= now.getTime()) {
    return { code: 'MustBeGreaterThanOrEqualTo', providedValue: holdUntil, comparisonValue: now.toISOString() }
  }
  const latest = new Date(now.getTime() + MAX_HOLD_DAYS * DAY_MS)
  if (at > latest.getTime()) {
    return { code: 'MustBeLessThanOrEqualTo', providedValue: holdUntil, comparisonValue: latest.toISOString() }
  }
  return undefined
}

/** Whether the order is a draft now: created as one, neither confirmed nor cancelled since. */
export function isOpenDraft(document: OrderDocument): boolean {
  return document.draft === true
}

/** The instant the order's own hold keeps it until, if it is still holding at `now`. */
export function heldUntil(document: OrderDocument, now: Date): Date | undefined {
  if (!document.holdUntil) return undefined
  const until = new Date(document.holdUntil)
  return until > now ? until : undefined
}

/** The order stops being a draft: its `draft` and `expiresAt` keys go. */
function dropDraftKeys(document: OrderDocument): void {
  delete document.draft
  delete document.expiresAt
}

/**
 * What a confirm does to the order (POST .../actions/confirm): `start` (a draft: it starts now, as a new order
 * would), `release` (a held order not started: the hold ends now and it starts now), `already` (confirmed or
 * released before, or its hold ended by itself: the same answer, nothing changes) or `notAvailable` (neither a
 * draft nor a held order, or a draft cancelled).
 */
export type ConfirmStep = 'start' | 'release' | 'already' | 'notAvailable'

export function confirmStep(document: OrderDocument, pipeline: PipelineState, now: Date): ConfirmStep {
  if (pipeline.draftConfirmedAt || pipeline.holdReleasedAt) return 'already'
  if (document.status.stage !== 'InProgress') return 'notAvailable'
  if (isOpenDraft(document)) return 'start'
  if (document.holdUntil === undefined) return 'notAvailable'
  return heldUntil(document, now) && pipeline.phase === 'waiting' ? 'release' : 'already'
}

/** Whether a confirm would do something or answer as before (GET .../actions, `confirm`). */
export function canConfirm(document: OrderDocument, pipeline: PipelineState, now: Date): boolean {
  const step = confirmStep(document, pipeline, now)
  return step === 'start' || step === 'release'
}

/** Confirms the draft: it is an ordinary order from now (its start is the caller's to queue). */
export function confirmDraft(document: OrderDocument, pipeline: PipelineState, now: Date): void {
  pipeline.draftConfirmedAt = now.toISOString()
  dropDraftKeys(document)
  document.lastUpdated = now.toISOString()
}

/** Releases the order's hold early: `holdUntil` becomes now, the moment it was released. */
export function releaseHold(document: OrderDocument, pipeline: PipelineState, now: Date): void {
  pipeline.holdReleasedAt = now.toISOString()
  document.holdUntil = now.toISOString()
  document.lastUpdated = now.toISOString()
}

/** A draft cancelled (by its merchant, the operator, or its expiry when `expired`) is a draft no more. */
export function endCancelledDraft(document: OrderDocument, pipeline: PipelineState, now: Date, expired = false): void {
  if (!isOpenDraft(document)) return
  pipeline.draftCancelledAt = now.toISOString()
  if (expired) pipeline.draftExpired = true
  dropDraftKeys(document)
}

/** Whether the open draft's time is up at `now`. */
export function draftHasExpired(document: OrderDocument, now: Date): boolean {
  return isOpenDraft(document) && document.expiresAt !== undefined && Date.parse(document.expiresAt) <= now.getTime()
}

/** When the open draft expires (null when the order is no draft): the `draft_expires_at` column. */
export function openDraftExpiry(document: OrderDocument): Date | null {
  return isOpenDraft(document) && document.expiresAt ? new Date(document.expiresAt) : null
}
