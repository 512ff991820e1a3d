// Merchants' claims about shipped work (docs/claims.md): the evidence photos uploaded first, the claim made on an
// order, read, listed and retracted, and the expiry of photos no claim used. A claim's rules are
// domain/claim-rules.ts's; this service gathers their facts under the order's lock and writes the claim through the
// one order change (services/order-change.ts), so the claim, its items, its photos and its `claimChanged` event
// commit together or not at all. Photos are made safe by the image normaliser app/ gives (adapters/evidence-image.ts)
// and kept in the blob store under `claim-evidence/<n>`.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { AccountScope } from '../domain/account-scope.ts'
import {
  type ClaimRequest,
  type EvidenceFact,
  newClaimView,
  planClaim,
  retractedView,
  retractRefusal,
} from '../domain/claim-rules.ts'
import {
  CLAIM_CATEGORIES,
  type ClaimCategory,
  type ClaimStatus,
  type ClaimView,
  DEFAULT_CLAIM_WINDOW_DAYS,
  EVIDENCE_LIFETIME_MS,
} from '../domain/claims.ts'
import { formatId, parseId, parseRequestId } from '../domain/ids.ts'
import { type JobRequest, jobRequest } from '../domain/jobs.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { simulatedClaimDecision } from '../domain/sandbox-scenarios.ts'
import {
  changeClaimStatus,
  deleteUnusedEvidence,
  findClaimForCaller,
  findMerchantEvidenceForCaller,
  insertClaim,
  insertMerchantEvidence,
  listClaimsForCaller,
  listUnusedEvidence,
  lockMerchantEvidence,
  nextClaimNumber,
  nextEvidenceNumber,
  openClaimsOfItems,
} from '../repositories/claims.repository.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'

/** A photo made safe (adapters/evidence-image.ts), or why it is refused. */
export type EvidenceImageResult =
  | { kind: 'image'; data: Buffer; contentType: 'image/jpeg' | 'image/png'; width: number; height: number }
  | { kind: 'refused'; reason: string }

/** An uploaded photo as POST /v4.0/claims/evidence answers it. */
export interface EvidenceView {
  id: string
  contentType: 'image/jpeg' | 'image/png'
  width: number
  height: number
  bytes: number
  /** When it is deleted unless a claim uses it. */
  expiresAt: string
}

export interface ClaimListFilters {
  status: ClaimStatus | null
  orderId: string | null
  createdFrom: Date | null
  createdTo: Date | null
  /** The cursor: only claims older than this clm_ id. */
  before: string | null
  top: number
}

export interface ClaimsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  events: OrderEventsService
  files: {
    put(key: string, source: Buffer, contentType: string): Promise<void>
    get(key: string): Promise<Buffer>
    delete(key: string): Promise<void>
  }
  normaliseImage: (input: Buffer) => Promise<EvidenceImageResult>
  /** Days after delivery a claim may be made (`--claim-window-days`); DEFAULT_CLAIM_WINDOW_DAYS when absent. */
  windowDays?: number
  /**
   * How long the Sandbox's simulated operator takes to decide a claim by itself, for the scenarios that ask it to
   * (claimsResolved, claimsRejected): the simulated labs' step time; 0 when absent.
   */
  simulatedOperatorSeconds?: number
}

/** Claims for merchants: evidence, claims, their listing and retraction, the evidence's expiry. */
export interface ClaimsService {
  /** Every claim category with its rules. */
  categories(): readonly ClaimCategory[]
  /** Keeps a photo, re-encoded without metadata; ValidationFailed on `body` for what is no JPEG or PNG. */
  uploadEvidence(scope: AccountScope, body: Buffer): Promise<EvidenceView>
  /** The scope's own photo; EntityNotFound otherwise. */
  evidenceImage(scope: AccountScope, evidenceId: string): Promise<{ data: Buffer; contentType: string }>
  /** A new Pending claim on the scope's order; ValidationFailed naming the field, EntityNotFound for the order. */
  createClaim(scope: AccountScope, orderId: string, request: ClaimRequest): Promise<ClaimView>
  /** The scope's claim as JSON text (the stored ClaimView); EntityNotFound otherwise. */
  getClaim(scope: AccountScope, claimId: string): Promise<string>
  /** The scope's claims, newest first, a page at a time. */
  listClaims(
    scope: AccountScope,
    filters: ClaimListFilters,
  ): Promise<{ claimsJson: string[]; hasMore: boolean; nextBefore: string | null }>
  /** Retracts a Pending claim; ValidationFailed on `status` for any other. */
  retractClaim(scope: AccountScope, claimId: string): Promise<ClaimView>
  /** The expire-claim-evidence job: deletes photos no claim used, past their lifetime (row and blob); how many. */
  expireEvidence(): Promise<number>
}

/** The blob key of an evidence photo. */
export function evidenceBlobKey(number: number): string {
  return `claim-evidence/${number}`
}

/** At most this many unused photos are deleted per run; the next hourly run takes the rest. */
const EXPIRY_BATCH = 1000

function notFound(what: string): ServiceError {
  return new ServiceError('EntityNotFound', `${what} was not found`)
}

async function uploadEvidence(deps: ClaimsDeps, scope: AccountScope, body: Buffer): Promise<EvidenceView> {
  const image = await deps.normaliseImage(body)
  if (image.kind === 'refused') {
    const tooLarge = image.reason.includes('pixels')
    throw validationFailed(
      {
        body: [{ code: tooLarge ? 'ImageTooLarge' : 'NotAnImage', providedValue: null, comparisonValue: image.reason }],
      },
      `The photo ${image.reason}`,
    )
  }
  const number = await nextEvidenceNumber(deps.db)
  const blobKey = evidenceBlobKey(number)
  const createdAt = deps.clock.now()
  // The blob first: a row never names a photo that is not there (a blob without its row is removed by nothing,
  // but only a failed insert leaves one).
  await deps.files.put(blobKey, image.data, image.contentType)
  const stored = {
    id: number,
    blobKey,
    contentType: image.contentType,
    bytes: image.data.length,
    width: image.width,
    height: image.height,
    createdAt,
  }
  await insertMerchantEvidence(deps.db, scope, stored)
  return {
    id: formatId('evd', number),
    contentType: stored.contentType,
    width: stored.width,
    height: stored.height,
    bytes: stored.bytes,
    expiresAt: new Date(createdAt.getTime() + EVIDENCE_LIFETIME_MS).toISOString(),
  }
}

async function evidenceImage(deps: ClaimsDeps, scope: AccountScope, evidenceId: string) {
  const number = parseRequestId('evd', evidenceId, 'evidenceId')
  const evidence = await findMerchantEvidenceForCaller(deps.db, scope, number)
  if (!evidence) throw notFound(`Evidence ${evidenceId}`)
  try {
    return { data: await deps.files.get(evidence.blobKey), contentType: evidence.contentType }
  } catch {
    throw notFound(`Evidence ${evidenceId}`) // deleted by the expiry meanwhile
  }
}

function evidenceIdsOf(request: ClaimRequest): number[] {
  const ids = (request.items ?? []).flatMap((item) => item.evidence ?? [])
  return ids.map((id) => parseId('evd', id)).filter((number): number is number => number !== undefined)
}

async function createClaim(
  deps: ClaimsDeps,
  scope: AccountScope,
  orderId: string,
  request: ClaimRequest,
): Promise<ClaimView> {
  const orderNumber = parseRequestId('ord', orderId, 'orderId')
  const changes = createOrderChanger(deps)
  const changed = await changes.change(
    orderNumber,
    async (order, tx) => {
      const now = deps.clock.now()
      const evidence = new Map<number, EvidenceFact>()
      for (const row of await lockMerchantEvidence(tx, scope, evidenceIdsOf(request))) {
        evidence.set(row.id, { id: row.id, used: row.claimId !== null, createdAt: row.createdAt })
      }
      const itemNumbers = order.document.items.map((item) => parseId('ori', item.id) ?? 0)
      const open = await openClaimsOfItems(tx, itemNumbers)
      const openClaims = new Map([...open].map(([item, claim]) => [item, formatId('clm', claim)]))
      const windowDays = deps.windowDays ?? DEFAULT_CLAIM_WINDOW_DAYS
      const plan = planClaim(order.document, request, { now, windowDays, evidence, openClaims })
      if (plan.kind === 'evidenceNotFound') throw notFound(`Evidence ${plan.evidenceId}`)
      if (plan.kind === 'refused') throw validationFailed(plan.failures, 'The claim cannot be made')
      const id = await nextClaimNumber(tx)
      const shipmentId = plan.claim.shipmentNumber === null ? null : formatId('shp', plan.claim.shipmentNumber)
      const view = newClaimView({ id, orderId: order.document.id, claim: plan.claim, shipmentId, now })
      await insertClaim(tx, scope, {
        id,
        orderNumber: order.orderNumber,
        shipmentNumber: plan.claim.shipmentNumber,
        labCode: plan.claim.labCode,
        preferredResolution: plan.claim.preferredResolution,
        createdAt: now,
        document: JSON.stringify(view),
        items: plan.claim.items,
        evidenceNumbers: plan.claim.evidenceNumbers,
      })
      return {
        changed: false,
        events: [{ kind: 'claimChanged' as const, claimId: view.id, status: 'Created' as const, claim: { ...view } }],
        jobs: simulatedOperatorJobs(deps, order, view.id, now),
        view,
      }
    },
    scope,
  )
  if (!changed) throw notFound(`Order ${orderId}`)
  return changed.result.view
}

/**
 * The Sandbox's simulated operator's decision of a new claim, a step's time later, when the order's scenario asks
 * for one (docs/sandbox.md#claims); none otherwise: the claim waits for advance, or for the operator on Live.
 */
function simulatedOperatorJobs(deps: ClaimsDeps, order: PipelineOrder, claimId: string, now: Date): JobRequest[] {
  if (order.environment !== 'sandbox' || simulatedClaimDecision(order.sandboxScenario) === undefined) return []
  const startAfter = new Date(now.getTime() + (deps.simulatedOperatorSeconds ?? 0) * 1000)
  return [jobRequest('simulated-claim-decision', { claimId }, startAfter)]
}

async function getClaim(deps: ClaimsDeps, scope: AccountScope, claimId: string): Promise<string> {
  const claim = await findClaimForCaller(deps.db, scope, parseRequestId('clm', claimId, 'claimId'))
  if (!claim) throw notFound(`Claim ${claimId}`)
  return claim.document
}

async function listClaims(deps: ClaimsDeps, scope: AccountScope, filters: ClaimListFilters) {
  const orderNumber = filters.orderId === null ? null : parseRequestId('ord', filters.orderId, 'orderId')
  const before = filters.before === null ? null : parseRequestId('clm', filters.before, 'before')
  const page = await listClaimsForCaller(deps.db, scope, {
    status: filters.status,
    orderNumber,
    createdFrom: filters.createdFrom,
    createdTo: filters.createdTo,
    before,
    top: filters.top,
  })
  return {
    claimsJson: page.documents,
    hasMore: page.hasMore,
    nextBefore: page.hasMore && page.lastId !== null ? formatId('clm', page.lastId) : null,
  }
}

async function retractClaim(deps: ClaimsDeps, scope: AccountScope, claimId: string): Promise<ClaimView> {
  const number = parseRequestId('clm', claimId, 'claimId')
  const found = await findClaimForCaller(deps.db, scope, number)
  if (!found) throw notFound(`Claim ${claimId}`)
  const changes = createOrderChanger(deps)
  const changed = await changes.change(
    found.orderNumber,
    async (_order, tx) => {
      const claim = await findClaimForCaller(tx, scope, number)
      if (!claim) throw notFound(`Claim ${claimId}`)
      const refusal = retractRefusal(claim.status)
      if (refusal)
        throw validationFailed(refusal, `Claim ${claimId} is ${claim.status}; only a Pending claim can be retracted`)
      const now = deps.clock.now()
      const view = retractedView(JSON.parse(claim.document) as ClaimView, now)
      const document = JSON.stringify(view)
      // A resolution that committed after this read is seen here: one of the two changes wins.
      if (
        !(await changeClaimStatus(tx, { id: number, version: claim.version, status: 'Retracted', document, at: now }))
      ) {
        throw validationFailed(
          { status: [{ code: 'InvalidValue', providedValue: 'Changed', validValues: ['Pending'] }] },
          `Claim ${claimId} changed meanwhile; read it again`,
        )
      }
      return {
        changed: false,
        events: [{ kind: 'claimChanged' as const, claimId: view.id, status: 'Retracted' as const, claim: { ...view } }],
        view,
      }
    },
    scope,
  )
  if (!changed) throw notFound(`Claim ${claimId}`)
  return changed.result.view
}

async function expireEvidence(deps: ClaimsDeps): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - EVIDENCE_LIFETIME_MS)
  let deleted = 0
  for (const { id, blobKey } of await listUnusedEvidence(deps.db, cutoff, EXPIRY_BATCH)) {
    // The row first, and only while unused: a claim taking the photo at this moment keeps it whole.
    if (!(await deleteUnusedEvidence(deps.db, id))) continue
    await deps.files.delete(blobKey)
    deleted++
  }
  return deleted
}

export function createClaimsService(deps: ClaimsDeps): ClaimsService {
  return {
    categories: () => CLAIM_CATEGORIES,
    uploadEvidence: (scope, body) => uploadEvidence(deps, scope, body),
    evidenceImage: (scope, id) => evidenceImage(deps, scope, id),
    createClaim: (scope, orderId, request) => createClaim(deps, scope, orderId, request),
    getClaim: (scope, id) => getClaim(deps, scope, id),
    listClaims: (scope, filters) => listClaims(deps, scope, filters),
    retractClaim: (scope, id) => retractClaim(deps, scope, id),
    expireEvidence: () => expireEvidence(deps),
  }
}
