// The labs' side of claims (docs/labs.md#claims): the Live claims against a lab's work, the photos it may see, its
// photos uploaded for an answer, and its one answer (accept or dispute), written into the claim under the order's
// lock (services/order-change.ts) so that it never crosses the operator's resolution of the same claim.
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { JobEnqueuer } from '../../adapters/job-queue.ts'
import type { ClaimView } from '../../domain/claims.ts'
import type { Failures } from '../../domain/failures.ts'
import { formatId, parseId, parseRequestId } from '../../domain/ids.ts'
import {
  LAB_ANSWER_OF_CHOICE,
  LAB_CLAIMS_DEFAULT_TOP,
  type LabAnswerChoice,
  type LabClaimView,
  labClaimViewOf,
  withLabAnswer,
} from '../../domain/lab-claims.ts'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import {
  drawEvidenceNumber,
  findEvidenceForLab,
  findLabClaim,
  insertLabEvidence,
  type LabClaimRow,
  labEvidenceOfClaims,
  listLabClaims,
  lockFreeLabEvidence,
  lockLabClaim,
  saveLabAnswer,
} from '../../repositories/lab-claims.repository.ts'
import { createOrderChanger } from '../order-change.ts'
import type { OrderEventsService } from '../order-events.service.ts'

/** A photo made safe to keep (adapters/evidence-image.ts, which app.ts hands in), or why it is refused. */
export type NormalisedEvidence =
  | { kind: 'image'; data: Buffer; contentType: 'image/jpeg' | 'image/png'; width: number; height: number }
  | { kind: 'refused'; reason: string }

export interface LabClaimsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  events: OrderEventsService
  /** The blob store: photos are kept under `claim-evidence/`. */
  files: {
    put(key: string, source: Buffer, contentType: string): Promise<void>
    get(key: string): Promise<Buffer>
  }
  normaliseEvidence(data: Buffer): Promise<NormalisedEvidence>
  /** Where the lab API serves a photo (GET /labs/v1/claims/evidence/{id}). */
  evidenceUrl(evidenceId: string): string
}

export interface LabClaimsPage {
  claims: LabClaimView[]
  hasMore: boolean
  /** The cursor of the next (older) page; null on the last. */
  nextBefore: string | null
}

export interface LabEvidenceView {
  id: string
  contentType: string
  bytes: number
  width: number
  height: number
  url: string
}

export interface LabAnswerInput {
  answer: LabAnswerChoice
  comment?: string | null
  evidence?: readonly string[]
}

export interface LabClaimsService {
  /** The lab's Live claims, newest first, a page at a time (`before`: a claim id, the cursor). */
  list(
    labCode: string,
    page: { before?: string; top?: number; status?: string },
    photoUrl?: (evidenceId: string) => string,
  ): Promise<LabClaimsPage>
  /** One of the lab's claims; EntityNotFound for another lab's or none. */
  get(labCode: string, claimId: string, photoUrl?: (evidenceId: string) => string): Promise<LabClaimView>
  /** Stores a photo for the lab's answer (JPEG or PNG, re-encoded without metadata). */
  uploadEvidence(labCode: string, data: Buffer): Promise<LabEvidenceView>
  /** A photo the lab may see: its own, or one of a claim against it; EntityNotFound otherwise. */
  evidence(labCode: string, evidenceId: string): Promise<{ data: Buffer; contentType: string }>
  /** The lab's one answer to a Pending claim; the claim as the lab sees it after. */
  answer(
    labCode: string,
    claimId: string,
    input: LabAnswerInput,
    photoUrl?: (evidenceId: string) => string,
  ): Promise<LabClaimView>
}

export function createLabClaimsService(deps: LabClaimsDeps): LabClaimsService {
  const changer = createOrderChanger(deps)
  const notFound = (claimId: string) => new ServiceError('EntityNotFound', `Claim ${claimId} was not found`)

  async function viewsOf(rows: readonly LabClaimRow[], photoUrl: (id: string) => string): Promise<LabClaimView[]> {
    const photos = await labEvidenceOfClaims(
      deps.db,
      rows.map((row) => row.claimNumber),
    )
    return rows.map((row) =>
      labClaimViewOf(
        JSON.parse(row.document) as ClaimView,
        (photos.get(row.claimNumber) ?? []).map((number) => formatId('evd', number)),
        photoUrl,
      ),
    )
  }

  return {
    async list(labCode, page, photoUrl = deps.evidenceUrl) {
      const top = page.top ?? LAB_CLAIMS_DEFAULT_TOP
      const before = page.before === undefined ? null : parseRequestId('clm', page.before, 'before')
      const rows = await listLabClaims(deps.db, { labCode, before, limit: top + 1, status: page.status ?? null })
      const shown = rows.slice(0, top)
      const last = shown.at(-1)
      return {
        claims: await viewsOf(shown, photoUrl),
        hasMore: rows.length > top,
        nextBefore: rows.length > top && last ? formatId('clm', last.claimNumber) : null,
      }
    },

    async get(labCode, claimId, photoUrl = deps.evidenceUrl) {
      const number = parseRequestId('clm', claimId, 'id')
      const row = await findLabClaim(deps.db, labCode, number)
      if (!row) throw notFound(claimId)
      return (await viewsOf([row], photoUrl))[0] as LabClaimView
    },

    uploadEvidence: (labCode, data) => uploadEvidence(deps, labCode, data),

    async evidence(labCode, evidenceId) {
      const number = parseId('evd', evidenceId)
      const row = number === undefined ? undefined : await findEvidenceForLab(deps.db, labCode, number)
      if (!row) throw new ServiceError('EntityNotFound', `Photo ${evidenceId} was not found`)
      return { data: await deps.files.get(row.blobKey), contentType: row.contentType }
    },

    async answer(labCode, claimId, input, photoUrl = deps.evidenceUrl) {
      const claimNumber = parseRequestId('clm', claimId, 'id')
      const evidenceNumbers = evidenceNumbersOf(input.evidence ?? [])
      const found = await findLabClaim(deps.db, labCode, claimNumber)
      if (!found) throw notFound(claimId)
      const changed = await changer.change(found.orderNumber, async (_order, tx) => {
        const claim = await lockLabClaim(tx, labCode, claimNumber)
        if (!claim) throw notFound(claimId)
        refuseUnanswerable(claim, input.answer)
        const photos = await lockFreeLabEvidence(tx, labCode, evidenceNumbers)
        refuseUnusableEvidence(input.evidence ?? [], evidenceNumbers, photos)
        const answer = { answer: LAB_ANSWER_OF_CHOICE[input.answer], comment: blankToNull(input.comment) }
        const document = withLabAnswer(JSON.parse(claim.document) as ClaimView, answer, deps.clock.now())
        const saved = await saveLabAnswer(tx, {
          claimNumber,
          version: claim.version,
          ...answer,
          at: deps.clock.now(),
          document: JSON.stringify(document),
          evidenceNumbers,
        })
        // Under the claim's row lock nothing else can answer first; a change of version here is a bug.
        if (!saved) throw new Error(`claim ${claimId} changed under its lock`)
        // The answer changes the claim, not the order: no order event (claimChanged has no "answered" status).
        return { changed: false }
      })
      if (!changed) throw notFound(claimId)
      const row = await findLabClaim(deps.db, labCode, claimNumber)
      if (!row) throw notFound(claimId)
      return (await viewsOf([row], photoUrl))[0] as LabClaimView
    },
  }
}

function blankToNull(text: string | null | undefined): string | null {
  return text === undefined || text === null || text.trim() === '' ? null : text
}

/** The evd_ numbers of an answer's photos; ValidationFailed naming each id that is none, or given twice. */
function evidenceNumbersOf(ids: readonly string[]): number[] {
  const failures: Failures = {}
  const numbers: number[] = []
  for (const [index, id] of ids.entries()) {
    const number = parseId('evd', id)
    if (number === undefined) {
      failures[`evidence[${index}]`] = [{ code: 'InvalidFormat', providedValue: id, comparisonValue: 'evd_<number>' }]
    } else if (numbers.includes(number)) {
      failures[`evidence[${index}]`] = [{ code: 'InvalidValue', providedValue: id, comparisonValue: 'given twice' }]
    } else numbers.push(number)
  }
  if (Object.keys(failures).length > 0) throw validationFailed(failures)
  return numbers
}

/** A claim is answered once, while it is Pending. */
function refuseUnanswerable(claim: LabClaimRow, answer: LabAnswerChoice): void {
  if (claim.labAnswer !== null) {
    throw validationFailed(
      { answer: [{ code: 'ClaimAlreadyAnswered', providedValue: answer, comparisonValue: claim.labAnswer }] },
      'The lab has already answered this claim',
    )
  }
  if (claim.status !== 'Pending') {
    throw validationFailed(
      { status: [{ code: 'ClaimNotPending', providedValue: claim.status, comparisonValue: 'Pending' }] },
      `The claim is ${claim.status}: only a Pending claim can be answered`,
    )
  }
}

/** Each photo must be the lab's own and used by no claim yet. */
function refuseUnusableEvidence(
  ids: readonly string[],
  numbers: readonly number[],
  photos: readonly { evidenceNumber: number; claimNumber: number | null }[],
): void {
  const failures: Failures = {}
  for (const [index, number] of numbers.entries()) {
    const photo = photos.find((candidate) => candidate.evidenceNumber === number)
    if (!photo) failures[`evidence[${index}]`] = [{ code: 'UnknownEvidence', providedValue: ids[index] }]
    else if (photo.claimNumber !== null) {
      failures[`evidence[${index}]`] = [
        { code: 'EvidenceInUse', providedValue: ids[index], comparisonValue: formatId('clm', photo.claimNumber) },
      ]
    }
  }
  if (Object.keys(failures).length > 0) throw validationFailed(failures)
}

async function uploadEvidence(deps: LabClaimsDeps, labCode: string, data: Buffer): Promise<LabEvidenceView> {
  const image = await deps.normaliseEvidence(data)
  if (image.kind === 'refused') {
    throw validationFailed(
      { body: [{ code: 'NotAnImage', providedValue: null, comparisonValue: `the photo ${image.reason}` }] },
      `The photo ${image.reason}`,
    )
  }
  const number = await drawEvidenceNumber(deps.db)
  const id = formatId('evd', number)
  const blobKey = `claim-evidence/${id}`
  await deps.files.put(blobKey, image.data, image.contentType)
  await insertLabEvidence(deps.db, {
    evidenceNumber: number,
    labCode,
    blobKey,
    contentType: image.contentType,
    bytes: image.data.length,
    width: image.width,
    height: image.height,
    at: deps.clock.now(),
  })
  return {
    id,
    contentType: image.contentType,
    bytes: image.data.length,
    width: image.width,
    height: image.height,
    url: deps.evidenceUrl(id),
  }
}
