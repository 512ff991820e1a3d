// What the operator console's orders, labs, callbacks and channels pages show (docs/admin.md), read across every
// account: views only (the console's actions are the operator's, services/operator/). The sections are declared once
// in domain/console-sections.ts (ConsoleOrders, ConsoleLabs' figures, ConsoleCallbacks, ConsoleChannels) with their
// views in domain/admin-views.ts; app/web.ts hands this service's parts to the pages (web/operator/). An order is read
// through the same services that answer its merchant's API calls, on behalf of the order's own account, so the
// console shows exactly what the merchant's order page shows.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { AdminLabRow, AdminOrderQuery, AdminOrderRow, FailingEndpointFacts } from '../domain/admin-views.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type {
  ConsoleCallbacks,
  ConsoleChannels,
  ConsoleLabs,
  ConsoleOrderDetail,
  ConsoleOrders,
} from '../domain/console-sections.ts'
import { formatId, parseId } from '../domain/ids.ts'
import { labDate } from '../domain/lab-availability.ts'
import type { LabQuality } from '../domain/lab-quality.ts'
import type { OrderDocument } from '../domain/order.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { WEBHOOK_ID_PREFIX } from '../domain/webhook-endpoints.ts'
import { findAccount } from '../repositories/accounts.repository.ts'
import { type FailingEndpointRow, listFailingEndpoints } from '../repositories/callback-deliveries.repository.ts'
import { listChannelsAcrossAccounts } from '../repositories/channels.repository.ts'
import { listLabAvailability } from '../repositories/lab-availability.repository.ts'
import { labWorkFigures, listLabJobs } from '../repositories/lab-jobs.repository.ts'
import { listOrdersOfAllAccounts, readOrder, readOrders } from '../repositories/orders.repository.ts'
import { listFailingWebhookEndpoints } from '../repositories/webhook-endpoints.repository.ts'
import type { Caller } from './accounts.service.ts'
import type { CallbacksService, CallbackView } from './callbacks.service.ts'
import type { InvoicesService, InvoiceView } from './invoices.service.ts'
import type { LabPushesService } from './labs/lab-pushes.service.ts'
import type { LabQualitySource } from './labs/lab-quality.service.ts'
import { OPEN_STATES, shipByOfShipment } from './labs/labs.service.ts'
import type { OrderRouting, OrdersService } from './orders.service.ts'
import type { OrderAssetPreflight, PreflightService } from './print-files/preflight.service.ts'
import type { PrintFilesService, PrintFileView } from './print-files.service.ts'
import type { QuoteRouting, QuotesService } from './quotes.service.ts'

/** The most events and callbacks an order's page lists (the API's largest page, as the merchant's page). */
const ORDER_LIST_LIMIT = 100
/** The rejection rate's window, in days (the labs page says so). */
const REJECTION_WINDOW_DAYS = 30
/** The most failing endpoints listed of each kind (the callbacks page says so). */
const FAILING_ENDPOINTS_LIMIT = 200
const DAY_MS = 86_400_000

// ---- orders -----------------------------------------------------------------------------------------------------

/** An order event as the events feed serves it (a CloudEvent carrying the order). */
export interface AdminOrderEvent {
  id: string
  type: string
  time: string
  data: { order: OrderDocument }
}

/** An order's page as the merchant's order page reads it through the API's services. */
export interface AdminOrderView {
  order: OrderDocument
  events: AdminOrderEvent[]
  callbacks: CallbackView[]
  printFiles: PrintFileView[]
  /** Each asset's preflight (GET /v4.0/orders/{id}/preflight). */
  preflight: OrderAssetPreflight[]
  routing: OrderRouting | null
  quoteRouting: {
    quoteId: string
    routing: (QuoteRouting & { orderId: null }) | null
    error: string | null
  } | null
  /** The order's invoices and credit notes (GET /v4.0/orders/{id}/invoices). */
  invoices: InvoiceView[]
}

export type AdminOrderDetailView = ConsoleOrderDetail<AdminOrderView>

/** The console's views across accounts: the orders section, the labs' figures and the callbacks health. */
export interface AdminViewsService {
  orders: ConsoleOrders<AdminOrderView>
  /** The labs' figures the labs page lists (its actions are the operator's, services/operator/labs.ts). */
  labs: Pick<ConsoleLabs, 'listLabs'>
  callbacks: ConsoleCallbacks
  channels: ConsoleChannels
}

export interface AdminViewsDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  orders: Pick<OrdersService, 'orderRouting'>
  callbacks: Pick<CallbacksService, 'listCallbacks' | 'listEvents'>
  printFiles: Pick<PrintFilesService, 'listPrintFiles'>
  preflight: Pick<PreflightService, 'orderPreflight' | 'assetThumbnail'>
  quotes: Pick<QuotesService, 'quoteRouting'>
  invoices: Pick<InvoicesService, 'listForOrder'>
  labPushes: Pick<LabPushesService, 'show'>
  /** The labs' quality rates, shown beside their work; none shown when absent. */
  labQuality?: Pick<LabQualitySource, 'all'>
  /** Makes an order document's file tokens into links, as the merchant's GET of the order does. */
  fileLinks: { refresh(json: string): string }
}

/** The search text's meaning: an order ID, an account ID, or part of a merchant reference. */
function searchFilter(search: string | null) {
  if (search === null) return { orderNumber: null, accountNumber: null, referenceContains: null }
  const orderNumber = parseId('ord', search)
  if (orderNumber !== undefined) return { orderNumber, accountNumber: null, referenceContains: null }
  const accountNumber = parseId('acc', search)
  if (accountNumber !== undefined) return { orderNumber: null, accountNumber, referenceContains: null }
  return { orderNumber: null, accountNumber: null, referenceContains: search }
}

async function listOrders(
  deps: AdminViewsDeps,
  query: AdminOrderQuery,
): Promise<{ orders: AdminOrderRow[]; hasMore: boolean }> {
  const status = query.status
  const { rows, hasMore } = await listOrdersOfAllAccounts(deps.db, {
    ...searchFilter(query.search),
    environment: query.environment,
    stage: status === 'InProgress' || status === 'Complete' || status === 'Cancelled' ? status : null,
    awaitingPayment: status === 'AwaitingPayment',
    onHoldAt: status === 'OnHold' ? deps.clock.now() : null,
    skip: query.skip,
    top: query.top,
  })
  const now = deps.clock.now()
  return {
    orders: rows.map((row) => ({
      orderId: formatId('ord', row.orderNumber),
      accountId: formatId('acc', row.accountNumber),
      accountName: row.accountName,
      environment: row.environment,
      stage: row.stage,
      merchantReference: row.merchantReference,
      created: row.createdAt.toISOString(),
      onHoldUntil: row.onHoldUntil && row.onHoldUntil > now ? row.onHoldUntil.toISOString() : null,
      awaitingPayment: row.awaitingPayment,
    })),
    hasMore,
  }
}

/**
 * A read the page can do without: the order itself was found, but the merchant's API refuses this part (an order
 * in its pause window is not found by it yet); the section then shows nothing. Any other error is an error.
 */
async function orEmpty<T>(read: Promise<T>, empty: T): Promise<T> {
  try {
    return await read
  } catch (error) {
    if (error instanceof ServiceError) return empty
    throw error
  }
}

/** The order's stored row, its account and a caller of that account (reads only); null when there is none. */
async function orderOwner(deps: AdminViewsDeps, orderId: string) {
  const orderNumber = parseId('ord', orderId)
  if (orderNumber === undefined) return null
  const stored = await readOrder(deps.db, orderNumber)
  if (!stored) return null
  const account = await findAccount(deps.db, stored.accountId)
  if (!account) return null
  // The order's own account reads it: the same services, scope and links as its merchant's page. An order in its
  // pause window is hidden from the merchant's reads until it ends; the console reads the document directly.
  const caller: Caller = {
    accountId: stored.accountId,
    environment: stored.environment,
    keyPrefix: '',
    // Reads only: nothing the console shows through this caller is recorded in the audit trail.
    via: 'key',
    pauseWindowSeconds: account.pauseWindowSeconds,
    billingCurrency: account.billingCurrency,
  }
  return { stored, account, caller }
}

/** A page thumbnail of an asset of any account's order, read as its merchant's caller; null when there is none. */
async function readAssetThumbnail(
  deps: AdminViewsDeps,
  orderId: string,
  assetId: string,
  page: number,
): Promise<Buffer | null> {
  const owner = await orderOwner(deps, orderId)
  if (!owner) return null
  return orEmpty<Buffer | null>(deps.preflight.assetThumbnail(owner.caller, orderId, assetId, page), null)
}

async function readAdminOrder(deps: AdminViewsDeps, orderId: string): Promise<AdminOrderDetailView | null> {
  const owner = await orderOwner(deps, orderId)
  if (!owner) return null
  const { stored, account, caller } = owner
  const order = JSON.parse(deps.fileLinks.refresh(JSON.stringify(stored.document))) as OrderDocument
  const [events, callbacks, printFiles, preflight, routing, invoices] = await Promise.all([
    orEmpty(
      deps.callbacks
        .listEvents(caller, { orderId, top: ORDER_LIST_LIMIT })
        .then((page) => page.events.map((event) => JSON.parse(event) as AdminOrderEvent)),
      [],
    ),
    orEmpty(
      deps.callbacks.listCallbacks(caller, { orderId, top: ORDER_LIST_LIMIT }).then((page) => page.callbacks),
      [],
    ),
    orEmpty(deps.printFiles.listPrintFiles(caller, orderId), []),
    orEmpty(deps.preflight.orderPreflight(caller, orderId), []),
    orEmpty<OrderRouting | null>(deps.orders.orderRouting(caller, orderId, 'operator'), null),
    orEmpty(deps.invoices.listForOrder(caller, orderId), []),
  ])
  const quoteId = order.quoteId
  let quoteRouting: AdminOrderView['quoteRouting'] = null
  if (quoteId) {
    try {
      // As GET /v4.0/quotes/{id}/routing answers it: a quote's routing names no order.
      const routing = await deps.quotes.quoteRouting(caller, quoteId, 'operator')
      quoteRouting = { quoteId, routing: { orderId: null, ...routing }, error: null }
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      quoteRouting = { quoteId, routing: null, error: error.message }
    }
  }
  const now = deps.clock.now()
  return {
    account: { id: formatId('acc', account.id), name: account.name },
    environment: stored.environment,
    onHoldUntil: stored.onHoldUntil && stored.onHoldUntil > now ? stored.onHoldUntil.toISOString() : null,
    view: { order, events, callbacks, printFiles, preflight, routing, quoteRouting, invoices },
  }
}

/** The Live jobs in flight per lab that are past their ship-by date in the lab's calendar. */
async function overdueJobsByLab(deps: AdminViewsDeps): Promise<Map<string, number>> {
  const now = deps.clock.now()
  const overdue = new Map<string, number>()
  for (const lab of deps.catalogue.labs) {
    const jobs = (await listLabJobs(deps.db, lab.code, OPEN_STATES)).filter((job) => job.environment === 'live')
    const today = labDate(lab, now)
    const orders = new Map(
      (await readOrders(deps.db, [...new Set(jobs.map((job) => job.orderNumber))])).map((order) => [
        order.orderNumber,
        order,
      ]),
    )
    let count = 0
    for (const job of jobs) {
      const order = orders.get(job.orderNumber)
      const shipBy = order ? shipByOfShipment(deps.catalogue, order, formatId('shp', job.shipmentNumber)) : undefined
      if (shipBy !== undefined && shipBy < today) count += 1
    }
    overdue.set(lab.code, count)
  }
  return overdue
}

function qualityOf(all: readonly LabQuality[], labCode: string): { quality?: LabQuality } {
  const quality = all.find((entry) => entry.labCode === labCode)
  return quality ? { quality } : {}
}

async function listLabs(deps: AdminViewsDeps): Promise<AdminLabRow[]> {
  const now = deps.clock.now()
  const [availability, figures, overdue, failingPushes, quality] = await Promise.all([
    listLabAvailability(deps.db),
    labWorkFigures(deps.db, {
      openStates: OPEN_STATES,
      windowStart: new Date(now.getTime() - REJECTION_WINDOW_DAYS * DAY_MS),
      shortWindowStart: new Date(now.getTime() - 7 * DAY_MS),
      longWindowStart: new Date(now.getTime() - 30 * DAY_MS),
    }),
    overdueJobsByLab(deps),
    listFailingEndpoints(deps.db, { labs: true, limit: FAILING_ENDPOINTS_LIMIT }),
    deps.labQuality?.all() ?? Promise.resolve([]),
  ])
  const labs: AdminLabRow[] = []
  for (const lab of deps.catalogue.labs) {
    const work = figures.find((entry) => entry.labCode === lab.code)
    const settings = await deps.labPushes.show(lab.code)
    const failing = failingPushes.find((entry) => entry.labCode === lab.code)
    const lastAttemptOk =
      settings.health.lastHttpStatus !== null &&
      settings.health.lastHttpStatus >= 200 &&
      settings.health.lastHttpStatus <= 299
    labs.push({
      code: lab.code,
      name: lab.name,
      countryCode: lab.countryCode,
      paused: availability.find((entry) => entry.labCode === lab.code)?.paused ?? false,
      push: settings.url
        ? {
            url: settings.url,
            lastDeliveredAt: failing
              ? (failing.lastSuccessAt?.toISOString() ?? null)
              : lastAttemptOk
                ? settings.health.lastAttemptAt
                : null,
            failingSince: failing ? failing.failingSince.toISOString() : null,
            lastError: failing ? endpointView(failing).lastError : null,
          }
        : null,
      lastReportAt: work?.lastReportAt?.toISOString() ?? null,
      jobsInFlight: work?.jobsInFlight ?? 0,
      overdueJobs: overdue.get(lab.code) ?? 0,
      rejections: { submitted: work?.submittedInWindow ?? 0, rejected: work?.rejectedInWindow ?? 0 },
      ...qualityOf(quality, lab.code),
      medianDispatchSeconds: {
        last7Days: work?.medianDispatchSecondsSinceShort ?? null,
        last30Days: work?.medianDispatchSecondsSinceLong ?? null,
      },
    })
  }
  return labs
}

function endpointView(row: FailingEndpointRow): FailingEndpointFacts {
  return {
    url: row.url,
    failingSince: row.failingSince.toISOString(),
    failedDeliveries: row.failedDeliveries,
    lastError: row.lastResponseSnippet ? `${row.lastError}: ${row.lastResponseSnippet}` : row.lastError,
    lastAttemptAt: row.lastAttemptAt.toISOString(),
    lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
  }
}

async function listFailing(deps: AdminViewsDeps): ReturnType<ConsoleCallbacks['listFailingEndpoints']> {
  const [merchants, labs, webhooks] = await Promise.all([
    listFailingEndpoints(deps.db, { labs: false, limit: FAILING_ENDPOINTS_LIMIT }),
    listFailingEndpoints(deps.db, { labs: true, limit: FAILING_ENDPOINTS_LIMIT }),
    listFailingWebhookEndpoints(deps.db, FAILING_ENDPOINTS_LIMIT),
  ])
  return {
    callbacks: merchants.map((row) => ({
      ...endpointView(row),
      accountId: formatId('acc', row.accountId ?? 0),
      accountName: row.accountName ?? '',
      environment: row.environment,
    })),
    labs: labs.map((row) => ({ ...endpointView(row), labCode: row.labCode ?? '' })),
    webhooks: webhooks.map((row) => ({
      accountId: formatId('acc', row.accountId),
      accountName: row.accountName,
      environment: row.environment,
      webhookId: formatId(WEBHOOK_ID_PREFIX, row.id),
      url: row.url,
      failingSince: row.failingSince?.toISOString() ?? null,
      disabledAt: row.disabledReason === 'failing' ? (row.disabledAt?.toISOString() ?? null) : null,
      lastError:
        row.lastError === null
          ? null
          : row.lastResponseSnippet
            ? `${row.lastError}: ${row.lastResponseSnippet}`
            : row.lastError,
      lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    })),
  }
}

export function createAdminViewsService(deps: AdminViewsDeps): AdminViewsService {
  return {
    orders: {
      listOrders: (query) => listOrders(deps, query),
      readOrder: (orderId) => readAdminOrder(deps, orderId),
      readAssetThumbnail: (orderId, assetId, page) => readAssetThumbnail(deps, orderId, assetId, page),
    },
    labs: {
      listLabs: () => listLabs(deps),
    },
    callbacks: {
      listFailingEndpoints: () => listFailing(deps),
    },
    channels: {
      async listChannels(query) {
        // An account filter that is no account's ID lists nothing (the page says it found none).
        const accountId = query.accountId === null ? null : (parseId('acc', query.accountId) ?? 0)
        const rows = await listChannelsAcrossAccounts(deps.db, { accountId, limit: query.limit })
        return rows.map((row) => ({
          channelId: formatId('chn', row.id),
          accountId: formatId('acc', row.accountId),
          accountName: row.accountName,
          environment: row.environment,
          type: row.type,
          store: row.store,
          name: row.name,
          status: row.status,
          statusReason: row.statusReason,
          notConnected: row.notConnected,
          failingFulfilments: row.failingFulfilments,
          lastOrderAt: row.lastOrderAt?.toISOString() ?? null,
        }))
      },
    },
  }
}
