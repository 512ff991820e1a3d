// Orders: create (validated against the catalogue, idempotent), get and list. An order is created by one
// statement that also enqueues the job starting its fulfilment (repositories/orders.repository.ts).
//
// An order with `deliverBy` (docs/api.md#delivery-estimates) is accepted only when some plan arrives by then: before
// anything is written, its allocation is estimated as the pipeline will make it (allocateInScenario, the routing
// estimate's call) from the moment its labs can first get it, the end of its pause window or now.
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import {
  type AddressProblem,
  addressProblemFailures,
  addressUnverifiedIssues,
  type CheckedAddress,
  checkRecipientAddress,
  type NormalisedAddress,
  parseAddressValidationMode,
  splitAddressProblems,
} from '../domain/address-rules.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { catalogueValidationFailed, matchOrderItems, pageCountAssetIndex } from '../domain/catalogue-matching.ts'
import { DEFAULT_INCOTERM, IOSS_NUMBER_PATTERN, isEuMemberState, type OrderCustoms } from '../domain/customs.ts'
import { deliverByFailure, isIsoDate } from '../domain/delivery-promise.ts'
import { draftExpiry, expireDraftJob, holdUntilFailure } from '../domain/drafts.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { formatId, invalidIdFailure, parseId, parseIdOrNumber, parseRequestId } from '../domain/ids.ts'
import { unavailableLabs } from '../domain/lab-availability.ts'
import { normaliseAmount } from '../domain/money.ts'
import {
  type AddressAdvisory,
  buildNewOrderDocument,
  countAssets,
  METADATA_MAX_CHARACTERS,
  metadataLength,
  type NewOrder,
  type OrderDocument,
  type Recipient,
  type Stage,
  setAddressAdvisories,
} from '../domain/order.ts'
import {
  type AllocationRequest,
  allocateInScenario,
  allocateOrderItems,
  type DeliverByResult,
} from '../domain/order-allocation.ts'
import type { OrderListStatus } from '../domain/order-list.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import type { PipelineOrder } from '../domain/pipeline/pipeline-order.ts'
import { startOrderJob } from '../domain/pipeline/start-order.ts'
import { type OrderedItem, quoteMismatches, type StoredQuote } from '../domain/quote-lock.ts'
import { merchantRouting, operatorRouting, type RoutingAmounts, type RoutingRound } from '../domain/routing.ts'
import {
  parseSandboxScenario,
  SANDBOX_SCENARIO_HEADER,
  SANDBOX_SCENARIO_METADATA_KEY,
  SANDBOX_SCENARIOS,
  type SandboxScenario,
  scenarioInMetadata,
  scenarioProblem,
} from '../domain/sandbox-scenarios.ts'
import type { ShippingMethod, SizingMode } from '../domain/shipping-methods.ts'
import { readEnvironmentSettings } from '../repositories/accounts.repository.ts'
import { listLabAvailability } from '../repositories/lab-availability.repository.ts'
import {
  createOrderRow,
  findOrder,
  findOrderByIdempotencyKey,
  findOrderForCaller,
  listOrders,
  newOrderIdPlaceholders,
  type OrderListFilter,
  type OrderScope,
  QuoteAlreadyClaimed,
  type StoredOrder,
} from '../repositories/orders.repository.ts'
import { findQuote } from '../repositories/quotes.repository.ts'
import type { Caller } from './accounts.service.ts'
import { noMetrics, type ServiceLogger, type ServiceMetrics, silentLogger } from './observability.ts'
import { refuseUnknownSampleUrl, type UnknownSampleUrlCheck } from './own-samples.ts'
import type { LabQualityGate } from './pipeline/lab-room.ts'

/** A create-order request as the schema lets it through (enumerations already in canonical spelling). */
export interface CreateOrderInput {
  merchantReference?: string | null
  shippingMethod: ShippingMethod
  idempotencyKey?: string | null
  callbackUrl?: string | null
  recipient: {
    name: string
    email?: string | null
    phoneNumber?: string | null
    address: CheckedAddress
  }
  branding?: NewOrder['branding'] | null
  items: {
    merchantReference?: string | null
    sku: string
    copies: number
    sizing: SizingMode
    recipientCost?: { amount: string; currency: string } | null
    attributes?: Record<string, string> | null
    assets: { printArea?: string; url: string; md5Hash?: string | null; pageCount?: number | null }[]
  }[]
  packingSlip?: { url: string } | null
  metadata?: Record<string, unknown> | null
  quoteId?: string | null
  /** "YYYY-MM-DD": every shipment must arrive by then (docs/api.md#delivery-estimates). */
  deliverBy?: string | null
  /** True: an address that breaks its country's rules is accepted as sent, without issue (docs/addresses.md). */
  acceptUnverifiedAddress?: boolean | null
  /** The incoterm and customs numbers (docs/api.md#customs-and-duties); omitted: DAP. */
  customs?: OrderCustoms | null
  /** True: the order is created as a draft, not started until confirmed (docs/api.md#drafts-and-holds). */
  draft?: boolean | null
  /** The per-order hold's end (ISO date-time, after now, at most MAX_HOLD_DAYS ahead). */
  holdUntil?: string | null
}

/** GET /orders/{id}/routing: how the order's items were (or would now be) allocated to labs. */
export interface OrderRouting {
  orderId: string
  quoteId: string | null
  destinationCountryCode: string
  currency: string
  allocations: RoutingRound[]
  /** What the money figures are (docs/api.md#routing): the merchant's selling prices where a price list applies. */
  amounts: RoutingAmounts
  /** With `SellingPrices`: the list the figures come from. */
  priceList?: string
}

/** Who reads a routing: the merchant sees what it pays, the operator's console the labs' costs. */
export type RoutingReader = 'merchant' | 'operator'

/**
 * Orders leave the service as their stored JSON text (keys in contract order), which the HTTP layer
 * places in its envelope as is: reading an order costs no parse and no re-serialisation.
 */
export type CreateOrderResult =
  // orderId: the document's id, for a caller that needs only it (a CSV import) without parsing the document.
  | { outcome: 'Created' | 'CreatedWithIssues' | 'AlreadyExists'; orderJson: string; orderId: string }
  | { outcome: 'OnHold' | 'AlreadyExists'; onHold: { id: string; until: Date } }

const STAGE_OF_STATUS_FILTER: Partial<Record<OrderListStatus, Stage>> = {
  inProgress: 'InProgress',
  complete: 'Complete',
  cancelled: 'Cancelled',
}

export interface ListOrdersInput {
  top: number
  skip: number
  createdFrom: Date | null
  createdTo: Date | null
  status: OrderListStatus | null
  orderIds: string[] | null
  merchantReferences: string[] | null
  /** An order id (`ord_123` or `123`, exact) or part of a merchant reference; blank: no filter. */
  search: string | null
}

/** The search of the orders list: the order it names, if it is an order id, and the reference text. */
function searchFilter(search: string | null): OrderListFilter['search'] {
  const text = search?.trim() ?? ''
  if (text === '') return null
  const number = parseIdOrNumber('ord', text)
  return { orderNumber: number !== undefined && number > 0 ? number : null, referenceContains: text }
}

/**
 * The scenario a Sandbox create request names (docs/sandbox.md): the header's, else `metadata.sandboxScenario`'s
 * (null there: explicitly none, the account's default included); undefined when it names none. Both are checked;
 * a problem is added to `failures` under the field that carries it.
 */
function requestedScenario(
  input: CreateOrderInput,
  header: string | undefined,
  failures: Failures,
): SandboxScenario | null | undefined {
  const check = (path: string, value: unknown): SandboxScenario | undefined => {
    const scenario = parseSandboxScenario(value)
    if (!scenario) {
      addFailure(failures, path, { code: 'InvalidValue', providedValue: value, validValues: [...SANDBOX_SCENARIOS] })
      return undefined
    }
    const problem = scenarioProblem(scenario, input.items.length)
    if (problem) addFailure(failures, path, { code: 'InvalidValue', providedValue: value, comparisonValue: problem })
    return scenario
  }
  const inMetadata = scenarioInMetadata(input.metadata)
  const fromMetadata =
    inMetadata === undefined || inMetadata === null
      ? inMetadata
      : check(`metadata.${SANDBOX_SCENARIO_METADATA_KEY}`, inMetadata)
  if (header !== undefined) return check(SANDBOX_SCENARIO_HEADER, header)
  return fromMetadata
}

function scopeOf(caller: Caller): OrderScope {
  return { accountId: caller.accountId, environment: caller.environment }
}

function nullIfAbsent<T>(value: T | null | undefined): T | null {
  return value === undefined ? null : value
}

/** A recipient as sent (create order, updateRecipient) in the order's form: nulls for absent fields. */
export function recipientFromRequest(recipient: CreateOrderInput['recipient']): Recipient {
  return {
    name: recipient.name,
    email: nullIfAbsent(recipient.email),
    phoneNumber: nullIfAbsent(recipient.phoneNumber),
    address: {
      line1: recipient.address.line1,
      line2: nullIfAbsent(recipient.address.line2),
      postalOrZipCode: recipient.address.postalOrZipCode,
      countryCode: recipient.address.countryCode.toUpperCase(),
      townOrCity: recipient.address.townOrCity,
      stateOrCounty: nullIfAbsent(recipient.address.stateOrCounty),
    },
  }
}

/** Turns the file tokens of a stored order into links valid from now (domain/signed-urls.ts). */
export interface FileLinkRefresher {
  refresh(json: string): string
}

/** Orders as the merchant's API sees them: create, read, list, and how they were routed. */
export interface OrdersService {
  /**
   * Creates the order (checked against the catalogue, idempotent by key) with the job starting its fulfilment.
   * `traceId`: the creating request's, for the pipeline's log lines; `scenarioHeader`: its X-Sandbox-Scenario.
   */
  createOrder(
    caller: Caller,
    input: CreateOrderInput,
    traceId?: string,
    scenarioHeader?: string,
  ): Promise<CreateOrderResult>
  /**
   * "Create an order as a draft": createOrder with `draft: true` (docs/api.md#drafts-and-holds). Checked, priced and
   * stored like any order (the same ValidationFailed), answered Created (or AlreadyExists for its idempotencyKey),
   * but not started until the merchant confirms it; cancelled after DRAFT_LIFETIME_DAYS unless confirmed. What an
   * import or a storefront channel calls when the merchant chose manual approval.
   */
  createDraftOrder(caller: Caller, input: CreateOrderInput, traceId?: string): Promise<CreateOrderResult>
  /** The caller's order as JSON text with fresh file links; EntityNotFound while it is in its pause window. */
  getOrder(caller: Caller, orderId: string): Promise<string>
  /** How the order's items were allocated to labs; before the first allocation, what allocating now would do. */
  orderRouting(caller: Caller, orderId: string, reader?: RoutingReader): Promise<OrderRouting>
  /** One page of the caller's orders as JSON texts, newest first. */
  listOrders(caller: Caller, input: ListOrdersInput): Promise<{ ordersJson: string[]; hasMore: boolean }>
}

/** What the orders service is built from. */
export interface OrdersDeps {
  db: Database
  catalogue: Catalogue
  clock: Clock
  jobs: JobEnqueuer
  fileLinks: FileLinkRefresher
  log?: ServiceLogger
  metrics?: ServiceMetrics
  /** Recognises URLs under printroute's own /samples/ naming no sample; none recognised when absent. */
  unknownSampleUrl?: UnknownSampleUrlCheck
  /** The labs' quality rates: a Live order's routing leaves out the labs above their threshold; none when absent. */
  labQuality?: LabQualityGate
}

/** The dependencies with their defaults filled in: what each of the service's functions is given. */
interface OrdersContext extends OrdersDeps {
  log: ServiceLogger
  metrics: ServiceMetrics
}

/**
 * Checks the request against the catalogue and returns it in canonical spelling with the Sandbox scenario it
 * names (undefined: none named; always undefined on Live, which ignores scenarios), or throws ValidationFailed.
 */
function toNewOrder(
  context: OrdersContext,
  input: CreateOrderInput,
  environment: Caller['environment'],
  scenarioHeader: string | undefined,
): { newOrder: NewOrder; scenario: SandboxScenario | null | undefined } {
  const { catalogue } = context
  const countryCode = input.recipient.address.countryCode.toUpperCase()
  const matched = matchOrderItems(catalogue, {
    destinationCountryCode: countryCode,
    shippingMethod: input.shippingMethod,
    items: input.items.map((item) => ({
      sku: item.sku,
      copies: item.copies,
      attributes: item.attributes ?? {},
      assets: item.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount ?? null })),
    })),
  })
  const failures: Failures = matched.failures
  const scenario = environment === 'sandbox' ? requestedScenario(input, scenarioHeader, failures) : undefined
  if (input.metadata && metadataLength(input.metadata) > METADATA_MAX_CHARACTERS) {
    addFailure(failures, 'metadata', {
      code: 'TooLong',
      providedValue: metadataLength(input.metadata),
      comparisonValue: METADATA_MAX_CHARACTERS,
    })
  }
  input.items.forEach((item, index) => {
    item.assets.forEach((asset, assetIndex) => {
      refuseUnknownSampleUrl(context.unknownSampleUrl, failures, `items[${index}].assets[${assetIndex}].url`, asset.url)
    })
    if (item.recipientCost && normaliseAmount(item.recipientCost.amount) === undefined) {
      addFailure(failures, `items[${index}].recipientCost.amount`, {
        code: 'InvalidFormat',
        providedValue: item.recipientCost.amount,
      })
    }
    // The declared value goes on a customs declaration and into duties: in a currency printroute can convert.
    if (item.recipientCost && !catalogue.isKnownCurrency(item.recipientCost.currency)) {
      addFailure(failures, `items[${index}].recipientCost.currency`, {
        code: 'UnknownCurrency',
        providedValue: item.recipientCost.currency,
        validValues: [...catalogue.currencies],
      })
    }
  })
  checkCustoms(input.customs, countryCode, failures)
  if (input.packingSlip) {
    refuseUnknownSampleUrl(context.unknownSampleUrl, failures, 'packingSlip.url', input.packingSlip.url)
  }
  // The schema checks the shape; a date that does not exist (2026-02-30) is refused here. Whether the date is past
  // or reachable depends on the time and is checked once a retry of an existing order has been answered.
  if (input.deliverBy && !isIsoDate(input.deliverBy)) {
    addFailure(failures, 'deliverBy', {
      code: 'InvalidFormat',
      providedValue: input.deliverBy,
      comparisonValue: 'date',
    })
  }
  for (const [key, branded] of Object.entries(input.branding ?? {})) {
    if (branded) refuseUnknownSampleUrl(context.unknownSampleUrl, failures, `branding.${key}.url`, branded.url)
  }
  if (hasFailures(failures)) throw catalogueValidationFailed(catalogue, failures)

  const newOrder: NewOrder = {
    merchantReference: nullIfAbsent(input.merchantReference),
    shippingMethod: input.shippingMethod,
    idempotencyKey: nullIfAbsent(input.idempotencyKey),
    callbackUrl: nullIfAbsent(input.callbackUrl),
    recipient: recipientFromRequest(input.recipient),
    branding: nullIfAbsent(input.branding),
    packingSlip: nullIfAbsent(input.packingSlip),
    metadata: nullIfAbsent(input.metadata),
    quoteId: nullIfAbsent(input.quoteId),
    deliverBy: nullIfAbsent(input.deliverBy),
    customs: input.customs ? orderCustoms(input.customs) : null,
    items: input.items.map((item, itemIndex) => {
      const match = matched.items[itemIndex]
      if (!match) throw new Error(`catalogue matching returned no item ${itemIndex}`)
      return {
        merchantReference: nullIfAbsent(item.merchantReference),
        sku: match.sku,
        copies: item.copies,
        sizing: item.sizing,
        recipientCost: item.recipientCost
          ? {
              amount: normaliseAmount(item.recipientCost.amount) as string,
              currency: item.recipientCost.currency.toUpperCase(),
            }
          : null,
        attributes: match.attributes,
        assets: item.assets.map((asset, assetIndex) => ({
          printArea: match.assets[assetIndex]?.printArea ?? 'default',
          url: asset.url,
          md5Hash: asset.md5Hash ? asset.md5Hash.toLowerCase() : null,
          pageCount: nullIfAbsent(asset.pageCount),
        })),
      }
    }),
  }
  return { newOrder, scenario }
}

function existingOrderResult(context: OrdersContext, existing: StoredOrder, now: Date): CreateOrderResult {
  const { fileLinks } = context
  if (existing.onHoldUntil && existing.onHoldUntil > now) {
    return {
      outcome: 'AlreadyExists',
      onHold: { id: formatId('ord', existing.orderNumber), until: existing.onHoldUntil },
    }
  }
  return {
    outcome: 'AlreadyExists',
    orderJson: fileLinks.refresh(existing.documentJson),
    orderId: formatId('ord', existing.orderNumber),
  }
}

/**
 * The customs numbers against the destination (the schema has checked the incoterm and the lengths): an IOSS
 * number is an EU scheme, refused elsewhere, and has one form.
 */
function checkCustoms(customs: CreateOrderInput['customs'], countryCode: string, failures: Failures): void {
  const iossNumber = customs?.iossNumber
  if (iossNumber === undefined) return
  if (!isEuMemberState(countryCode)) {
    addFailure(failures, 'customs.iossNumber', {
      code: 'NotAvailableForDestination',
      providedValue: iossNumber,
      comparisonValue: countryCode,
    })
  } else if (!IOSS_NUMBER_PATTERN.test(iossNumber.toUpperCase())) {
    addFailure(failures, 'customs.iossNumber', {
      code: 'InvalidFormat',
      providedValue: iossNumber,
      comparisonValue: 'IM followed by 10 digits',
    })
  }
}

/** The order's `customs` with its keys in wire order, the IOSS number upper-cased. */
function orderCustoms(customs: OrderCustoms): OrderCustoms {
  return {
    incoterm: customs.incoterm,
    ...(customs.iossNumber === undefined ? {} : { iossNumber: customs.iossNumber.toUpperCase() }),
    ...(customs.eoriNumber === undefined ? {} : { eoriNumber: customs.eoriNumber }),
    ...(customs.recipientTaxId === undefined ? {} : { recipientTaxId: customs.recipientTaxId }),
  }
}

/**
 * The quote a new order names, checked against it (docs/api.md#price-locked-quotes): the caller's, unused, not
 * expired, same items, destination, method, currency and delivery date. Throws ValidationFailed naming what
 * differs, with the `failures` already found.
 */
async function quoteFor(
  context: OrdersContext,
  caller: Caller,
  order: NewOrder,
  now: Date,
  failuresSoFar: Failures,
): Promise<StoredQuote> {
  const { db, catalogue } = context
  const quoteId = order.quoteId ?? ''
  const number = parseId('quo', quoteId)
  const quote = number === undefined ? undefined : await findQuote(db, scopeOf(caller), number)
  if (!quote) {
    addFailure(failuresSoFar, 'quoteId', { code: 'QuoteNotFound', providedValue: quoteId })
    throw validationFailed(failuresSoFar)
  }
  const items = order.items.map((item): OrderedItem => {
    const index = pageCountAssetIndex(catalogue.findProduct(item.sku), item.assets)
    return { ...item, pageCount: item.assets[index]?.pageCount ?? null, pageCountAssetIndex: index }
  })
  const failures = quoteMismatches(quote, {
    items,
    destinationCountryCode: order.recipient.address.countryCode,
    shippingMethod: order.shippingMethod,
    currency: caller.billingCurrency,
    deliverBy: order.deliverBy ?? null,
    incoterm: order.customs?.incoterm ?? DEFAULT_INCOTERM,
    now,
  })
  for (const [path, list] of Object.entries(failuresSoFar)) {
    for (const failure of list) addFailure(failures, path, failure)
  }
  if (quote.usedByOrderId) {
    addFailure(failures, 'quoteId', {
      code: 'QuoteAlreadyUsed',
      providedValue: quote.id,
      comparisonValue: quote.usedByOrderId,
    })
  }
  if (hasFailures(failures)) throw validationFailed(failures)
  return quote
}

function quoteAlreadyUsed(quoteId: string, orderId: string | null): ServiceError {
  return validationFailed({
    quoteId: [{ code: 'QuoteAlreadyUsed', providedValue: quoteId, comparisonValue: orderId }],
  })
}

/**
 * `traceId`: of the creating request, handed to the pipeline so its log lines can be found by it.
 * `scenarioHeader`: the request's X-Sandbox-Scenario header, if any (docs/sandbox.md).
 */
async function createOrder(
  context: OrdersContext,
  caller: Caller,
  input: CreateOrderInput,
  traceId?: string,
  scenarioHeader?: string,
): Promise<CreateOrderResult> {
  const { db, clock, jobs, log, metrics } = context
  const { newOrder, scenario: requested } = toNewOrder(context, input, caller.environment, scenarioHeader)
  const scope = scopeOf(caller)
  // Fast path for retries: no IDs drawn when the key is already known.
  if (newOrder.idempotencyKey !== null) {
    const existing = await findOrderByIdempotencyKey(db, scope, newOrder.idempotencyKey)
    if (existing) return existingOrderResult(context, existing, clock.now())
  }
  const now = clock.now()
  // Checked after the idempotency lookup: a retry of an order that used the quote, or whose date has passed since,
  // answers that order.
  const failures: Failures = {}
  const dateProblem = newOrder.deliverBy ? deliverByFailure(newOrder.deliverBy, now) : undefined
  if (dateProblem) addFailure(failures, 'deliverBy', dateProblem)
  const holdProblem = input.holdUntil ? holdUntilFailure(input.holdUntil, now) : undefined
  if (holdProblem) addFailure(failures, 'holdUntil', holdProblem)
  const holdUntil = input.holdUntil && !holdProblem ? new Date(input.holdUntil) : null
  const draftExpiresAt = input.draft === true ? draftExpiry(now) : null
  if (holdUntil) newOrder.holdUntil = holdUntil.toISOString()
  if (draftExpiresAt) newOrder.draftExpiresAt = draftExpiresAt.toISOString()
  const addressCheck = await checkNewOrderAddress(context, caller, input, failures)
  const unverified = addressCheck.unverified
  const quote = newOrder.quoteId ? await quoteFor(context, caller, newOrder, now, failures) : null
  if (hasFailures(failures)) throw validationFailed(failures, undefined, addressCheck.refusalData ?? {})
  if (quote) newOrder.quoteId = quote.id
  const placeholders = newOrderIdPlaceholders(newOrder.items.length, countAssets(newOrder))
  const document = buildNewOrderDocument(newOrder, placeholders.ids, now)
  if (unverified) {
    document.status.issues.push(
      ...addressUnverifiedIssues(
        placeholders.ids.order,
        unverified.problems,
        input.recipient.address,
        unverified.suggested,
      ),
    )
  }
  setAddressAdvisories(document, addressCheck.advisories)
  // A draft is not in the pause window: the window applies when it is confirmed, as to an order created then.
  const onHoldUntil =
    caller.pauseWindowSeconds > 0 && !draftExpiresAt ? new Date(now.getTime() + caller.pauseWindowSeconds * 1000) : null
  // Its labs can first get the order when its pause window and its own hold end.
  const startsAt = latestOf(onHoldUntil, holdUntil)
  await refuseUnreachableDate(context, caller, document, requested, startsAt ?? now)
  // The order, its quote claim, its scenario and the job that starts its fulfilment (now, or when the pause
  // window or its hold ends; a draft's expiry instead) are written by one statement: they commit together, in one
  // round trip. The job's payload names the order by its placeholder, replaced with the drawn ID; so does its key,
  // whose random token makes the job's id unique to this order (it is enqueued once, by the statement that
  // creates the order).
  const firstJob = draftExpiresAt
    ? expireDraftJob(placeholders.ids.order, draftExpiresAt)
    : startOrderJob(placeholders.ids.order, startsAt, traceId)
  const startJob = await jobs.insertStatement([firstJob])
  let stored: Awaited<ReturnType<typeof createOrderRow>>
  try {
    stored = await createOrderRow(db, scope, {
      idempotencyKey: newOrder.idempotencyKey,
      merchantReference: newOrder.merchantReference,
      stage: document.status.stage,
      createdAt: now,
      onHoldUntil,
      placeholders,
      documentTemplate: JSON.stringify(document),
      quoteNumber: quote ? (parseId('quo', quote.id) as number) : null,
      sandboxScenario: requested,
      startJob,
      draftExpiresAt,
    })
  } catch (error) {
    // Another order took the quote since it was checked: this one is not created.
    if (error instanceof QuoteAlreadyClaimed && quote) {
      const holder = error.holderOrderNumber === null ? null : formatId('ord', error.holderOrderNumber)
      throw quoteAlreadyUsed(quote.id, holder)
    }
    throw error
  }
  if (!stored.inserted) return existingOrderResult(context, stored, now)
  const orderId = formatId('ord', stored.orderNumber)
  metrics.orderCreated(caller.environment)
  log.info(
    {
      orderId,
      ...(traceId ? { traceId } : {}),
      step: 'created',
      environment: caller.environment,
      items: newOrder.items.length,
      onHoldUntil: onHoldUntil?.toISOString() ?? null,
      ...(holdUntil ? { holdUntil: holdUntil.toISOString() } : {}),
      ...(draftExpiresAt ? { draft: true } : {}),
      ...(stored.sandboxScenario ? { sandboxScenario: stored.sandboxScenario } : {}),
    },
    `${draftExpiresAt ? 'draft ' : ''}order ${orderId} created (${caller.environment}, ${newOrder.items.length} item${newOrder.items.length === 1 ? '' : 's'})${onHoldUntil ? `, on hold until ${onHoldUntil.toISOString()}` : ''}${holdUntil ? `, held until ${holdUntil.toISOString()}` : ''}`,
  )
  if (onHoldUntil) return { outcome: 'OnHold', onHold: { id: formatId('ord', stored.orderNumber), until: onHoldUntil } }
  return { outcome: unverified ? 'CreatedWithIssues' : 'Created', orderJson: stored.documentJson, orderId }
}

/** The later of two instants, either of which may be absent. */
function latestOf(a: Date | null, b: Date | null): Date | null {
  if (!a) return b
  if (!b) return a
  return a > b ? a : b
}

/** What the address check of a new order or a new recipient found, in the mode of the caller's environment. */
interface AddressCheckResult {
  /** Problems that do not stop delivery, for the order's `addressAdvisories` (in every mode but `off`). */
  advisories: AddressAdvisory[]
  /** `warn`: the problems that stop delivery, for the order's AddressUnverified issues; absent when none. */
  unverified?: { problems: AddressProblem[]; suggested: NormalisedAddress }
  /** `refuse`: the refusal's `data` (the suggested address and every problem), its failures added by the caller. */
  refusalData?: Record<string, unknown>
}

/**
 * The new order's address check (docs/addresses.md#modes): nothing in the `off` mode of the caller's environment;
 * else the advisories, shown on the order whatever happens to the rest, and the problems that stop delivery: in
 * `refuse` mode added to `failures` (with `refusalData`), in `warn` mode returned for the order's AddressUnverified
 * issues. An order that accepts its address as sent (`acceptUnverifiedAddress`) has no blocking problem reported.
 */
async function checkNewOrderAddress(
  context: OrdersContext,
  caller: Caller,
  input: CreateOrderInput,
  failures: Failures,
): Promise<AddressCheckResult> {
  const checked = checkRecipientAddress(context.catalogue, input.recipient, input.shippingMethod)
  if (!checked || checked.problems.length === 0) return { advisories: [] }
  const settings = await readEnvironmentSettings(context.db, caller.accountId, caller.environment)
  const mode = parseAddressValidationMode(settings?.addressValidation)
  if (mode === 'off') return { advisories: [] }
  const { blocking, advisories } = splitAddressProblems(checked.problems)
  if (blocking.length === 0 || input.acceptUnverifiedAddress === true) return { advisories }
  if (mode === 'warn') return { advisories, unverified: { problems: blocking, suggested: checked.suggested } }
  const refused = addressProblemFailures(
    'recipient.address',
    'recipient.phoneNumber',
    blocking,
    { ...input.recipient.address, phoneNumber: input.recipient.phoneNumber ?? null },
    checked.suggested,
  )
  for (const [path, list] of Object.entries(refused)) {
    for (const failure of list) addFailure(failures, path, failure)
  }
  // The order is refused: nothing to report on it, but the answer carries the suggestion and every problem.
  return { advisories, refusalData: { suggestedAddress: checked.suggested, addressProblems: checked.problems } }
}

/**
 * The Sandbox scenario a new order will take: the one its request names, else (Sandbox) the account's default, as
 * the create statement reads it.
 */
async function effectiveScenario(
  context: OrdersContext,
  caller: Caller,
  requested: SandboxScenario | null | undefined,
): Promise<SandboxScenario | null> {
  if (requested !== undefined) return requested
  if (caller.environment !== 'sandbox') return null
  const settings = await readEnvironmentSettings(context.db, caller.accountId, caller.environment)
  return parseSandboxScenario(settings?.sandboxScenario) ?? null
}

/**
 * Throws ValidationFailed (DeliveryDateUnreachable on `deliverBy`, with the earliest date any plan reaches) when the
 * new order has a date no plan meets with its labs receiving it at `received`.
 */
async function refuseUnreachableDate(
  context: OrdersContext,
  caller: Caller,
  document: OrderDocument,
  requested: SandboxScenario | null | undefined,
  received: Date,
): Promise<void> {
  if (!document.deliverBy) return
  const scenario = await effectiveScenario(context, caller, requested)
  const reach = deliveryDateReach(context, document, scenario, caller.billingCurrency, received)
  if (!reach || reach.met) return
  const { date, earliestDeliveryDate } = reach
  throw validationFailed(
    { deliverBy: [{ code: 'DeliveryDateUnreachable', providedValue: date, comparisonValue: earliestDeliveryDate }] },
    earliestDeliveryDate === null
      ? `The order cannot be delivered by ${date}: some item has no delivery estimate by any lab`
      : `The order cannot be delivered by ${date}: the earliest any plan delivers is ${earliestDeliveryDate}`,
  )
}

/**
 * Whether a new order's `deliverBy` can be met: its allocation as the pipeline will make it (the first, in its
 * scenario) with the labs receiving it at `received`. Undefined when no allocation is possible at all (an item no
 * lab takes, as the outOfStock scenario makes it): that is the pipeline's to report, not the date's.
 */
function deliveryDateReach(
  context: OrdersContext,
  document: OrderDocument,
  scenario: SandboxScenario | null,
  currency: string,
  received: Date,
): DeliverByResult | undefined {
  const { catalogue } = context
  const deliverBy = document.deliverBy
  if (!deliverBy) return undefined
  const estimate = allocateInScenario(
    catalogue,
    (request: AllocationRequest) => allocateOrderItems(catalogue, request),
    scenario,
    true,
    {
      order: document,
      itemIds: document.items.map((item) => item.id),
      excludedLabsByItem: {},
      currency,
      promise: { received, deliverBy },
    },
  )
  return estimate.ok ? estimate.deliverBy : undefined
}

/** The order's JSON text. */
async function getOrder(context: OrdersContext, caller: Caller, orderId: string): Promise<string> {
  const { db, clock, fileLinks } = context
  const orderNumber = parseRequestId('ord', orderId, 'orderId')
  const stored = await findOrder(db, scopeOf(caller), orderNumber)
  if (!stored) throw new ServiceError('EntityNotFound', `Order ${orderId} was not found`)
  if (stored.onHoldUntil && stored.onHoldUntil > clock.now()) {
    const until = stored.onHoldUntil.toISOString()
    throw new ServiceError(
      'EntityNotFound',
      `Order ${formatId('ord', orderNumber)} is on hold in the account's pause window until ${until}; it can be read once the window expires`,
      { onHoldUntil: until },
    )
  }
  return fileLinks.refresh(stored.documentJson)
}

/**
 * How the order's items were allocated to labs, each allocation as it was made; before the first, what
 * allocating the order now would do (basis `Estimate`).
 */
async function orderRouting(
  context: OrdersContext,
  caller: Caller,
  orderId: string,
  reader: RoutingReader,
): Promise<OrderRouting> {
  const { db, catalogue, clock } = context
  const orderNumber = parseRequestId('ord', orderId, 'orderId')
  const order = await findOrderForCaller(db, scopeOf(caller), orderNumber)
  const now = clock.now()
  const visible = order && !(order.onHoldUntil && order.onHoldUntil > now)
  if (!visible) throw new ServiceError('EntityNotFound', `Order ${orderId} was not found`)
  const { document, pipeline } = order
  const currency = pipeline.billing?.currency ?? caller.billingCurrency
  let allocations = pipeline.routing ?? []
  if (allocations.length === 0) {
    // A Live order's allocation leaves out the labs that take no new work (docs/allocation.md#lab-availability).
    const unavailable =
      order.environment === 'live'
        ? unavailableLabs(
            catalogue,
            await listLabAvailability(db),
            now,
            (await context.labQuality?.labsBelowThreshold()) ?? [],
          )
        : {}
    // As the pipeline would allocate it, Sandbox scenario included (an outOfStock order finds no lab).
    const estimate = allocateInScenario(
      catalogue,
      (request: AllocationRequest) => allocateOrderItems(catalogue, request),
      order.sandboxScenario,
      pipeline.billing === undefined,
      {
        order: document,
        itemIds: document.items.map((item) => item.id),
        excludedLabsByItem: pipeline.excludedLabs,
        ...(pipeline.exclusionReasons ? { exclusionReasons: pipeline.exclusionReasons } : {}),
        unavailableLabs: unavailable,
        currency,
        // The list the order is (or would now be) charged on (docs/billing.md#price-lists).
        priceList: pipeline.billing ? (pipeline.billing.priceList ?? null) : (caller.priceList ?? null),
        explain: { basis: 'Estimate', at: now },
        // As the pipeline would: the labs receive it now, for the order's date when it has one.
        promise: { received: now, ...(document.deliverBy ? { deliverBy: document.deliverBy } : {}) },
      },
    )
    allocations = estimate.routing ? [estimate.routing] : []
  }
  return {
    orderId: document.id,
    quoteId: document.quoteId ?? null,
    destinationCountryCode: document.recipient.address.countryCode,
    currency,
    ...(reader === 'operator' ? operatorRouting(allocations) : merchantRouting(allocations)),
  }
}

/** One page of orders as JSON texts, newest first. */
async function listCallersOrders(
  context: OrdersContext,
  caller: Caller,
  input: ListOrdersInput,
): Promise<{ ordersJson: string[]; hasMore: boolean }> {
  const { db, clock, fileLinks } = context
  const failures: Failures = {}
  const orderNumbers = input.orderIds?.map((id, index) => {
    const number = parseId('ord', id)
    if (number === undefined) addFailure(failures, `orderIds[${index}]`, invalidIdFailure('ord', id))
    return number ?? 0
  })
  if (input.createdFrom && input.createdTo && input.createdFrom > input.createdTo) {
    addFailure(failures, 'createdTo', {
      code: 'MustBeGreaterThanOrEqualTo',
      providedValue: input.createdTo.toISOString(),
      comparisonValue: input.createdFrom.toISOString(),
    })
  }
  if (hasFailures(failures)) throw validationFailed(failures)
  const page = await listOrders(db, scopeOf(caller), {
    visibleAt: clock.now(),
    createdFrom: input.createdFrom,
    createdTo: input.createdTo,
    stage: (input.status && STAGE_OF_STATUS_FILTER[input.status]) ?? null,
    awaitingPayment: input.status === 'awaitingPayment',
    draftsOnly: input.status === 'draft',
    orderNumbers: orderNumbers ?? null,
    merchantReferences: input.merchantReferences,
    search: searchFilter(input.search),
    skip: input.skip,
    top: input.top,
  })
  return { ordersJson: page.ordersJson.map((json) => fileLinks.refresh(json)), hasMore: page.hasMore }
}

export function createOrdersService(deps: OrdersDeps): OrdersService {
  const context: OrdersContext = { ...deps, log: deps.log ?? silentLogger, metrics: deps.metrics ?? noMetrics }
  return {
    createOrder: (caller, input, traceId, scenarioHeader) =>
      createOrder(context, caller, input, traceId, scenarioHeader),
    createDraftOrder: (caller, input, traceId) => createOrder(context, caller, { ...input, draft: true }, traceId),
    getOrder: (caller, orderId) => getOrder(context, caller, orderId),
    orderRouting: (caller, orderId, reader = 'merchant') => orderRouting(context, caller, orderId, reader),
    listOrders: (caller, input) => listCallersOrders(context, caller, input),
  }
}

/** The caller's own order, or EntityNotFound (another account's or environment's order does not exist). */
export async function findCallersOrder(db: Queryable, caller: Caller, orderId: string): Promise<PipelineOrder> {
  const order = await findOrderForCaller(db, caller, parseRequestId('ord', orderId, 'orderId'))
  if (!order) throw orderNotFound(orderId)
  return order
}

export function orderNotFound(orderId: string): ServiceError {
  return new ServiceError('EntityNotFound', `Order ${orderId} was not found`)
}
