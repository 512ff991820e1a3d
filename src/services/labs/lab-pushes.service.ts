// Jobs pushed to labs (docs/pipeline.md#jobs-pushed-to-labs): a lab with a push endpoint is POSTed its jobs as they
// change, as CloudEvents signed with the lab's own secret. The events and their deliveries are the merchants'
// callback machinery (the outbox, callback_deliveries and its attempts, the `deliver-callback` job and its retry
// schedule, the sweeper, retention: callbacks.service.ts); a lab's rows name the lab instead of an account, so no
// merchant ever sees them. Also the operator's settings (printroute labs configure / show), the lab's listing of its
// pushes with redelivery, and the reminders.
import type { Clock } from '../../adapters/clock.ts'
import type { Database, Queryable } from '../../adapters/database.ts'
import type { JobEnqueuer } from '../../adapters/job-queue.ts'
import type { AuditActor } from '../../domain/audit.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { ClaimView } from '../../domain/claims.ts'
import { commercialInvoiceKey } from '../../domain/commercial-invoice.ts'
import { formatId, parseId, parseRequestId } from '../../domain/ids.ts'
import { deliveryJob } from '../../domain/jobs.ts'
import { labDate } from '../../domain/lab-availability.ts'
import { labClaimViewOf } from '../../domain/lab-claims.ts'
import {
  buildLabClaimCloudEvent,
  buildLabCloudEvent,
  LAB_OPEN_STATES,
  type LabEventKind,
  type LabReminderReason,
  labClaimCreatedType,
  labClaimsCreatedBy,
  labEventsOf,
  labEventType,
  labShipmentsOf,
} from '../../domain/lab-events.ts'
import type { LabJobView } from '../../domain/lab-jobs.ts'
import { CALLBACK_LIST_DEFAULT_TOP, DEFAULT_SIGNING_OVERLAP_SECONDS } from '../../domain/limits.ts'
import type { OrderEventKind } from '../../domain/order-events.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import { unfetchableUrlReason } from '../../domain/urls.ts'
import { appendAuditEvent } from '../../repositories/audit.repository.ts'
import {
  findDelivery,
  findLabDelivery,
  insertDelivery,
  listAttempts,
  listLabDeliveries,
} from '../../repositories/callback-deliveries.repository.ts'
import { drawEventIds, insertEvent } from '../../repositories/events.repository.ts'
import { readClaimForPush } from '../../repositories/lab-claims.repository.ts'
import { listLabJobs } from '../../repositories/lab-jobs.repository.ts'
import {
  claimLabReminder,
  deleteOldLabReminders,
  type LabPushEndpointRow,
  readLabPushEndpoint,
  readLabPushHealth,
  removeLabPush,
  rotateLabSigningSecret,
  setLabPushUrl,
} from '../../repositories/lab-push.repository.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import { type CallbackView, toCallbackView } from '../callbacks.service.ts'
import { type ServiceLogger, silentLogger } from '../observability.ts'
import type { LabEventsRecorder, OrderSnapshot } from '../order-events.service.ts'
import { extraFileUrls, packingSlipPdfUrl, printFileUrls } from '../pipeline/lab-file-links.ts'
import type { FileLinker } from '../pipeline/ports.ts'
import { buildLabJobView, LabError, type LabJobViewContext } from './labs.service.ts'

/**
 * A job still `submitted` (not acknowledged) this long after its submission gets a `notAcknowledged` reminder: four
 * hours, long enough for a lab that polls a few times a day, short enough to be told the same working day.
 */
export const LAB_REMINDER_NOT_ACKNOWLEDGED_SECONDS = 4 * 3600

/** How long a reminder pushed is remembered (one per job, reason and lab day needs only the day's). */
const REMINDER_MEMORY_SECONDS = 7 * 86_400

/** How many characters of a signing secret `labs show` prints: `whsec_` and four more. */
const SECRET_PREFIX_CHARACTERS = 10

export interface LabPushesDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  catalogue: Catalogue
  /** Writes the file tokens a stored event holds (FileLinks.token); each attempt turns them into fresh links. */
  fileTokens: Pick<FileLinker, 'url'>
  /** `<vendor>` of `com.<vendor>.lab.job...` (the callbacks' vendor). */
  vendor: string
  /** The CloudEvent `source` of pushed jobs (the Live address of the lab API's jobs). */
  source: () => string
  /** Where the lab API serves a claim's photo (GET /labs/v1/claims/evidence/{id}), for pushed claims. */
  claimPhotoUrl?: (evidenceId: string) => string
  newSigningSecret: () => string
  log?: ServiceLogger
}

/** Where a lab's push URL comes from: the operator's setting, the catalogue, or nowhere (the lab polls). */
export type LabPushUrlSource = 'operator' | 'catalogue' | null

/** A lab's push settings as `printroute labs show` prints them: never the secret itself. */
export interface LabPushSettingsView {
  lab: string
  url: string | null
  source: LabPushUrlSource
  /** The operator removed pushing (the catalogue's URL is not used either). */
  removed: boolean
  /** The start of the current secret; null before one is made. */
  secretPrefix: string | null
  /** Until when the secret before the last rotation signs too; null when none does. */
  previousSecretExpiresAt: string | null
  health: {
    pending: number
    delivered: number
    failed: number
    lastAttemptAt: string | null
    lastHttpStatus: number | null
    lastError: string | null
  }
}

/** What `labs configure` asks for. */
export interface LabPushChange {
  pushUrl?: string
  rotateSecret?: boolean
  removePush?: boolean
}

export interface LabPushesService extends LabEventsRecorder {
  /** Changes a lab's push settings; `secret` is set when a new one was made (the only time it is shown). */
  configure(
    labCode: string,
    change: LabPushChange,
    actor: AuditActor,
  ): Promise<LabPushSettingsView & { secret?: string }>
  /** A lab's push settings and delivery health. */
  show(labCode: string): Promise<LabPushSettingsView>
  /** The lab's pushes, newest first, each with its attempts (GET /labs/v1/pushes). */
  listPushes(
    labCode: string,
    page: { top?: number; skip?: number },
  ): Promise<{ pushes: LabPushView[]; hasMore: boolean }>
  /** Sends a push's event again as a new delivery (same `webhook-id`), to the lab's push URL as it is now. */
  redeliver(labCode: string, id: string): Promise<LabPushView>
  /** Pushes the reminders due (a scheduled job); how many. */
  remind(): Promise<number>
}

/** A push as the lab API shows it: a delivery without the merchant-only `webhookId` (a lab's push has none). */
export type LabPushView = Omit<CallbackView, 'webhookId'>

function toLabPushView(...delivery: Parameters<typeof toCallbackView>): LabPushView {
  const { webhookId: _merchantOnly, ...push } = toCallbackView(...delivery)
  return push
}

/** The push URL in force: the operator's, else the catalogue's, none once the operator removed pushing. */
function pushUrlOf(
  row: LabPushEndpointRow | undefined,
  catalogueUrl: string | null,
): { url: string | null; source: LabPushUrlSource } {
  if (row?.removed) return { url: null, source: null }
  if (row?.url) return { url: row.url, source: 'operator' }
  return catalogueUrl ? { url: catalogueUrl, source: 'catalogue' } : { url: null, source: null }
}

/** The operator's side only (printroute labs configure / show): the database and the catalogue, no queue. */
export type LabPushSettings = Pick<LabPushesService, 'configure' | 'show'>

export function createLabPushSettings(
  deps: Pick<LabPushesDeps, 'db' | 'clock' | 'catalogue' | 'newSigningSecret' | 'log'>,
): LabPushSettings {
  const { db, clock, catalogue } = deps
  const log = deps.log ?? silentLogger

  function catalogueLab(labCode: string) {
    const lab = catalogue.findLab(labCode)
    if (!lab) throw new LabError(`The catalogue has no lab ${labCode}`)
    return lab
  }

  async function show(labCode: string): Promise<LabPushSettingsView> {
    const lab = catalogueLab(labCode)
    const row = await readLabPushEndpoint(db, lab.code)
    const { url, source } = pushUrlOf(row, lab.pushUrl)
    const health = await readLabPushHealth(db, lab.code)
    const now = clock.now()
    const overlapping = row?.previous && row.previousExpiresAt && row.previousExpiresAt > now
    return {
      lab: lab.code,
      url,
      source,
      removed: row?.removed ?? false,
      secretPrefix: row?.current ? `${row.current.slice(0, SECRET_PREFIX_CHARACTERS)}...` : null,
      previousSecretExpiresAt: overlapping ? (row.previousExpiresAt?.toISOString() ?? null) : null,
      health: {
        pending: health.pending,
        delivered: health.delivered,
        failed: health.failed,
        lastAttemptAt: health.lastAttemptAt?.toISOString() ?? null,
        lastHttpStatus: health.lastHttpStatus,
        lastError: health.lastError,
      },
    }
  }

  async function configure(
    labCode: string,
    change: LabPushChange,
    actor: AuditActor,
  ): Promise<LabPushSettingsView & { secret?: string }> {
    const lab = catalogueLab(labCode)
    const chosen = [change.pushUrl !== undefined, change.rotateSecret === true, change.removePush === true]
    if (chosen.every((given) => !given))
      throw new LabError('nothing to change: give --push-url, --rotate-secret or --remove-push')
    if (change.removePush === true && (chosen[0] || chosen[1])) {
      throw new LabError('--remove-push goes alone: it removes the URL and the secrets')
    }
    const problem = change.pushUrl === undefined ? undefined : unfetchableUrlReason(change.pushUrl)
    if (problem !== undefined) throw new LabError(`--push-url ${change.pushUrl} cannot be called: ${problem}`)
    const now = clock.now()
    let secret: string | undefined
    // The change and its audit entry together: both kept or neither.
    await db.transaction(async (tx) => {
      const before = pushUrlOf(await readLabPushEndpoint(tx, lab.code), lab.pushUrl)
      let secretCreated = false
      if (change.removePush === true) {
        await removeLabPush(tx, lab.code, now)
      }
      if (change.pushUrl !== undefined) {
        const set = await setLabPushUrl(tx, lab.code, change.pushUrl, deps.newSigningSecret(), now)
        if (set.created) secret = set.secret
        secretCreated = set.created
      }
      if (change.rotateSecret === true) {
        secret = deps.newSigningSecret()
        const overlapEnds = new Date(now.getTime() + DEFAULT_SIGNING_OVERLAP_SECONDS * 1000)
        await rotateLabSigningSecret(tx, lab.code, secret, overlapEnds, now)
      }
      const after = pushUrlOf(await readLabPushEndpoint(tx, lab.code), lab.pushUrl)
      // Whether a secret was made or rotated, never the secret.
      await appendAuditEvent(
        tx,
        {
          actor,
          action: 'lab.pushConfigured',
          accountId: null,
          environment: null,
          target: lab.code,
          before: { url: before.url },
          after: {
            url: after.url,
            secretCreated,
            secretRotated: change.rotateSecret === true,
            removed: change.removePush === true,
          },
        },
        now,
      )
    })
    // The secret is printed once by the command; the log says only what changed.
    log.info(
      {
        labCode: lab.code,
        step: 'lab-push',
        pushUrlSet: change.pushUrl !== undefined,
        rotated: change.rotateSecret === true,
        removed: change.removePush === true,
      },
      `lab ${lab.code}: push settings changed`,
    )
    return { ...(await show(lab.code)), ...(secret ? { secret } : {}) }
  }

  return { configure, show }
}

export function createLabPushesService(deps: LabPushesDeps): LabPushesService {
  const { db, clock, catalogue } = deps
  const settings = createLabPushSettings(deps)
  // A stored event holds file tokens, not links: each attempt refreshes them (callbacks.service.ts deliver).
  const viewContext: LabJobViewContext = {
    catalogue,
    now: () => clock.now(),
    links: {
      printFileUrls: (order, shipmentId) => printFileUrls(deps.fileTokens, order, shipmentId),
      extraFileUrls: (order) => extraFileUrls(deps.fileTokens, order),
      packingSlipPdfUrl: (order, shipmentId) => packingSlipPdfUrl(deps.fileTokens, order, shipmentId),
      commercialInvoiceUrl: (order, shipmentId) =>
        deps.fileTokens.url(order.environment, commercialInvoiceKey(order.document.id, shipmentId)),
    },
  }

  async function pushUrlFor(tx: Queryable, labCode: string): Promise<string | null> {
    const lab = catalogue.findLab(labCode)
    if (!lab) return null
    return pushUrlOf(await readLabPushEndpoint(tx, labCode), lab.pushUrl).url
  }

  /** Writes one pushed job to the outbox with its delivery and first attempt job, in the caller's transaction. */
  async function writeLabEvent(
    tx: Queryable,
    push: { labCode: string; orderNumber: number; url: string; event: LabEventKind; job: LabJobView },
  ): Promise<void> {
    const type = labEventType(deps.vendor, push.event)
    await writeLabOutbox(tx, push, type, (id, now) =>
      buildLabCloudEvent({ id, type, source: deps.source(), time: now, event: push.event, job: push.job }),
    )
  }

  /** Writes one push (its CloudEvent made by `cloudEvent`) with its delivery and first attempt job. */
  async function writeLabOutbox(
    tx: Queryable,
    push: { labCode: string; orderNumber: number; url: string },
    type: string,
    cloudEvent: (id: string, now: Date) => object,
  ): Promise<void> {
    const [id] = await drawEventIds(tx, 1)
    const eventId = id as number
    const now = clock.now()
    const body = JSON.stringify(cloudEvent(formatId('evt', eventId), now))
    await insertEvent(tx, {
      id: eventId,
      orderNumber: null,
      accountId: null,
      labCode: push.labCode,
      environment: 'live',
      sequence: 0,
      type,
      createdAt: now,
      body,
    })
    const deliveryId = await insertDelivery(tx, {
      eventId,
      orderNumber: push.orderNumber,
      accountId: null,
      labCode: push.labCode,
      environment: 'live',
      url: push.url,
      redeliveryOf: null,
      at: now,
    })
    await deps.jobs.enqueue(tx, [deliveryJob(deliveryId, 1)])
  }

  /** Pushes each claim the change made to the lab whose work it is about (`lab.claim.created`). */
  async function recordClaims(tx: Queryable, order: PipelineOrder, extra: readonly OrderEventKind[]): Promise<number> {
    let written = 0
    for (const created of labClaimsCreatedBy(order, extra)) {
      const number = parseId('clm', created.claimId)
      const stored = number === undefined ? undefined : await readClaimForPush(tx, number)
      const claim = created.claim ?? (stored ? (JSON.parse(stored.document) as ClaimView) : undefined)
      const labCode = created.labCode || stored?.labCode
      if (!claim || !labCode) continue
      const url = await pushUrlFor(tx, labCode)
      if (url === null) continue
      const view = labClaimViewOf(claim, [], deps.claimPhotoUrl ?? (() => ''))
      const type = labClaimCreatedType(deps.vendor)
      await writeLabOutbox(tx, { labCode, orderNumber: order.orderNumber, url }, type, (id, now) =>
        buildLabClaimCloudEvent({ id, type, source: deps.source(), time: now, claim: view }),
      )
      written += 1
    }
    return written
  }

  async function record(
    tx: Queryable,
    before: OrderSnapshot,
    order: PipelineOrder,
    extra: readonly OrderEventKind[] = [],
  ): Promise<number> {
    const events = labEventsOf(before.labShipments, labShipmentsOf(order))
    let written = extra.length > 0 ? await recordClaims(tx, order, extra) : 0
    for (const { shipmentId, labCode, event } of events) {
      const url = await pushUrlFor(tx, labCode)
      if (url === null) continue
      const state = order.pipeline.shipments[shipmentId]?.state ?? 'submitted'
      const job = buildLabJobView(viewContext, order, shipmentId, state)
      if (!job) continue
      await writeLabEvent(tx, { labCode, orderNumber: order.orderNumber, url, event, job })
      written += 1
    }
    return written
  }

  async function listPushes(
    labCode: string,
    page: { top?: number; skip?: number },
  ): Promise<{ pushes: LabPushView[]; hasMore: boolean }> {
    const top = page.top ?? CALLBACK_LIST_DEFAULT_TOP
    const rows = await listLabDeliveries(db, { labCode, limit: top + 1, offset: page.skip ?? 0 })
    const shown = rows.slice(0, top)
    const attempts = await listAttempts(
      db,
      shown.map((row) => row.id),
    )
    return {
      pushes: shown.map((row) =>
        toLabPushView(
          row,
          attempts.filter((attempt) => attempt.deliveryId === row.id),
        ),
      ),
      hasMore: rows.length > top,
    }
  }

  async function redeliver(labCode: string, id: string): Promise<LabPushView> {
    const number = parseRequestId('cbd', id, 'id')
    const original = await findLabDelivery(db, labCode, number)
    if (!original) throw new ServiceError('EntityNotFound', `Push ${id} was not found`)
    const newId = await db.transaction(async (tx) => {
      // Locked, so that retention cannot delete it (and its event) under the new delivery referring to them.
      if (!(await findDelivery(tx, original.id, true)))
        throw new ServiceError('EntityNotFound', `Push ${id} was not found`)
      const url = (await pushUrlFor(tx, labCode)) ?? original.url
      const deliveryId = await insertDelivery(tx, {
        eventId: original.eventId,
        orderNumber: original.orderNumber,
        accountId: null,
        labCode,
        environment: original.environment,
        url,
        redeliveryOf: original.id,
        at: clock.now(),
      })
      await deps.jobs.enqueue(tx, [deliveryJob(deliveryId, 1)])
      return deliveryId
    })
    const created = await findDelivery(db, newId)
    if (!created) throw new ServiceError('EntityNotFound', `Push ${id} was not found`)
    return toLabPushView(created, [])
  }

  /**
   * The reminders due now: for every lab with a push endpoint, each of its open Live jobs still `submitted` four
   * hours (LAB_REMINDER_NOT_ACKNOWLEDGED_SECONDS) after submission, and each whose ship-by date is the lab's today or
   * past; at most once per job, reason and lab date (lab_push_reminders, claimed in the push's transaction).
   */
  async function remind(): Promise<number> {
    const now = clock.now()
    // What was reminded is needed for the lab's day only: a week's worth is kept, then forgotten.
    await deleteOldLabReminders(db, new Date(now.getTime() - REMINDER_MEMORY_SECONDS * 1000))
    let pushed = 0
    for (const lab of catalogue.labs) {
      const url = await pushUrlFor(db, lab.code)
      if (url === null) continue
      const today = labDate(lab, now)
      const jobs = (await listLabJobs(db, lab.code, LAB_OPEN_STATES)).filter((job) => job.environment === 'live')
      for (const job of jobs) {
        const order = await readOrder(db, job.orderNumber)
        const shipmentId = formatId('shp', job.shipmentNumber)
        const view = order && buildLabJobView(viewContext, order, shipmentId, job.state)
        if (!order || !view) continue
        const reasons: LabReminderReason[] = []
        const submittedAt = order.pipeline.shipments[shipmentId]?.submitted?.at
        const waited = submittedAt === undefined ? 0 : (now.getTime() - Date.parse(submittedAt)) / 1000
        if (job.state === 'submitted' && waited >= LAB_REMINDER_NOT_ACKNOWLEDGED_SECONDS)
          reasons.push('notAcknowledged')
        if (view.shipBy !== undefined && view.shipBy === today) reasons.push('shipByToday')
        if (view.shipBy !== undefined && view.shipBy < today) reasons.push('overdue')
        for (const reason of reasons) {
          const claimed = await db.transaction(async (tx) => {
            const first = await claimLabReminder(tx, {
              shipmentNumber: job.shipmentNumber,
              reason,
              labDate: today,
              at: now,
            })
            if (first) {
              await writeLabEvent(tx, {
                labCode: lab.code,
                orderNumber: job.orderNumber,
                url,
                event: { kind: 'reminder', reason },
                job: view,
              })
            }
            return first
          })
          if (claimed) pushed += 1
        }
      }
    }
    return pushed
  }

  return { ...settings, record, listPushes, redeliver, remind }
}
