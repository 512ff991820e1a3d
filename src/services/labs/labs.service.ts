// The lab side of the pipeline: lab keys, the jobs a lab sees, and its reports. Every report goes through
// the same pipeline functions the simulated labs use.
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { AuditActor } from '../../domain/audit.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import {
  type CommercialInvoiceContent,
  commercialInvoiceKey,
  EXPORT_REASON,
  shipmentDeclaration,
} from '../../domain/commercial-invoice.ts'
import { shipByDate } from '../../domain/delivery-promise.ts'
import {
  MAX_TRACKING_EVENTS_PER_SHIPMENT,
  type TrackingRefusal,
  trackingRefusal,
} from '../../domain/delivery-tracking.ts'
import type { Environment } from '../../domain/environment.ts'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import { formatId, ID_PREFIXES, parseId } from '../../domain/ids.ts'
import { dailyCapacity, jobsGivenOn, labDate } from '../../domain/lab-availability.ts'
import {
  CANCELLATION_REQUEST_LAPSE_HOURS,
  type CancellationRefusal,
  openCancellationRequest,
} from '../../domain/lab-cancellation.ts'
import type {
  LabCapacityView,
  LabJobHistoryPage,
  LabJobView,
  LabPrintFileView,
  LabWork,
} from '../../domain/lab-jobs.ts'
import type { LabKeyState, LabKeyView } from '../../domain/lab-keys.ts'
import {
  DEFAULT_SIGNING_OVERLAP_SECONDS,
  isSigningOverlap,
  LAB_JOB_HISTORY_LIMITS,
  MAX_SIGNING_OVERLAP_SECONDS,
  TRACKING_REPORT_LIMITS,
} from '../../domain/limits.ts'
import type { Parcel, Recipient, Shipment, TrackingEvent } from '../../domain/order.ts'
import { ServiceError, validationFailed } from '../../domain/outcomes.ts'
import {
  type ItemReportRefusal,
  itemReportRefusal,
  type LabReport,
  labItemState,
} from '../../domain/pipeline/lab-report.ts'
import type { PipelineOrder, PrintFile } from '../../domain/pipeline/pipeline-order.ts'
import { canonicalSpelling, labPriorityOf, SHIPPING_METHODS } from '../../domain/shipping-methods.ts'
import { appendAuditEvent } from '../../repositories/audit.repository.ts'
import {
  listLabAvailability,
  lockLabPaused,
  setLabCapacity,
  setLabPaused,
} from '../../repositories/lab-availability.repository.ts'
import { findLabJob, type LabJobRow, listLabJobs, searchLabJobs } from '../../repositories/lab-jobs.repository.ts'
import {
  expireLabKeys,
  findLabCodeByKeyHash,
  insertLabKey,
  type LabKeyRow,
  listLabKeys,
  revokeLabKey,
} from '../../repositories/lab-keys.repository.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import { deleteLabKeySessions } from '../../repositories/sessions.repository.ts'
import { type ServiceLogger, silentLogger } from '../observability.ts'
import type { PipelineService } from '../pipeline/index.ts'
import type { FileLinker } from '../pipeline/ports.ts'
import { hashSecretKey, newSecretKey } from '../secret-keys.ts'

/** Lab job states a lab still has to act on (its jobs in flight). */
export const OPEN_STATES = ['submitted', 'acknowledged', 'inProduction'] as const

/** Lab job states that end a job: its history (the lab portal's History view). */
export const CLOSED_STATES = ['shipped', 'rejected', 'cancelled'] as const

export class LabError extends Error {}

/** A new lab key (created or the outcome of a rotation): the only time the key itself is shown. */
export interface IssuedLabKey {
  key: string
  view: LabKeyView
}

export function labKeyState(row: Pick<LabKeyRow, 'revokedAt' | 'expiresAt'>, now: Date): LabKeyState {
  if (row.revokedAt) return 'revoked'
  if (row.expiresAt) return row.expiresAt > now ? 'expiring' : 'expired'
  return 'active'
}

export function toLabKeyView(row: LabKeyRow, now: Date): LabKeyView {
  return {
    id: formatId(ID_PREFIXES.labKey, row.id),
    lab: row.labCode,
    prefix: row.prefix,
    state: labKeyState(row, now),
    created: row.createdAt.toISOString(),
    lastUsed: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revoked: row.revokedAt?.toISOString() ?? null,
  }
}

/**
 * Why a rotation's overlap (seconds) is refused, or undefined: whole seconds from 0 to the longest signing-secret
 * overlap (30 days), the same bounds as a push or callback signing secret's rotation.
 */
export function labKeyOverlapRefusal(seconds: number): string | undefined {
  if (!isSigningOverlap(seconds)) {
    return `the overlap must be whole seconds from 0 to ${MAX_SIGNING_OVERLAP_SECONDS} (30 days), got ${seconds}`
  }
  return undefined
}

/**
 * What a print file made at render time tells a lab about itself; PDFs have no pixels, dpi or colour space. The
 * record's `dpi` is the source's effective resolution (`sourceDpi`); `dpi` is the file's own, for files made since
 * it is written into them (older ones show `sourceDpi` alone).
 */
function printFileFacts(file: PrintFile | null | undefined): Omit<LabPrintFileView, 'printArea' | 'url' | 'format'> {
  if (!file || file.sha256 === undefined) return {}
  return {
    sha256: file.sha256,
    ...(file.bytes !== undefined ? { bytes: file.bytes } : {}),
    ...(file.format !== 'pdf' ? { pixelSize: { width: file.width, height: file.height } } : {}),
    ...(file.fileDpi !== undefined ? { dpi: file.fileDpi } : {}),
    ...(file.colourSpace !== undefined ? { colourSpace: file.colourSpace } : {}),
    ...(file.dpi !== undefined ? { sourceDpi: file.dpi } : {}),
    ...(file.manifest !== undefined ? { manifest: file.manifest } : {}),
  }
}

/** What building a job view needs: the catalogue (the ship-by date) and how the job's files are linked. */
export interface LabJobViewContext {
  catalogue: Catalogue
  /** Signed links when answering the lab API; file tokens (refreshed when sent) when storing a pushed job. */
  links: Pick<PipelineService, 'printFileUrls' | 'extraFileUrls' | 'packingSlipPdfUrl'> & {
    /** The commercial invoice's signed link (or file token) of a cross-border shipment. */
    commercialInvoiceUrl(order: PipelineOrder, shipmentId: string): string
  }
  /** The time the view is made at: whether a cancellation request is still open (it lapses). */
  now: () => Date
}

/**
 * One shipment as a lab sees it, in `state`: what GET /labs/v1/jobs lists and what a pushed job carries (the same
 * function, so a pushed job is exactly what polling shows). Undefined when the order has no such shipment.
 */
export function buildLabJobView(
  context: LabJobViewContext,
  order: PipelineOrder,
  shipmentId: string,
  state: string,
): LabJobView | undefined {
  const { catalogue, links } = context
  const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const held = order.pipeline.shipments[shipmentId]
  // A shipment the lab rejected whole, or the operator moved to another lab, has left the order; its job is still
  // the lab's history.
  if (!shipment && held?.state !== 'rejected' && !held?.moved) return undefined
  const printFiles = links.printFileUrls(order, shipmentId)
  const extras = links.extraFileUrls(order)
  // What the lab was given at submission: a later (partial) recipient or method change does not reach it.
  const submitted = order.pipeline.shipments[shipmentId]?.submitted
  const shippingMethod = submitted?.shippingMethod ?? order.document.shippingMethod
  const shipBy = shipByOf(catalogue, order, shipmentId, shippingMethod)
  const stored = order.pipeline.shipments[shipmentId]?.printFiles ?? {}
  // The shipment's items and those it gave back, in the order's order: the lab sees what left its job.
  const itemIds = jobItemIds(order, shipmentId)
  const cancellation = openCancellationRequest(order.pipeline.shipments[shipmentId], context.now())
  const recipient = submitted?.recipient ?? order.document.recipient
  const customs = customsOf(context, order, shipmentId, recipient, parcelItemIds(order, shipmentId))
  return {
    shipmentId,
    orderId: order.document.id,
    state,
    shippingMethod,
    carrier: shipment?.carrier ?? rejectedCarrier(catalogue, order, shipmentId, shippingMethod, recipient),
    recipient,
    items: itemIds.map((itemId) => {
      const item = order.document.items.find((candidate) => candidate.id === itemId)
      return {
        itemId,
        state: labItemState(order.pipeline, shipmentId, itemId),
        sku: item?.sku ?? '',
        copies: item?.copies ?? 0,
        attributes: item?.attributes ?? {},
        printFiles: (item?.assets ?? []).flatMap((asset) => {
          const file = printFiles.find((candidate) => candidate.assetId === asset.id)
          if (!file) return []
          const facts = printFileFacts(stored[asset.id])
          return [{ printArea: asset.printArea, url: file.url, format: file.format, ...facts }]
        }),
        description: (item && catalogue.findProduct(item.sku)?.description) ?? item?.sku ?? '',
      }
    }),
    packingSlip: extras.packingSlip,
    branding: extras.branding,
    ...(shipBy ? { shipBy } : {}),
    priority: labPriorityOf(shippingMethod),
    packingSlipPdf: links.packingSlipPdfUrl(order, shipmentId),
    ...(cancellation ? { cancellationRequested: { at: cancellation.at } } : {}),
    ...(customs ? { customs } : {}),
    parcels: shipment ? parcelsOf(shipment) : [],
  }
}

/** A shipment's parcels; one shipped before parcels were kept shows its one parcel of every item. */
function parcelsOf(shipment: Shipment): Parcel[] {
  if (shipment.parcels && shipment.parcels.length > 0) return structuredClone(shipment.parcels)
  if (shipment.dispatchDate === null) return []
  return [
    {
      items: shipment.items.map(({ itemId }) => ({ itemId })),
      carrier: { ...shipment.carrier },
      tracking: shipment.tracking ? { ...shipment.tracking } : null,
      dispatchDate: shipment.dispatchDate,
    },
  ]
}

/**
 * The carrier a shipment rejected whole (so gone from the order) was priced with: kept at the rejection, else (a
 * rejection before it was kept) the catalogue's rate for its lab, method and recipient; blank without either.
 */
function rejectedCarrier(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
  shippingMethod: string,
  recipient: Recipient,
): { name: string; service: string } {
  const held = order.pipeline.shipments[shipmentId]
  if (held?.carrier) return { ...held.carrier }
  const method = canonicalSpelling(SHIPPING_METHODS, shippingMethod)
  const rate = held && method ? catalogue.shippingRate(held.labCode, method, recipient.address.countryCode) : undefined
  return { name: rate?.carrier ?? '', service: rate?.service ?? '' }
}

/** A job's items: the shipment's and those it gave back, in the order's order (the lab sees what left its job). */
function jobItemIds(order: PipelineOrder, shipmentId: string): string[] {
  const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const given = order.pipeline.shipments[shipmentId]?.itemStates ?? {}
  // A job moved to another lab keeps the items it had when it was moved.
  const moved = order.pipeline.shipments[shipmentId]?.moved?.itemIds ?? []
  const held = new Set([...(shipment?.items.map((entry) => entry.itemId) ?? []), ...moved])
  return order.document.items
    .map((item) => item.id)
    .filter((itemId) => held.has(itemId) || given[itemId] === 'rejected')
}

/** The items that go in the shipment's parcels: those it gave back (rejected) cross no border. */
function parcelItemIds(order: PipelineOrder, shipmentId: string): string[] {
  const given = order.pipeline.shipments[shipmentId]?.itemStates ?? {}
  return jobItemIds(order, shipmentId).filter((itemId) => given[itemId] !== 'rejected')
}

/**
 * The commercial invoice's content of a submitted cross-border shipment, from what its lab was given; undefined for
 * a domestic, unknown or not yet submitted shipment.
 */
export function commercialInvoiceContent(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
): CommercialInvoiceContent | undefined {
  const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  const submitted = order.pipeline.shipments[shipmentId]?.submitted
  if (!shipment || !submitted) return undefined
  const location = shipment.fulfillmentLocation
  const declaration = shipmentDeclaration(
    catalogue,
    order,
    location,
    submitted.recipient,
    parcelItemIds(order, shipmentId),
  )
  if (!declaration) return undefined
  // The submission day, so the invoice reads the same whenever it is asked for (older shipments: the order's day).
  const date = (submitted.at ?? order.document.created).slice(0, 10)
  return {
    orderId: order.document.id,
    shipmentId,
    date,
    sender: { name: catalogue.findLab(location.labCode)?.name ?? location.labCode, countryCode: location.countryCode },
    recipient: submitted.recipient,
    declaration,
    reason: EXPORT_REASON,
    sandbox: order.environment === 'sandbox',
  }
}

/**
 * The customs declaration of a shipment that crosses a border (its lab's country is not the recipient's), with the
 * merchant's own `recipientCost` kept as `declaredValue`; undefined for a domestic shipment.
 */
function customsOf(
  context: LabJobViewContext,
  order: PipelineOrder,
  shipmentId: string,
  recipient: Recipient,
  itemIds: readonly string[],
): LabJobView['customs'] {
  const shipment = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  if (!shipment) return undefined
  const declaration = shipmentDeclaration(context.catalogue, order, shipment.fulfillmentLocation, recipient, itemIds)
  if (!declaration) return undefined
  const { lines, ...rest } = declaration
  return {
    ...rest,
    items: lines.map((line) => ({
      itemId: line.itemId,
      description: line.description,
      copies: line.copies,
      declaredValue: order.document.items.find((item) => item.id === line.itemId)?.recipientCost ?? null,
      hsCode: line.hsCode,
      originCountryCode: line.originCountryCode,
      unitValue: line.unitValue,
      totalValue: line.totalValue,
      valueSource: line.valueSource,
      weightGrams: line.weightGrams,
    })),
    commercialInvoice: { url: context.links.commercialInvoiceUrl(order, shipmentId) },
  }
}

/**
 * A shipment's ship-by date as its lab is shown it (by the shipping method it was submitted with); undefined
 * without one. The operator console's overdue count uses it, so it counts what the lab sees.
 */
export function shipByOfShipment(catalogue: Catalogue, order: PipelineOrder, shipmentId: string): string | undefined {
  const submitted = order.pipeline.shipments[shipmentId]?.submitted
  return shipByOf(catalogue, order, shipmentId, submitted?.shippingMethod ?? order.document.shippingMethod)
}

/**
 * The shipment's ship-by date from its promise and the rate it was submitted with, else from its lab's calendar
 * and the largest production days of its items at that lab, counted from submission; undefined without either.
 */
function shipByOf(
  catalogue: Catalogue,
  order: PipelineOrder,
  shipmentId: string,
  shippingMethod: string,
): string | undefined {
  const shipment = order.pipeline.shipments[shipmentId]
  if (!shipment) return undefined
  const lab = catalogue.findLab(shipment.labCode)
  const method = canonicalSpelling(SHIPPING_METHODS, shippingMethod)
  const country = (shipment.submitted?.recipient ?? order.document.recipient).address.countryCode
  const rate = method ? catalogue.shippingRate(shipment.labCode, method, country) : undefined
  const onOrder = order.document.shipments.find((candidate) => candidate.id === shipmentId)
  let productionDays: number | null = 0
  for (const { itemId } of onOrder?.items ?? []) {
    const item = order.document.items.find((candidate) => candidate.id === itemId)
    const variant = item ? catalogue.findVariant(item.sku, item.attributes) : undefined
    const days = variant?.offers.find((offer) => offer.lab.code === shipment.labCode)?.productionDays ?? null
    productionDays = productionDays === null || days === null ? null : Math.max(productionDays, days)
  }
  const submittedAt = shipment.submitted?.at
  const date = shipByDate({
    promise: shipment.promise ?? null,
    transit: rate?.transitDays ?? null,
    calendar: lab?.calendar ?? null,
    productionDays,
    submittedAt: submittedAt ? new Date(submittedAt) : null,
  })
  return date ?? undefined
}

/** The labs: their keys, their work (LabWork, declared in domain/lab-jobs.ts), pausing and commercial invoices. */
export interface LabsService extends LabWork {
  /** A new key for a catalogue lab; the only time the key is shown. */
  createLabKey(labCode: string, actor: AuditActor): Promise<{ key: string; prefix: string; view: LabKeyView }>
  /** Every key of a catalogue lab, revoked and expired ones too, newest first (never a key, only prefixes). */
  listLabKeys(labCode: string): Promise<LabKeyView[]>
  /**
   * A new key for a catalogue lab; the lab's other working keys keep working for `overlapSeconds` (default 24
   * hours, 0: they stop now), then are refused. The new key is shown this once.
   */
  rotateLabKey(
    labCode: string,
    overlapSeconds: number | undefined,
    actor: AuditActor,
  ): Promise<IssuedLabKey & { replaced: LabKeyView[] }>
  /**
   * Revokes a lab's key, named by its id (`lbk_N`) or its prefix: refused from its next lab API call, its portal
   * sessions end now. Revoking a revoked key changes nothing (`wasRevoked`).
   */
  revokeLabKey(
    labCode: string,
    keyId: string,
    actor: AuditActor,
  ): Promise<{ key: LabKeyView; wasRevoked: boolean; sessionsEnded: number }>
  /**
   * The lab code a working lab key (not revoked, not past a rotation's overlap) belongs to; undefined otherwise.
   * Not cached: a revoked key is refused at its next call, in every process.
   */
  authenticateLab(key: string): Promise<string | undefined>
  /** Pauses (no new work goes to it) or resumes a catalogue lab; whether it was paused before. */
  setPaused(labCode: string, paused: boolean, actor: AuditActor): Promise<{ wasPaused: boolean }>
  /**
   * The commercial invoice PDF of a submitted cross-border shipment of an `environment` order (its signed link is
   * the authorisation); undefined when there is no such shipment or it crosses no border.
   */
  commercialInvoicePdf(environment: Environment, orderId: string, shipmentId: string): Promise<Uint8Array | undefined>
}

export function createLabsService(deps: {
  db: Database
  clock: Clock
  catalogue: Catalogue
  pipeline: PipelineService
  /** Signs the commercial invoices' links, and draws them (adapters/commercial-invoice-pdf.ts). */
  commercialInvoices: {
    links: Pick<FileLinker, 'url'>
    render(content: CommercialInvoiceContent): Promise<Uint8Array>
  }
  /** One line per lab API call; silent when absent. */
  log?: ServiceLogger
}): LabsService {
  const { db, clock, catalogue, pipeline, commercialInvoices } = deps
  const log = deps.log ?? silentLogger
  const viewContext: LabJobViewContext = {
    catalogue,
    links: {
      printFileUrls: (order, shipmentId) => pipeline.printFileUrls(order, shipmentId),
      extraFileUrls: (order) => pipeline.extraFileUrls(order),
      packingSlipPdfUrl: (order, shipmentId) => pipeline.packingSlipPdfUrl(order, shipmentId),
      commercialInvoiceUrl: (order, shipmentId) =>
        commercialInvoices.links.url(order.environment, commercialInvoiceKey(order.document.id, shipmentId)),
    },
    now: () => clock.now(),
  }

  async function jobOf(labCode: string, shipmentId: string) {
    const number = parseId('shp', shipmentId)
    const job = number === undefined ? undefined : await findLabJob(db, number)
    // Sandbox shipments go to the simulated labs only: a real lab never sees or reports them.
    if (!job || job.labCode !== labCode || job.environment !== 'live')
      throw new ServiceError('EntityNotFound', `Shipment ${shipmentId} is not assigned to lab ${labCode}`)
    return job
  }

  /**
   * The lab job views of `jobs` (rows of lab_jobs), each as its order holds it now; a shipment its order gives to
   * another lab than the row's is left out.
   */
  async function viewsOf(jobs: readonly LabJobRow[]): Promise<LabJobView[]> {
    const result: LabJobView[] = []
    for (const job of jobs) {
      const shipmentId = `shp_${job.shipmentNumber}`
      const order = await readOrder(db, job.orderNumber)
      if (!order || order.pipeline.shipments[shipmentId]?.labCode !== job.labCode) continue
      const view = buildLabJobView(viewContext, order, shipmentId, job.state)
      if (view) result.push(view)
    }
    return result
  }

  /** The catalogue's lab; EntityNotFound when the catalogue no longer has it (its key outlived it). */
  function catalogueLab(labCode: string) {
    const lab = catalogue.findLab(labCode)
    if (!lab) throw new ServiceError('EntityNotFound', `The catalogue has no lab ${labCode}`)
    return lab
  }

  /** The catalogue's lab for a key command; a LabError (the command's mistake) when the catalogue has none. */
  function catalogueLabForKeys(labCode: string) {
    const lab = catalogue.findLab(String(labCode ?? ''))
    if (!lab) throw new LabError(`The catalogue has no lab ${labCode}`)
    return lab
  }

  /**
   * The number of the key named by its ID (`lbk_N`) or its visible prefix (`pr_lab_...`, among the lab's keys);
   * undefined for a prefix the lab has no key with. Anything else is refused as not a key's name.
   */
  async function labKeyNumber(labCode: string, named: string): Promise<number | undefined> {
    if (named.startsWith('pr_lab_')) return (await listLabKeys(db, labCode)).find((row) => row.prefix === named)?.id
    const number = parseId(ID_PREFIXES.labKey, named)
    if (number === undefined) {
      throw new LabError(`"${named}" is not a lab key ID (expected lbk_<number>, as labs keys list shows)`)
    }
    return number
  }

  async function capacityOf(labCode: string): Promise<LabCapacityView> {
    const lab = catalogueLab(labCode)
    const state = (await listLabAvailability(db)).find((candidate) => candidate.labCode === lab.code)
    const date = labDate(lab, clock.now())
    const capacity = dailyCapacity(lab, state, date)
    const given = jobsGivenOn(state, date)
    return {
      date,
      jobsToday: state?.capacityDate === date ? state.capacityJobs : null,
      dailyJobLimit: lab.dailyJobLimit,
      jobsGivenToday: given,
      jobsRemainingToday: capacity === null ? null : Math.max(0, capacity - given),
      paused: state?.paused ?? false,
    }
  }

  return {
    async createLabKey(labCode: string, actor: AuditActor) {
      const lab = catalogueLabForKeys(labCode)
      const { key, prefix } = newSecretKey('lab')
      const row = await db.transaction(async (tx) => {
        const inserted = await insertLabKey(tx, {
          labCode: lab.code,
          prefix,
          keyHash: hashSecretKey(key),
          createdAt: clock.now(),
        })
        // The key by its prefix only: the trail never holds a secret.
        await appendAuditEvent(
          tx,
          { actor, action: 'lab.keyCreated', accountId: null, environment: null, target: lab.code, after: { prefix } },
          clock.now(),
        )
        return inserted
      })
      return { key, prefix, view: toLabKeyView(row, clock.now()) }
    },

    async listLabKeys(labCode: string): Promise<LabKeyView[]> {
      const lab = catalogueLabForKeys(labCode)
      const now = clock.now()
      return (await listLabKeys(db, lab.code)).map((row) => toLabKeyView(row, now))
    },

    async rotateLabKey(labCode: string, overlapSeconds: number | undefined, actor: AuditActor) {
      const lab = catalogueLabForKeys(labCode)
      const overlap = overlapSeconds ?? DEFAULT_SIGNING_OVERLAP_SECONDS
      const refusal = labKeyOverlapRefusal(overlap)
      if (refusal) throw new LabError(`overlap: ${refusal}`)
      const { key, prefix } = newSecretKey('lab')
      const now = clock.now()
      const overlapEndsAt = new Date(now.getTime() + overlap * 1000)
      const { row, replaced } = await db.transaction(async (tx) => {
        const inserted = await insertLabKey(tx, {
          labCode: lab.code,
          prefix,
          keyHash: hashSecretKey(key),
          createdAt: now,
        })
        const expiring = await expireLabKeys(tx, lab.code, inserted.id, overlapEndsAt, now)
        await appendAuditEvent(
          tx,
          {
            actor,
            action: 'lab.keyRotated',
            accountId: null,
            environment: null,
            target: lab.code,
            before: { prefixes: expiring.map((old) => old.prefix) },
            after: { prefix, overlapSeconds: overlap, overlapEndsAt: overlapEndsAt.toISOString() },
          },
          now,
        )
        return { row: inserted, replaced: expiring }
      })
      return {
        key,
        view: toLabKeyView(row, now),
        replaced: replaced.map((old) => toLabKeyView(old, now)),
      }
    },

    async revokeLabKey(labCode: string, keyId: string, actor: AuditActor) {
      const lab = catalogueLabForKeys(labCode)
      const now = clock.now()
      const named = String(keyId ?? '').trim()
      const keyNumber = await labKeyNumber(lab.code, named)
      const outcome =
        keyNumber === undefined
          ? undefined
          : await db.transaction(async (tx) => {
              const revoked = await revokeLabKey(tx, lab.code, keyNumber, now)
              if (!revoked || revoked.wasRevoked) return revoked && { ...revoked, sessionsEnded: 0 }
              // Its portal sessions end with it, in the same transaction.
              const sessionsEnded = await deleteLabKeySessions(tx, keyNumber)
              const { prefix } = revoked.key
              await appendAuditEvent(
                tx,
                {
                  actor,
                  action: 'lab.keyRevoked',
                  accountId: null,
                  environment: null,
                  target: lab.code,
                  before: { prefix, revoked: null },
                  after: { prefix, revoked: now.toISOString() },
                },
                now,
              )
              return { ...revoked, sessionsEnded }
            })
      if (!outcome) throw new LabError(`lab ${lab.code} has no key ${named}`)
      return {
        key: toLabKeyView(outcome.key, now),
        wasRevoked: outcome.wasRevoked,
        sessionsEnded: outcome.sessionsEnded,
      }
    },

    async authenticateLab(key: string): Promise<string | undefined> {
      return findLabCodeByKeyHash(db, hashSecretKey(key), clock.now())
    },

    /** The shipments a lab still has to make or ship, with everything it needs to do so. */
    async listJobs(labCode: string): Promise<LabJobView[]> {
      const jobs = (await listLabJobs(db, labCode, OPEN_STATES)).filter((job) => job.environment === 'live')
      const result = await viewsOf(jobs)
      // The signed file URLs of the answer are not logged: they are the lab's access to the files.
      log.info(
        {
          labCode,
          step: 'lab-api',
          call: 'list',
          orderIds: [...new Set(result.map((job) => job.orderId))],
          shipmentIds: result.map((job) => job.shipmentId),
        },
        `lab API: lab ${labCode} listed ${result.length} open shipment${result.length === 1 ? '' : 's'}`,
      )
      return result
    },

    async getJob(labCode: string, shipmentId: string): Promise<LabJobView> {
      const [view] = await viewsOf([await jobOf(labCode, shipmentId)])
      if (!view) throw new ServiceError('EntityNotFound', `Shipment ${shipmentId} is not assigned to lab ${labCode}`)
      log.info(
        { orderId: view.orderId, labCode, step: 'lab-api', call: 'get', shipmentId, state: view.state },
        `lab API: lab ${labCode} read ${shipmentId} (${view.state})`,
      )
      return view
    },

    async jobHistory(labCode: string, query: { search?: string; skip?: number }): Promise<LabJobHistoryPage> {
      const { pageSize, maxSkip, searchMaxLength } = LAB_JOB_HISTORY_LIMITS
      const skip = Math.min(maxSkip, Math.max(0, Math.trunc(query.skip ?? 0)))
      const search = query.search?.trim().slice(0, searchMaxLength).toLowerCase() || null
      // One more than a page: whether an older page follows.
      const rows = await searchLabJobs(db, {
        labCode,
        states: CLOSED_STATES,
        search,
        limit: pageSize + 1,
        offset: skip,
      })
      return { jobs: await viewsOf(rows.slice(0, pageSize)), skip, hasMore: rows.length > pageSize }
    },

    async report(labCode: string, shipmentId: string, report: LabReport): Promise<{ changed: boolean }> {
      const job = await jobOf(labCode, shipmentId)
      if (report.kind === 'rejected') {
        const order = await readOrder(db, job.orderNumber)
        // The job's items, with those it already gave back: a repeated rejection names them again.
        const inShipment = new Set(order ? jobItemIds(order, shipmentId) : [])
        const unknown = report.unavailableItemIds.filter((itemId) => !inShipment.has(itemId))
        if (unknown.length > 0) {
          throw new ServiceError(
            'ValidationFailed',
            `Items ${unknown.join(', ')} are not in shipment ${shipmentId}`,
            {},
            {
              unavailableItemIds: unknown.map((itemId) => ({ code: 'InvalidValue', providedValue: itemId })),
            },
          )
        }
      }
      if (report.kind === 'rejected') refuseFileDefectsWithoutDescription(report)
      if (report.kind === 'printed' || report.kind === 'shipped' || report.kind === 'rejected') {
        // Read before the order's lock for a prompt answer; the pipeline decides again under the lock.
        const order = await readOrder(db, job.orderNumber)
        const refusal = order && itemReportRefusal(order.document, order.pipeline, shipmentId, report)
        if (refusal) throw itemRefused(refusal)
      }
      if (report.kind === 'tracking') {
        refuseScansFromTheFuture(report.events, clock.now())
        // Read before the order's lock, for a prompt answer without a transaction. Only the check the pipeline makes
        // again under the lock is final (two reports at once may both pass here and fill the shipment together).
        const order = await readOrder(db, job.orderNumber)
        const onOrder = order?.document.shipments.find((candidate) => candidate.id === shipmentId)
        const refusal = trackingRefusal(order?.pipeline.shipments[shipmentId]?.state, onOrder, report.events)
        if (refusal) throw trackingRefused(shipmentId, refusal)
      }
      const orderId = `ord_${job.orderNumber}`
      const result = await pipeline.reportLab(orderId, shipmentId, report)
      if (result.refusal) throw trackingRefused(shipmentId, result.refusal)
      if (result.itemRefusal) throw itemRefused(result.itemRefusal)
      if (result.cancellationRefusal) throw cancellationRefused(shipmentId, report, result.cancellationRefusal)
      log.info(
        { orderId, labCode, step: 'lab-api', call: report.kind, shipmentId, changed: result.changed },
        `lab API: lab ${labCode} reports ${report.kind} for ${shipmentId}: ${result.changed ? 'Updated' : 'Ok (no change)'}`,
      )
      return { changed: result.changed }
    },

    capacity: capacityOf,

    async reportCapacity(labCode: string, jobsToday: number, actor: AuditActor): Promise<LabCapacityView> {
      const lab = catalogueLab(labCode)
      const date = labDate(lab, clock.now())
      await db.transaction(async (tx) => {
        const before = (await listLabAvailability(tx)).find((candidate) => candidate.labCode === lab.code)
        await setLabCapacity(tx, lab.code, date, jobsToday, clock.now())
        await appendAuditEvent(
          tx,
          {
            actor,
            action: 'lab.capacityReported',
            accountId: null,
            environment: null,
            target: lab.code,
            before: { date, jobsToday: before?.capacityDate === date ? before.capacityJobs : null },
            after: { date, jobsToday },
          },
          clock.now(),
        )
      })
      const view = await capacityOf(lab.code)
      log.info(
        { labCode, step: 'lab-api', call: 'capacity', jobsToday, date: view.date },
        `lab API: lab ${labCode} can take ${jobsToday} more job${jobsToday === 1 ? '' : 's'} on ${view.date}`,
      )
      return view
    },

    async setPaused(labCode: string, paused: boolean, actor: AuditActor): Promise<{ wasPaused: boolean }> {
      const lab = catalogueLab(labCode)
      return db.transaction(async (tx) => {
        const wasPaused = await lockLabPaused(tx, lab.code, clock.now())
        await setLabPaused(tx, lab.code, paused, clock.now())
        // Pausing a paused lab changes nothing, so it records nothing.
        if (wasPaused !== paused) {
          await appendAuditEvent(
            tx,
            {
              actor,
              action: paused ? 'lab.paused' : 'lab.resumed',
              accountId: null,
              environment: null,
              target: lab.code,
              before: { paused: wasPaused },
              after: { paused },
            },
            clock.now(),
          )
        }
        return { wasPaused }
      })
    },

    async commercialInvoicePdf(environment, orderId, shipmentId) {
      const number = parseId('ord', orderId)
      const order = number === undefined ? undefined : await readOrder(db, number)
      if (!order || order.environment !== environment) return undefined
      const content = commercialInvoiceContent(catalogue, order, shipmentId)
      return content ? commercialInvoices.render(content) : undefined
    },
  }
}

/**
 * A scan's time may run ahead of the service's clock by the clock skew allowance at most: a lab's clock a little
 * fast is tolerated, a scan of tomorrow is a mistake the lab should hear about.
 */
function refuseScansFromTheFuture(events: readonly TrackingEvent[], now: Date): void {
  const latest = new Date(now.getTime() + TRACKING_REPORT_LIMITS.clockSkewSeconds * 1000)
  const failures: Failures = {}
  for (const [index, event] of events.entries()) {
    if (Date.parse(event.time) > latest.getTime()) {
      addFailure(failures, `events[${index}].time`, {
        code: 'MustBeLessThanOrEqualTo',
        providedValue: event.time,
        comparisonValue: latest.toISOString(),
      })
    }
  }
  if (hasFailures(failures)) {
    const minutes = TRACKING_REPORT_LIMITS.clockSkewSeconds / 60
    throw validationFailed(
      failures,
      `A scan's time may be at most ${minutes} minutes after the service's clock (${now.toISOString()})`,
    )
  }
}

/** A FileDefect says what is wrong with the file: the merchant is told, and may send a better one. */
function refuseFileDefectsWithoutDescription(report: Extract<LabReport, { kind: 'rejected' }>): void {
  const failures: Failures = {}
  for (const [index, item] of (report.items ?? []).entries()) {
    if (item.reason === 'FileDefect' && !item.description) {
      addFailure(failures, `items[${index}].description`, { code: 'Required', providedValue: null })
    }
  }
  if (hasFailures(failures)) {
    throw validationFailed(failures, 'An item given back as FileDefect needs a description of what is wrong')
  }
}

/** The 400 answer to an item report the shipment cannot take, naming the item's field. */
function itemRefused(refusal: ItemReportRefusal): ServiceError {
  const { code, field, itemId, shipmentId } = refusal
  if (refusal.parcel) {
    const { provided, shipped } = refusal.parcel
    return validationFailed(
      { [field]: [{ code, providedValue: provided, comparisonValue: shipped }] },
      `Every item of shipment ${shipmentId} has already shipped, and this parcel is none of those reported: ` +
        `${field} differs (report the same parcel again, or nothing)`,
    )
  }
  const why =
    code === 'ItemAlreadyShipped'
      ? `Item ${itemId} of shipment ${shipmentId} has already shipped` +
        (field.startsWith('items') ? ': it cannot be given back' : ' in a different parcel')
      : `Item ${itemId} is not in shipment ${shipmentId}`
  return validationFailed({ [field]: [{ code, providedValue: itemId, comparisonValue: shipmentId }] }, why)
}

/** The 400 answer to a tracking report the shipment cannot take, naming what is wrong where. */
function trackingRefused(shipmentId: string, refusal: TrackingRefusal): ServiceError {
  switch (refusal.reason) {
    case 'notShipped': {
      const state = refusal.state ?? 'unknown'
      const why =
        state === 'rejected'
          ? 'the lab rejected it, so it was never shipped'
          : `it is ${state}: report tracking after the shipped report`
      return validationFailed(
        { shipmentId: [{ code: 'ShipmentNotShipped', providedValue: shipmentId, comparisonValue: state }] },
        `Shipment ${shipmentId} has no carrier scans to report: ${why}`,
      )
    }
    case 'cancelled':
      return validationFailed(
        { shipmentId: [{ code: 'ShipmentCancelled', providedValue: shipmentId }] },
        `Shipment ${shipmentId} was cancelled: it has no carrier scans to report`,
      )
    case 'tooManyScans':
      return validationFailed(
        {
          events: [
            {
              code: 'TooManyTrackingEvents',
              providedValue: refusal.kept + refusal.fresh,
              comparisonValue: MAX_TRACKING_EVENTS_PER_SHIPMENT,
            },
          ],
        },
        `Shipment ${shipmentId} keeps at most ${MAX_TRACKING_EVENTS_PER_SHIPMENT} carrier scans: it has ` +
          `${refusal.kept} and the report adds ${refusal.fresh} new ones`,
      )
  }
}

/** The 400 answer to a cancellation answer that cannot apply, on `answer` (docs/pipeline.md#cancellation). */
function cancellationRefused(shipmentId: string, report: LabReport, refusal: CancellationRefusal): ServiceError {
  const answer = report.kind === 'cancellation' ? report.answer : ''
  switch (refusal.reason) {
    case 'notRequested':
      return validationFailed(
        { answer: [{ code: 'CancellationNotRequested', providedValue: answer }] },
        `printroute has not asked to cancel shipment ${shipmentId}`,
      )
    case 'lapsed':
      return validationFailed(
        { answer: [{ code: 'CancellationRequestLapsed', providedValue: answer, comparisonValue: refusal.at }] },
        `The request of ${refusal.at} to cancel shipment ${shipmentId} lapsed unanswered after ` +
          `${CANCELLATION_REQUEST_LAPSE_HOURS} hours: the shipment goes on`,
      )
    case 'alreadyAnswered':
      return validationFailed(
        { answer: [{ code: 'CancellationAlreadyAnswered', providedValue: answer, comparisonValue: refusal.answer }] },
        `The request to cancel shipment ${shipmentId} was already answered ${refusal.answer}`,
      )
  }
}
