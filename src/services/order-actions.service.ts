// Order actions (docs/api.md#order-actions): list, cancel, change shipping method, change recipient, change metadata.
// Every action locks the order row and runs its rule (domain/order-actions.ts), the charge it causes and the jobs it
// starts in one transaction, so it never interleaves with a pipeline step on the same order: whichever takes
// the lock second sees what the first did.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import {
  ADDRESS_UNVERIFIED_ISSUE,
  addressProblemFailures,
  addressUnverifiedIssues,
  checkRecipientAddress,
  parseAddressValidationMode,
  splitAddressProblems,
} from '../domain/address-rules.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { linesOfShipments, replaceShipmentLines, withCreditsCapped, withoutShipping } from '../domain/charges.ts'
import { withPrepaidDuties } from '../domain/customs.ts'
import {
  canConfirm,
  confirmDraft,
  confirmStep,
  draftHasExpired,
  endCancelledDraft,
  expireDraftJob,
  heldUntil,
  isOpenDraft,
  releaseHold,
} from '../domain/drafts.ts'
import type { Environment } from '../domain/environment.ts'
import { parseRequestId } from '../domain/ids.ts'
import type { JobRequest } from '../domain/jobs.ts'
import {
  type AddressAdvisory,
  type Issue,
  METADATA_MAX_CHARACTERS,
  metadataLength,
  type Recipient,
  setAddressAdvisories,
} from '../domain/order.ts'
import {
  type AvailableActions,
  anyAssetReplaceable,
  availableActions,
  byShipmentId,
  type CancelOutcome,
  cancelOrder,
  type ReplaceAssetOutcome,
  type ReplaceAssetRequest,
  replaceAsset,
  replaceOpenShipments,
  type ShipmentUpdateResult,
  shipmentsByChangeability,
  type UpdateOutcome,
  updateRecipient,
} from '../domain/order-actions.ts'
import type { OrderEventKind } from '../domain/order-events.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { itemsAwaitingAllocation, type PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { startOrderJob } from '../domain/pipeline/start-order.ts'
import type { ShippingMethod } from '../domain/shipping-methods.ts'
import { unfetchableUrlReason } from '../domain/urls.ts'
import { readEnvironmentSettings } from '../repositories/accounts.repository.ts'
import { drawShipmentIds, readOrder } from '../repositories/orders.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { BillingService } from './billing.service.ts'
import { type LogFields, type ServiceLogger, silentLogger } from './observability.ts'
import { createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'
import { type FileLinkRefresher, findCallersOrder, orderNotFound } from './orders.service.ts'
import type { LabRoom } from './pipeline/lab-room.ts'
import { orderLogFields } from './pipeline/log-lines.ts'
import type { Allocator } from './pipeline/ports.ts'

export interface OrderActionsDeps {
  db: Database
  /**
   * The address rules' shipping facts (which carriers need a phone number) for updateRecipient's check, and what the
   * duties a DDP order prepays are worked out with when a re-plan gives it new shipments
   * (docs/billing.md#ddp-duties-and-taxes).
   */
  catalogue: Catalogue
  clock: Clock
  jobs: JobEnqueuer
  billing: BillingService
  allocate: Allocator
  /** A re-plan (a new shipping method) skips paused and full labs and counts its jobs, as allocation does. */
  labRoom: LabRoom
  /** Writes the callbacks a change causes (a cancelled order's stage change), in its transaction. */
  events: OrderEventsService
  fileLinks: FileLinkRefresher
  /** One line per action taken; silent when absent. */
  log?: ServiceLogger
  /** Asking labs to cancel shipments they hold (docs/api.md#order-actions); never asked when absent. */
  labCancellation?: LabCancellationSettings
}

/** How a cancel asks labs and waits for their answers. */
export interface LabCancellationSettings {
  /** Whether shipments of this environment are at real labs that can be asked (Live, unless labs are simulated). */
  asksLabs(environment: Environment): boolean
  /** How long the cancel waits for the labs' answers before answering FailedToCancel; 0: it does not wait. */
  waitSeconds: number
  /** How often the waiting cancel reads the order again; 100 ms when absent. */
  pollMilliseconds?: number
}

/** An action's result and the order as it stands after it, as JSON text in contract key order. */
export interface ActionResult<T> {
  outcome: T
  shipmentUpdateResults: ShipmentUpdateResult[]
  orderJson: string
}

interface Change<T> {
  outcome: T
  changed: boolean
  jobs?: JobRequest[]
  /** Events the document does not show (a draft confirmed or expired, a hold released). */
  events?: OrderEventKind[]
  shipmentUpdateResults?: ShipmentUpdateResult[]
  /** What the log line about the action adds (the shipments a cancellation stopped). */
  logFields?: LogFields
}

type ActionName =
  | 'cancel'
  | 'updateShippingMethod'
  | 'updateRecipient'
  | 'updateMetadata'
  | 'replaceAsset'
  | 'confirm'
  | 'expireDraft'

/** The actions a merchant takes on an order, each under the order's row lock (docs/api.md#order-actions). */
export interface OrderActionsService {
  /** Which actions the caller's order allows now. */
  listActions(caller: Caller, orderId: string): Promise<Required<AvailableActions> & { confirm: ActionAvailability }>
  /**
   * Confirms a draft (it starts as a new order would now: the pause window, charges, payment holds and credit
   * limits apply from here) or releases a held order's hold early (docs/api.md#drafts-and-holds). Confirmed, again
   * for a repeat (nothing starts twice); OnHold (only the order id) for a draft confirmed in the account's pause
   * window; ActionNotAvailable for an order that is neither. `traceId`: the confirming request's.
   */
  confirm(caller: Caller, orderId: string, traceId?: string): Promise<ConfirmResult>
  /**
   * The expire-draft job: cancels the draft when its `expiresAt` has come and it is still a draft (the event
   * draft#Expired); queued again for its time if run early; nothing for an order confirmed or cancelled since.
   */
  expireDraft(orderId: string): Promise<void>
  /** Cancels every shipment not yet with its lab (the whole order when that is all of them), refunding them. */
  cancel(caller: Caller, orderId: string): Promise<ActionResult<CancelOutcome>>
  /** Changes the shipping method, planning the shipments not yet with their lab again and charging the difference. */
  updateShippingMethod(
    caller: Caller,
    orderId: string,
    shippingMethod: ShippingMethod,
  ): Promise<ActionResult<UpdateOutcome>>
  /**
   * Changes the recipient within the same destination country (`countryCodePath` names the field in refusals), its
   * address checked as on create (docs/addresses.md) unless `acceptUnverifiedAddress`.
   */
  updateRecipient(
    caller: Caller,
    orderId: string,
    recipient: Recipient,
    countryCodePath: string,
    acceptUnverifiedAddress?: boolean,
  ): Promise<ActionResult<UpdateOutcome>>
  /** Replaces the metadata, in any state. */
  updateMetadata(caller: Caller, orderId: string, metadata: Record<string, unknown>): Promise<ActionResult<'Updated'>>
  /**
   * Replaces an asset's URL until allocation begins (domain/order-actions.ts, canReplaceAsset): the new file (of a
   * PreflightFailed or FailedToDownload hold too) is downloaded and preflighted afresh by the pipeline's download job.
   * ValidationFailed naming `itemId`, `printArea` or `url` for a bad request; ActionNotAvailable otherwise.
   */
  replaceAsset(
    caller: Caller,
    orderId: string,
    request: ReplaceAssetRequest,
  ): Promise<ActionResult<ReplaceAssetOutcome>>
  /**
   * The operator's cancel (docs/admin.md#acting-on-an-order): the merchant's cancel, its rules, refunds and labs'
   * cancellation requests, on an order of any account; `operator` checks the locked order first and records the
   * audit entry in the change's transaction. Undefined when there is no such order.
   */
  cancelForOperator(orderId: string, operator: OperatorChange): Promise<ActionResult<CancelOutcome> | undefined>
}

export type ActionAvailability = { isAvailable: 'Yes' | 'No' }

/** A confirm's answer: the order (Confirmed, ActionNotAvailable) or only its id while in the pause window. */
export type ConfirmResult =
  | ActionResult<'Confirmed' | 'ActionNotAvailable'>
  | { outcome: 'OnHold'; onHold: { id: string; until: Date } }

/** What an operator's change adds to an order action: a check under the order's lock, and its audit entry. */
export interface OperatorChange {
  /** Throws to refuse the change (the order changed since the operator read it), before anything changed. */
  check(order: PipelineOrder): void
  /** Refuses a change that changed nothing (throws); else records it, in the change's transaction. */
  record(tx: Queryable, order: PipelineOrder, change: { changed: boolean; outcome: string }): Promise<void>
}

export function createOrderActionsService(deps: OrderActionsDeps): OrderActionsService {
  const { db, clock } = deps
  const log = deps.log ?? silentLogger
  const changes = createOrderChanger(deps)
  const asksLabs = (environment: Environment) => deps.labCancellation?.asksLabs(environment) ?? false

  /**
   * Waits, holding no transaction or lock, until the labs asked to cancel `awaited` have all answered or
   * `waitSeconds` have passed, reading the order row (any process may take the answers); then the outcome as they
   * left the order: Cancelled when the order is, else FailedToCancel (a lab too late, or not answered yet: its
   * later `cancelled` still cancels and refunds, with the callbacks that causes).
   */
  async function awaitLabAnswers(
    orderId: string,
    awaited: readonly string[],
    waitSeconds: number,
  ): Promise<ActionResult<CancelOutcome>> {
    const deadline = Date.now() + waitSeconds * 1000
    const pollMilliseconds = deps.labCancellation?.pollMilliseconds ?? 100
    const orderNumber = parseRequestId('ord', orderId, 'orderId')
    let order = await readOrder(db, orderNumber)
    const answered = (current: PipelineOrder) =>
      awaited.every((shipmentId) => {
        const shipment = current.pipeline.shipments[shipmentId]
        return shipment?.state !== 'submitted' && shipment?.state !== 'acknowledged'
          ? true
          : shipment.cancellationRequested?.answer !== undefined
      })
    while (order && !answered(order) && Date.now() < deadline) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(pollMilliseconds, Math.max(0, deadline - Date.now()))),
      )
      order = await readOrder(db, orderNumber)
    }
    if (!order) throw orderNotFound(orderId)
    const outcome: CancelOutcome = order.document.status.stage === 'Cancelled' ? 'Cancelled' : 'FailedToCancel'
    const timedOut = !answered(order)
    log.info(
      { ...orderLogFields(order), step: 'cancel', action: 'cancel', outcome, awaitedShipmentIds: awaited, timedOut },
      `cancel on ${orderId}: ${outcome} after ${timedOut ? 'waiting in vain for' : 'the answers of'} the labs`,
    )
    return { outcome, shipmentUpdateResults: [], orderJson: deps.fileLinks.refresh(JSON.stringify(order.document)) }
  }

  /** Changes the caller's order by `action` (services/order-change.ts); once committed, logs what it did. */
  async function act<T>(
    name: ActionName,
    caller: Caller | undefined,
    orderId: string,
    action: (order: PipelineOrder, tx: Queryable, now: Date) => Promise<Change<T>>,
    operator?: OperatorChange,
  ): Promise<ActionResult<T>> {
    const applied = await changes.change(
      parseRequestId('ord', orderId, 'orderId'),
      async (order, tx) => {
        operator?.check(order)
        const change = await action(order, tx, clock.now())
        await operator?.record(tx, order, { changed: change.changed, outcome: String(change.outcome) })
        return change.events ? { ...change, events: change.events } : change
      },
      caller,
    )
    if (!applied) throw orderNotFound(orderId)
    const { order, result: change } = applied
    const result = {
      outcome: change.outcome,
      shipmentUpdateResults: change.shipmentUpdateResults ?? [],
      orderJson: deps.fileLinks.refresh(JSON.stringify(order.document)),
    }
    const logFields = { ...orderLogFields(order), changed: change.changed, ...change.logFields }
    log.info(
      { ...logFields, step: name === 'cancel' ? 'cancel' : 'action', action: name, outcome: result.outcome },
      `${name} on ${orderId}: ${String(result.outcome)}`,
    )
    return result
  }

  /** The merchant's cancel (`caller`'s order) or the operator's (any order: no caller), as `cancel` describes it. */
  async function cancelOrderAs(
    caller: Caller | undefined,
    orderId: string,
    operator?: OperatorChange,
  ): Promise<ActionResult<CancelOutcome>> {
    let awaited: string[] = []
    const result = await act(
      'cancel',
      caller,
      orderId,
      async (order, tx, now) => {
        const result = cancelOrder(order.document, order.pipeline, now, { asksLabs: asksLabs(order.environment) })
        awaited = result.awaitedShipmentIds
        if (!result.changed)
          return { outcome: result.outcome, changed: false, logFields: { awaitedShipmentIds: awaited } }
        // An order cancelled in its pause window is shown from now on, as cancelled.
        if (result.wholeOrder && order.onHoldUntil && order.onHoldUntil > now) order.onHoldUntil = now
        // A cancelled draft is a draft no more (nothing was charged: it never started).
        if (result.wholeOrder) endCancelledDraft(order.document, order.pipeline, now)
        const billing = order.pipeline.billing
        const jobs: JobRequest[] = []
        if (billing && (result.wholeOrder || result.cancelledShipmentIds.length > 0)) {
          const target = result.wholeOrder
            ? {}
            : withCreditsCapped(withoutShipping(billing.lines, result.cancelledShipmentIds))
          jobs.push(...(await deps.billing.chargeDifference(tx, order, target)))
        }
        const logFields = {
          wholeOrder: result.wholeOrder,
          cancelledShipmentIds: result.cancelledShipmentIds,
          // A lab with a push endpoint is told by the order change itself (lab.job.cancellationRequested).
          requestedShipmentIds: result.requestedShipmentIds,
          awaitedShipmentIds: awaited,
        }
        return { outcome: result.outcome, changed: true, jobs, logFields }
      },
      operator,
    )
    const waitSeconds = deps.labCancellation?.waitSeconds ?? 0
    if (awaited.length === 0 || waitSeconds <= 0) return result
    return awaitLabAnswers(orderId, awaited, waitSeconds)
  }

  return {
    async listActions(caller, orderId) {
      const order = await findCallersOrder(db, caller, orderId)
      const available = availableActions(order.document.status.stage, order.pipeline, {
        asksLabs: asksLabs(order.environment),
      })
      const replaceable = anyAssetReplaceable(order.document, order.pipeline)
      const confirmable = canConfirm(order.document, order.pipeline, clock.now())
      return {
        ...available,
        replaceAsset: { isAvailable: replaceable ? 'Yes' : 'No' },
        confirm: { isAvailable: confirmable ? 'Yes' : 'No' },
      }
    },

    async confirm(caller, orderId, traceId) {
      let inPauseWindow: { id: string; until: Date } | undefined
      const result = await act('confirm', caller, orderId, async (order, _tx, now) => {
        const change = confirmChange(caller, order, now, traceId)
        // Confirmed in the account's pause window: answered as create answers such an order, by its id only.
        if (change.outcome === 'Confirmed' && order.onHoldUntil && order.onHoldUntil > now) {
          inPauseWindow = { id: order.document.id, until: order.onHoldUntil }
        }
        return change
      })
      return inPauseWindow ? { outcome: 'OnHold', onHold: inPauseWindow } : result
    },

    async expireDraft(orderId) {
      try {
        await act('expireDraft', undefined, orderId, async (order, _tx, now) => expireChange(order, now))
      } catch (error) {
        // An order that is gone (a database reset in tests) has nothing left to expire.
        if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return
        throw error
      }
    },

    /**
     * Cancels every shipment not yet with its lab. The whole order: stage Cancelled and everything charged is
     * refunded. Only some shipments: the order goes on (FailedToCancel) and their shipping is refunded. Shipments
     * with a lab that has not started production are asked to cancel there; when the order's outcome hangs on
     * those answers, the cancel waits for them (`waitSeconds`) and answers as they left the order.
     */
    cancel: (caller, orderId) => cancelOrderAs(caller, orderId),

    async cancelForOperator(orderId, operator) {
      try {
        return await cancelOrderAs(undefined, orderId, operator)
      } catch (error) {
        if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return undefined
        throw error
      }
    },

    /**
     * Changes the shipping method. Shipments not yet with their lab are planned again for the new method (the
     * same allocation and pricing as a new order; a shipment that stays with its lab and items keeps its id and
     * print files) and the charges adjust by the difference. Items not allocated yet are only checked: they will
     * be allocated with the new method. Nothing changes when the new method cannot serve them (FailedToUpdate).
     */
    updateShippingMethod(
      caller: Caller,
      orderId: string,
      shippingMethod: ShippingMethod,
    ): Promise<ActionResult<UpdateOutcome>> {
      return act('updateShippingMethod', caller, orderId, (order, tx, now) =>
        changeShippingMethod(deps, caller, shippingMethod, order, tx, now),
      )
    },

    /**
     * Changes the recipient within the same destination country (a new country would need new labs, prices and
     * customs: refused). Shipments already with their lab keep the recipient they were given.
     */
    updateRecipient(
      caller: Caller,
      orderId: string,
      recipient: Recipient,
      countryCodePath: string,
      acceptUnverifiedAddress = false,
    ): Promise<ActionResult<UpdateOutcome>> {
      return act('updateRecipient', caller, orderId, async (order, tx, now) => {
        const current = order.document.recipient.address.countryCode
        if (recipient.address.countryCode !== current) {
          throw validationFailed(
            {
              [countryCodePath]: [
                {
                  code: 'ChangeOfDestinationCountryNotPossible',
                  providedValue: recipient.address.countryCode,
                  comparisonValue: current,
                },
              ],
            },
            'The destination country of an order cannot be changed',
          )
        }
        const check = await recipientAddressCheck(
          deps.catalogue,
          tx,
          caller,
          order,
          recipient,
          countryCodePath,
          acceptUnverifiedAddress,
        )
        const result = updateRecipient(order.document, order.pipeline, recipient, now)
        if (result.changed) {
          // The new address's problems replace the old one's: an address corrected clears them.
          order.document.status.issues = [
            ...order.document.status.issues.filter((issue) => issue.errorCode !== ADDRESS_UNVERIFIED_ISSUE),
            ...check.issues,
          ]
          setAddressAdvisories(order.document, check.advisories)
        }
        return { outcome: result.outcome, changed: result.changed, shipmentUpdateResults: result.results }
      })
    },

    /** Replaces the metadata, in any state. */
    updateMetadata(
      caller: Caller,
      orderId: string,
      metadata: Record<string, unknown>,
    ): Promise<ActionResult<'Updated'>> {
      const length = metadataLength(metadata)
      if (length > METADATA_MAX_CHARACTERS) {
        throw validationFailed({
          metadata: [{ code: 'TooLong', providedValue: length, comparisonValue: METADATA_MAX_CHARACTERS }],
        })
      }
      return act('updateMetadata', caller, orderId, async (order, _tx, now) => {
        order.document.metadata = metadata
        order.document.lastUpdated = now.toISOString()
        return { outcome: 'Updated', changed: true }
      })
    },

    replaceAsset(
      caller: Caller,
      orderId: string,
      request: ReplaceAssetRequest,
    ): Promise<ActionResult<ReplaceAssetOutcome>> {
      const urlProblem = unfetchableUrlReason(request.url)
      if (urlProblem !== undefined) {
        throw validationFailed(
          {
            url: [{ code: 'InvalidFormat', providedValue: request.url, comparisonValue: `http(s) URL: ${urlProblem}` }],
          },
          'The asset could not be replaced',
        )
      }
      return act('replaceAsset', caller, orderId, async (order, _tx, now) => {
        const result = replaceAsset(order.document, order.pipeline, request, now)
        if ('failures' in result) throw validationFailed(result.failures, 'The asset could not be replaced')
        return {
          outcome: result.outcome,
          changed: result.changed,
          jobs: result.jobs,
          logFields: { itemId: request.itemId, assetId: result.assetId },
        }
      })
    },
  }
}

/**
 * A recipient's address checked for an order action (docs/addresses.md#modes), in the mode of the caller's
 * environment: nothing in `off`; else its advisories (shown whatever the mode) and the AddressUnverified issues of
 * its problems that stop delivery (none when `acceptUnverifiedAddress`). In `refuse` mode such a problem is
 * ValidationFailed naming each field (under the prefix `countryCodePath` has) instead.
 */
async function recipientAddressCheck(
  catalogue: Catalogue,
  tx: Queryable,
  caller: Caller,
  order: PipelineOrder,
  recipient: Recipient,
  countryCodePath: string,
  acceptUnverifiedAddress: boolean,
): Promise<{ issues: Issue[]; advisories: AddressAdvisory[] }> {
  const checked = checkRecipientAddress(catalogue, recipient, order.document.shippingMethod)
  if (!checked || checked.problems.length === 0) return { issues: [], advisories: [] }
  const settings = await readEnvironmentSettings(tx, caller.accountId, caller.environment)
  const mode = parseAddressValidationMode(settings?.addressValidation)
  if (mode === 'off') return { issues: [], advisories: [] }
  const { blocking, advisories } = splitAddressProblems(checked.problems)
  if (blocking.length === 0 || acceptUnverifiedAddress) return { issues: [], advisories }
  if (mode === 'warn') {
    return {
      issues: addressUnverifiedIssues(order.document.id, blocking, recipient.address, checked.suggested),
      advisories,
    }
  }
  const prefix = countryCodePath.slice(0, -'.countryCode'.length)
  const phonePath = prefix === 'address' ? 'phoneNumber' : 'recipient.phoneNumber'
  throw validationFailed(
    addressProblemFailures(
      prefix,
      phonePath,
      blocking,
      { ...recipient.address, phoneNumber: recipient.phoneNumber },
      checked.suggested,
    ),
    "The recipient's address breaks its country's rules",
    { suggestedAddress: checked.suggested, addressProblems: checked.problems },
  )
}

/** The change of shipping method on the locked order (`updateShippingMethod`). */
async function changeShippingMethod(
  deps: OrderActionsDeps,
  caller: Caller,
  shippingMethod: ShippingMethod,
  order: PipelineOrder,
  tx: Queryable,
  now: Date,
): Promise<Change<UpdateOutcome>> {
  const { document, pipeline } = order
  // Shipments already with their lab do not make the action unavailable: they report FailedToUpdate.
  if (document.status.stage !== 'InProgress' || pipeline.phase === 'failed') {
    return { outcome: 'ActionNotAvailable', changed: false }
  }
  const { open, submitted } = shipmentsByChangeability(document, pipeline)
  const unchanged = submitted.map((shipment) => ({ shipmentId: shipment.id, successful: false }))
  if (shippingMethod === document.shippingMethod) {
    const results = [...open, ...submitted].map((shipment) => ({ shipmentId: shipment.id, successful: true }))
    return { outcome: 'Updated', changed: false, shipmentUpdateResults: sortResults(results) }
  }
  const awaiting = itemsAwaitingAllocation(document, pipeline).map((item) => item.id)
  if (open.length === 0 && awaiting.length === 0) {
    return { outcome: 'FailedToUpdate', changed: false, shipmentUpdateResults: unchanged }
  }
  const currency = pipeline.billing?.currency ?? caller.billingCurrency
  // A Live order's re-planned shipments go only to labs taking new work (paused or full labs are left out, as
  // allocation leaves them out); when only those could take the new method, the change is FailedToUpdate.
  const unavailableLabs = await deps.labRoom.unavailableLabsFor(order, tx)
  const plan = (itemIds: string[], withAvailability: boolean) =>
    deps.allocate({
      order: document,
      itemIds,
      excludedLabsByItem: pipeline.excludedLabs,
      ...(pipeline.exclusionReasons ? { exclusionReasons: pipeline.exclusionReasons } : {}),
      ...(withAvailability ? { unavailableLabs } : {}),
      shippingMethod,
      currency,
      priceList: pipeline.billing ? (pipeline.billing.priceList ?? null) : (caller.priceList ?? null),
      explain: { basis: 'Allocation', at: now },
      // Re-planned shipments get new estimates and promises, for the order's date when it has one.
      promise: { received: now, ...(document.deliverBy ? { deliverBy: document.deliverBy } : {}) },
    })
  const replanned = plan(
    open.flatMap((shipment) => shipment.items.map((entry) => entry.itemId)),
    true,
  )
  // Items still waiting for a lab are only checked here (some lab makes them by the new method): their allocation
  // round applies availability, and waits for room rather than fail.
  const stillToAllocate = awaiting.length > 0 ? plan(awaiting, false) : replanned
  if (!replanned.ok || !stillToAllocate.ok) {
    const failed = [...open, ...submitted].map((shipment) => ({ shipmentId: shipment.id, successful: false }))
    return { outcome: 'FailedToUpdate', changed: false, shipmentUpdateResults: sortResults(failed) }
  }
  document.shippingMethod = shippingMethod
  document.lastUpdated = now.toISOString()
  // Whether a phone number is asked for follows the method's carriers: the advisories follow the new method. The
  // blocking problems do not depend on the method, so the issues stay as they are.
  const addressCheck = await recipientAddressCheck(
    deps.catalogue,
    tx,
    caller,
    order,
    document.recipient,
    'recipient.address.countryCode',
    true,
  )
  setAddressAdvisories(document, addressCheck.advisories)
  const jobs: JobRequest[] = []
  const updated: ShipmentUpdateResult[] = []
  if (open.length > 0) {
    if (replanned.routing) pipeline.routing = [...(pipeline.routing ?? []), replanned.routing]
    const ids = await drawShipmentIds(tx, replanned.shipments.length)
    const planned = replanned.shipments.map((shipment, index) => ({ ...shipment, id: ids[index] as string }))
    await deps.labRoom.countJobsGiven(order, tx, planned)
    const replaced = replaceOpenShipments(document, pipeline, open, planned, now)
    jobs.push(...replaced.jobs)
    for (const id of replaced.keptOrAddedIds) updated.push({ shipmentId: id, successful: true })
    const billing = pipeline.billing
    if (billing) {
      // The new shipments of a DDP order prepay their own duties (another lab may mean another border).
      const prices = planned.map((shipment) => shipment.price)
      const added = linesOfShipments(
        withPrepaidDuties(deps.catalogue, document, prices, billing.currency),
        replaced.keptOrAddedIds,
      )
      // An operator's credit never makes the order net below zero (domain/charges.ts).
      const target = withCreditsCapped(
        replaceShipmentLines(
          billing.lines,
          open.map((shipment) => shipment.id),
          added,
        ),
      )
      jobs.push(...(await deps.billing.chargeDifference(tx, order, target)))
    }
  }
  const outcome = submitted.length > 0 ? 'PartiallyUpdated' : 'Updated'
  return { outcome, changed: true, jobs, shipmentUpdateResults: sortResults([...updated, ...unchanged]) }
}

function sortResults(results: ShipmentUpdateResult[]): ShipmentUpdateResult[] {
  return results.sort(byShipmentId)
}

/**
 * The confirm on the locked order (domain/drafts.ts, confirmStep): a draft starts as an order created now would
 * (the account's pause window from now, then its own hold if later), a held order starts now; a repeat changes
 * nothing and answers Confirmed again.
 */
function confirmChange(
  caller: Caller,
  order: PipelineOrder,
  now: Date,
  traceId: string | undefined,
): Change<'Confirmed' | 'ActionNotAvailable'> {
  const { document, pipeline } = order
  const step = confirmStep(document, pipeline, now)
  if (step === 'notAvailable') return { outcome: 'ActionNotAvailable', changed: false }
  if (step === 'already') return { outcome: 'Confirmed', changed: false }
  if (step === 'release') {
    releaseHold(document, pipeline, now)
    // The start queued for the hold's end stays queued and finds the order started.
    const start = startOrderJob(document.id, order.onHoldUntil && order.onHoldUntil > now ? order.onHoldUntil : null)
    return {
      outcome: 'Confirmed',
      changed: true,
      jobs: [{ ...start, key: `${start.key}:released` }],
      events: [{ kind: 'holdReleased' }],
      logFields: { released: true },
    }
  }
  confirmDraft(document, pipeline, now)
  const pauseEnd = caller.pauseWindowSeconds > 0 ? new Date(now.getTime() + caller.pauseWindowSeconds * 1000) : null
  order.onHoldUntil = pauseEnd
  const hold = heldUntil(document, now)
  const startsAt = pauseEnd && hold ? (pauseEnd > hold ? pauseEnd : hold) : (pauseEnd ?? hold ?? null)
  return {
    outcome: 'Confirmed',
    changed: true,
    jobs: [startOrderJob(document.id, startsAt, traceId)],
    events: [{ kind: 'draftConfirmed' }],
    logFields: { startsAt: startsAt?.toISOString() ?? now.toISOString() },
  }
}

/** The expire-draft job's change on the locked order: cancel the draft whose time is up, with its event. */
function expireChange(order: PipelineOrder, now: Date): Change<'Cancelled' | 'NotDue' | 'NoDraft'> {
  const { document, pipeline } = order
  if (!isOpenDraft(document) || document.status.stage !== 'InProgress') return { outcome: 'NoDraft', changed: false }
  if (!draftHasExpired(document, now)) {
    // Run before its time by this process's clock: queued again for the draft's expiry.
    const expiresAt = new Date(document.expiresAt ?? now.toISOString())
    const retry = expireDraftJob(document.id, expiresAt)
    return { outcome: 'NotDue', changed: false, jobs: [{ ...retry, key: `${retry.key}:${expiresAt.toISOString()}` }] }
  }
  const result = cancelOrder(document, pipeline, now)
  endCancelledDraft(document, pipeline, now, true)
  return { outcome: 'Cancelled', changed: result.changed, events: [{ kind: 'draftExpired' }] }
}
