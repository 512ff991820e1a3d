// The fulfilment pipeline: one function per step, each run by a job. Slow work (downloads, rendering)
// happens outside any transaction; its result is then applied to the order by a pure transition from
// domain/order-pipeline.ts inside one transaction that locks the order row, saves it and enqueues the jobs
// the change causes. Every step is idempotent, so a job re-run after a crash converges.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import type { SimulatedLabSettings } from '../adapters/simulated-labs.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { PrintFileFormat } from '../domain/catalogue.types.ts'
import { pricedPageCount } from '../domain/catalogue-matching.ts'
import { followReallocatedItems, linesOfShipments } from '../domain/charges.ts'
import type { Environment } from '../domain/environment.ts'
import { parseId } from '../domain/ids.ts'
import type { JobRequest } from '../domain/jobs.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import {
  applyAllocation,
  DOWNLOAD_MAX_ATTEMPTS,
  isAwaitingPayment,
  itemsAwaitingAllocation,
  type LabReport,
  type PipelineOrder,
  type PipelineState,
  type PrintFile,
  type PrintFileGeometry,
  printFileFormatOf,
  recordDownloadFailure,
  recordDownloadSuccess,
  recordLabReport,
  recordPrintFile,
  recordPrintFileFailure,
  recordSubmitted,
  type StoredFile,
  startOrderJob,
  startPipeline,
  type Transition,
} from '../domain/order-pipeline.ts'
import type { PricedShipment } from '../domain/pricing.ts'
import { lockedPrices, type StoredQuote } from '../domain/quote-lock.ts'
import { checkResolution } from '../domain/resolution.ts'
import {
  downloadRetryBaseSecondsOf,
  type SandboxScenario,
  simulatedDownloadFailure,
} from '../domain/sandbox-scenarios.ts'
import type { SizingMode } from '../domain/shipping-methods.ts'
import { upsertLabJob } from '../repositories/lab-jobs.repository.ts'
import { drawShipmentIds, readOrder } from '../repositories/orders.repository.ts'
import { findQuoteOfOrder } from '../repositories/quotes.repository.ts'
import type { BillingService } from './billing.service.ts'
import {
  type LogFields,
  noMetrics,
  type PipelineStep,
  type ServiceLogger,
  type ServiceMetrics,
  secondsSince,
  silentLogger,
} from './observability.ts'
import {
  type AllocationOutcome,
  type AllocationRequest,
  allocateInScenario,
  type PlannedOrderShipment,
} from './order-allocation.ts'
import { type ChangedOrder, createOrderChanger } from './order-change.ts'
import type { OrderEventsService } from './order-events.service.ts'

// ---- The small interfaces this service needs from the outside world (adapters implement them) ----

export interface AssetFetcher {
  download(
    url: string,
    destinationPath: string,
    options: { expectedMd5?: string | null },
  ): Promise<{ bytes: number; md5: string; contentType: string }>
}

export interface FileStore {
  put(key: string, source: string | Buffer, contentType: string): Promise<void>
  get(key: string): Promise<Buffer>
  delete(key: string): Promise<void>
  listOlderThan(prefix: string, cutoff: Date): AsyncIterable<string>
}

/**
 * Kept copies of assets (and the print files made from them) are deleted after this many days
 * (specification, "Limits": image retention 30 days, then automatic deletion).
 */
export const ASSET_RETENTION_DAYS = 30
/**
 * What the retention job deletes: the customer's files and the full-resolution print files made from them.
 * Thumbnails and print-file previews stay: they are reduced images (at most 400 and 800 px) that orders keep
 * showing for as long as they are read, and nothing a lab could print from.
 */
const EXPIRING_PREFIXES = ['assets/', 'print-files/'] as const

export interface PrintFileRenderer {
  renderPrintFile(
    input: string | Buffer,
    spec: { width: number; height: number; sizing: SizingMode; format: PrintFileFormat },
  ): Promise<{ data: Buffer; width: number; height: number; format: string; preview: Buffer } & PrintFileGeometry>
  renderThumbnail(input: string | Buffer): Promise<Buffer>
  probe(input: string | Buffer): Promise<{ width: number; height: number }>
}

/** Runs `use` with a local file path of its own, removed once `use` settles (adapters/scratch-files.ts). */
export type ScratchFileProvider = <R>(use: (path: string) => Promise<R>) => Promise<R>

export type PdfChecker = (input: Buffer, expectedPageCount: number | null) => Promise<{ pageCount: number }>

export type Allocator = (request: AllocationRequest) => AllocationOutcome

/** What happens once a shipment is submitted to its lab: the jobs that follow, in the same transaction. */
export interface LabConnector {
  afterSubmit(order: PipelineOrder, shipmentId: string): JobRequest[]
}

/**
 * Links to the files printroute serves (domain/signed-urls.ts): a token for documents that are stored and
 * served later (thumbnails in the order), a link valid from now for what is handed out at once (lab jobs).
 */
export interface FileLinker {
  token(environment: Environment, key: string): string
  url(environment: Environment, key: string): string
}

/** The pipeline's settings, with those of the simulated labs it hands shipments to (one set of options). */
export interface PipelineSettings extends SimulatedLabSettings {
  /** Base delay of download retries (attempt n waits base x 2^(n-2)). */
  downloadRetryBaseSeconds: number
  /** Live orders use the simulated labs too (demos); Sandbox always does. */
  simulateLiveLabs: boolean
  /** Days the kept copies of assets are stored. */
  assetRetentionDays: number
}

export interface PipelineDeps {
  db: Database
  jobs: JobEnqueuer
  clock: Clock
  catalogue: Catalogue
  fetcher: AssetFetcher
  files: FileStore
  withScratchFile: ScratchFileProvider
  renderer: PrintFileRenderer
  checkPdf: PdfChecker
  allocate: Allocator
  billing: BillingService
  fileLinks: FileLinker
  settings: PipelineSettings
  /** Where Sandbox orders (and Live ones in a demo) are submitted: adapters/simulated-labs.ts. */
  simulatedLabs: LabConnector
  /** Writes the callbacks a change causes, in its transaction. */
  events: OrderEventsService
  /** One line per step outcome (docs/operations.md); silent when absent. */
  log?: ServiceLogger
  metrics?: ServiceMetrics
}

/** The fields every log line about an order carries: its id and the trace id of the request that created it. */
export function orderLogFields(order: { document: { id: string }; pipeline: PipelineState }): LogFields {
  return order.pipeline.traceId
    ? { orderId: order.document.id, traceId: order.pipeline.traceId }
    : { orderId: order.document.id }
}

/** What a planned shipment costs in all (items, shipping and their tax), in minor units. */
function shipmentTotal(shipment: PlannedOrderShipment): bigint {
  return shipment.price.items.reduce(
    (sum, item) => sum + item.cost + item.tax,
    shipment.price.cost + shipment.price.tax,
  )
}

const REPORT_WORDS: Record<LabReport['kind'], string> = {
  acknowledged: 'acknowledged',
  inProduction: 'in production',
  shipped: 'shipped',
  rejected: 'rejected',
}

function orderNumberOf(orderId: string): number {
  const number = parseId('ord', orderId)
  if (number === undefined) throw new Error(`not an order id: ${orderId}`)
  return number
}

export function assetBlobKey(orderId: string, fileKey: string): string {
  return `assets/${orderId}/${fileKey.replace(':', '-')}`
}

function previewBlobKey(orderId: string, shipmentId: string, assetId: string): string {
  return `previews/${orderId}/${shipmentId}/${assetId}.jpg`
}

export function createPipelineService(deps: PipelineDeps) {
  const { db, clock } = deps
  const log = deps.log ?? silentLogger
  const metrics = deps.metrics ?? noMetrics

  /** Runs a step and records how long it took (printroute_pipeline_step_duration_seconds). */
  function timedStep<A extends unknown[], R>(step: PipelineStep, run: (...args: A) => Promise<R>) {
    return async (...args: A): Promise<R> => {
      const started = performance.now()
      try {
        return await run(...args)
      } finally {
        metrics.pipelineStep(step, secondsSince(started))
      }
    }
  }

  /** An order as a transition left it, and what the transition returned. */
  type Applied = ChangedOrder<Transition>

  const orders = createOrderChanger(deps)

  /** The LowResolution message for an asset of the order whose image has this size; null when sharp enough. */
  function resolutionWarningOf(
    document: PipelineOrder['document'],
    assetId: string,
    source: { width: number; height: number },
  ): string | null {
    const item = document.items.find((candidate) => candidate.assets.some((asset) => asset.id === assetId))
    const asset = item?.assets.find((candidate) => candidate.id === assetId)
    const product = item && deps.catalogue.findProduct(item.sku)
    const target =
      item && asset && deps.catalogue.findVariant(item.sku, item.attributes)?.printAreaSizes[asset.printArea]
    if (!item || !asset || !product || !target) return null
    return (
      checkResolution({ product, printArea: asset.printArea, target, source, sizing: item.sizing }).warning?.message ??
      null
    )
  }

  /**
   * Changes the order (services/order-change.ts). Once committed, if the order changed, `logStep` writes the
   * step's line; then an order that has just completed or stopped says so, whichever step brought it there.
   */
  async function transition(
    orderNumber: number,
    change: (order: PipelineOrder, tx: Queryable) => Promise<Transition> | Transition,
    logStep?: (applied: Applied) => void,
  ): Promise<Applied | undefined> {
    const applied = await orders.change(orderNumber, change)
    if (!applied?.result.changed) return applied
    logStep?.(applied)
    const { order } = applied
    if (order.pipeline.phase === applied.before.phase) return applied
    if (order.pipeline.phase === 'complete') {
      log.info({ ...orderLogFields(order), step: 'complete' }, `order ${order.document.id} complete`)
    } else if (order.pipeline.phase === 'failed') {
      const failed = Object.entries(order.document.status.details)
        .filter(([, state]) => state === 'Error')
        .map(([detail]) => detail)
      log.warn(
        { ...orderLogFields(order), step: 'failed', details: failed },
        `order ${order.document.id} stopped: ${failed.join(', ') || 'a step'} failed (see its issues)`,
      )
    }
    return applied
  }

  /**
   * How a submitted shipment reaches its lab. Both connectors list it for the lab API (lab_jobs); the
   * simulated one also starts its timer-driven steps, which call the same report functions a real lab does.
   */
  const labApiConnector: LabConnector = { afterSubmit: () => [] }
  function labConnectorFor(environment: Environment): LabConnector {
    // Sandbox never fulfils for real; Live uses the simulated labs only when configured for a demo.
    return environment === 'sandbox' || deps.settings.simulateLiveLabs ? deps.simulatedLabs : labApiConnector
  }

  function logLabReport({ order }: Applied, shipmentId: string, report: LabReport): void {
    const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
    const onOrder = order.document.shipments.find((candidate) => candidate.id === shipmentId)
    const fields: LogFields = { ...orderLogFields(order), step: 'lab-report', labCode, shipmentId, report: report.kind }
    let message = `lab ${labCode} reports shipment ${shipmentId} ${REPORT_WORDS[report.kind]}`
    if (report.kind === 'shipped') {
      fields.carrier = onOrder?.carrier ?? null
      fields.trackingNumber = onOrder?.tracking?.number ?? null
      message += ` (${onOrder?.carrier.name ?? 'carrier unknown'}, tracking ${onOrder?.tracking?.number ?? 'none'})`
    } else if (report.kind === 'rejected') {
      fields.reason = report.reason
      fields.unavailableItemIds = report.unavailableItemIds
      message += `: ${report.reason}`
    }
    log.info(fields, message)
  }

  async function applyLabReport(
    orderId: string,
    shipmentId: string,
    report: LabReport,
    /** Jobs to enqueue with the change, in its transaction (a simulated lab's next step). */
    followUp: JobRequest[] = [],
  ): Promise<{ changed: boolean }> {
    let changed = false
    await transition(
      orderNumberOf(orderId),
      async (order, tx) => {
        const result = recordLabReport(order.document, order.pipeline, shipmentId, report, clock.now())
        changed = result.changed
        if (result.changed) {
          result.jobs.push(...followUp)
          await upsertLabJob(
            tx,
            {
              shipmentNumber: parseId('shp', shipmentId) ?? 0,
              orderNumber: order.orderNumber,
              labCode: order.pipeline.shipments[shipmentId]?.labCode ?? '',
              environment: order.environment,
              state: order.pipeline.shipments[shipmentId]?.state ?? 'submitted',
            },
            clock.now(),
          )
        }
        return result
      },
      (applied) => logLabReport(applied, shipmentId, report),
    )
    return { changed }
  }

  /** A lab's report on a shipment (the lab API and the simulated labs both end here). */
  const reportLab = timedStep('lab-report', applyLabReport)

  /** The allocation of an order's items, as its Sandbox scenario (docs/sandbox.md) bends it. */
  function allocateFor(
    scenario: SandboxScenario | null,
    firstAllocation: boolean,
    request: AllocationRequest,
  ): AllocationOutcome {
    return allocateInScenario(deps.catalogue, deps.allocate, scenario, firstAllocation, request)
  }

  /** The quote an order was created with (docs/api.md#price-locked-quotes); undefined for any other order. */
  async function quoteOfOrder(tx: Queryable, order: PipelineOrder): Promise<StoredQuote | undefined> {
    const quoteId = order.document.quoteId
    return quoteId ? findQuoteOfOrder(tx, parseId('quo', quoteId) ?? 0) : undefined
  }

  /**
   * What the first allocation charges: the catalogue's prices, or the quote's for an order created with one
   * (docs/api.md#price-locked-quotes). Such an order is billed in the quote's currency (see allocateOrder), so
   * the quote applies unless its items no longer match the order's.
   */
  function chargedPrices(
    order: PipelineOrder,
    quote: StoredQuote | undefined,
    catalogued: PricedShipment[],
  ): PricedShipment[] {
    const quoteId = order.document.quoteId
    if (!quoteId) return catalogued
    const items = order.document.items.map((item) => ({
      ...item,
      pageCount: pricedPageCount(deps.catalogue.findProduct(item.sku), item.assets),
    }))
    const locked =
      quote && quote.currency === order.pipeline.billing?.currency ? lockedPrices(quote, items, catalogued) : undefined
    if (locked) return locked
    log.warn(
      { ...orderLogFields(order), step: 'allocate', quoteId },
      `quote ${quoteId} no longer fits the order (${quote ? 'items' : 'not found'}): charged at catalogue prices`,
    )
    return catalogued
  }

  const steps = {
    /**
     * The order enters the pipeline (at creation, or when its pause window expires). `traceId`: of the request
     * that created it, kept with the order for the log lines of its background work.
     */
    async startOrder(orderId: string, traceId?: string): Promise<void> {
      await transition(
        orderNumberOf(orderId),
        (order) => {
          // The job runs by the database's clock; should it run before the window ends by this process's
          // clock (skew, or a window extended since), it is queued again for the end of the window.
          if (order.onHoldUntil && order.onHoldUntil > clock.now()) {
            const retry = startOrderJob(orderId, order.onHoldUntil, traceId)
            return { changed: false, jobs: [{ ...retry, key: `${retry.key}:${order.onHoldUntil.toISOString()}` }] }
          }
          const result = startPipeline(order.document, order.pipeline, clock.now())
          if (result.changed && traceId) order.pipeline.traceId = traceId
          return result
        },
        ({ order }) => {
          const files = Object.keys(order.pipeline.files).length
          log.info(
            { ...orderLogFields(order), step: 'start', files },
            `order ${orderId} started: ${files} file${files === 1 ? '' : 's'} to download`,
          )
        },
      )
    },

    async downloadFile(orderId: string, fileKey: string, attempt: number): Promise<void> {
      const orderNumber = orderNumberOf(orderId)
      const snapshot = await readOrder(db, orderNumber)
      const file = snapshot?.pipeline.files[fileKey]
      if (!snapshot || !file || file.status !== 'pending' || attempt <= file.failedAttempts) return
      const started = performance.now()
      let stored: StoredFile | undefined
      let thumbnailUrl: string | null = null
      let lowResolution: string | null = null
      let final = false
      // A Sandbox scenario can fail the attempt without any request (docs/sandbox.md).
      let failure: string | undefined =
        file.kind === 'asset' ? simulatedDownloadFailure(snapshot.sandboxScenario, file.url, attempt) : undefined
      await deps.withScratchFile(async (path) => {
        if (failure !== undefined) return
        try {
          const downloaded = await deps.fetcher.download(file.url, path, { expectedMd5: file.expectedMd5 })
          const blobKey = assetBlobKey(orderId, fileKey)
          await deps.files.put(blobKey, path, downloaded.contentType)
          stored = {
            blobKey,
            contentType: downloaded.contentType,
            bytes: downloaded.bytes,
            md5: downloaded.md5,
            width: null,
            height: null,
          }
          if (file.kind === 'asset' && downloaded.contentType !== 'application/pdf') {
            try {
              const thumbnailKey = `thumbnails/${orderId}/${fileKey}.jpg`
              await deps.files.put(thumbnailKey, await deps.renderer.renderThumbnail(path), 'image/jpeg')
              // Stored as a token: every read of the order turns it into a link valid from then.
              thumbnailUrl = deps.fileLinks.token(snapshot.environment, thumbnailKey)
              const { width, height } = await deps.renderer.probe(path)
              stored = { ...stored, width, height }
              lowResolution = resolutionWarningOf(snapshot.document, fileKey, { width, height })
            } catch (error) {
              // An image that cannot even be thumbnailed is refused now, as a failed attempt: it will not print.
              stored = undefined
              failure = `the file is not a readable image (${(error as Error).message})`
            }
          }
        } catch (error) {
          failure = (error as Error).message
          // A URL under printroute's own /samples/ naming no sample will not appear by waiting.
          final = (error as { code?: unknown }).code === 'UnknownSample'
        }
      })
      const ms = Math.round(performance.now() - started)
      metrics.assetDownload(stored ? 'ok' : 'failed')
      const now = clock.now()
      const logDownload = ({ order, result }: Applied) => {
        const fields = {
          ...orderLogFields(order),
          step: 'download',
          fileKey,
          url: file.url,
          attempt,
          maxAttempts: DOWNLOAD_MAX_ATTEMPTS,
          ms,
        }
        const what = `${file.kind === 'asset' ? 'asset ' : ''}${fileKey}`
        const ofAttempts = `attempt ${attempt}/${DOWNLOAD_MAX_ATTEMPTS}`
        if (stored) {
          log.info(
            { ...fields, result: 'ok', bytes: stored.bytes, contentType: stored.contentType },
            `downloaded ${what}: ${stored.bytes} bytes ${stored.contentType} in ${ms} ms (${ofAttempts})`,
          )
          return
        }
        const retry = result.jobs.find((job) => job.name === 'download-file')?.startAfter
        const line = { ...fields, result: 'failed', error: failure, nextAttemptAt: retry?.toISOString() ?? null }
        const message = `download of ${what} failed (${ofAttempts}): ${failure}; ${retry ? `next attempt at ${retry.toISOString()}` : 'gave up'}`
        if (retry) log.info(line, message)
        else log.warn(line, message)
      }
      await transition(
        orderNumber,
        (order) =>
          stored
            ? recordDownloadSuccess(order.document, order.pipeline, fileKey, stored, thumbnailUrl, now, lowResolution)
            : recordDownloadFailure(
                order.document,
                order.pipeline,
                fileKey,
                attempt,
                failure ?? 'unknown error',
                downloadRetryBaseSecondsOf(order.sandboxScenario, deps.settings.downloadRetryBaseSeconds),
                now,
                { final },
              ),
        logDownload,
      )
    },

    /**
     * Allocates the order's unallocated items to labs. The first allocation is where the order enters
     * fulfilment: it is charged then (prepaid orders the balance cannot cover wait for payment before any lab
     * gets them). A later allocation (a lab rejected a shipment) keeps the agreed price.
     */
    async allocateOrder(orderId: string, round: number): Promise<void> {
      let planned: (PlannedOrderShipment & { id: string })[] = []
      let unavailableItemIds: string[] = []
      const allocate = async (order: PipelineOrder, tx: Queryable): Promise<Transition> => {
        const { document, pipeline } = order
        if (pipeline.phase !== 'allocating' || pipeline.allocationRound !== round) return { changed: false, jobs: [] }
        const firstAllocation = pipeline.billing === undefined
        // An order created with a quote was accepted on the quote's terms, its currency included: it is billed
        // in that currency even if the account's billing currency changed since (say in its pause window).
        const quote = firstAllocation ? await quoteOfOrder(tx, order) : undefined
        const billing = await deps.billing.startBilling(tx, order, quote?.currency)
        const itemIds = itemsAwaitingAllocation(document, pipeline).map((item) => item.id)
        const result = allocateFor(order.sandboxScenario, firstAllocation, {
          order: document,
          itemIds,
          excludedLabsByItem: pipeline.excludedLabs,
          ...(pipeline.exclusionReasons ? { exclusionReasons: pipeline.exclusionReasons } : {}),
          currency: billing.currency,
          explain: { basis: 'Allocation', at: clock.now() },
        })
        if (result.routing) pipeline.routing = [...(pipeline.routing ?? []), result.routing]
        if (!result.ok) {
          if (firstAllocation) delete pipeline.billing
          unavailableItemIds = result.unavailableItemIds
          return applyAllocation(document, pipeline, round, [], result.unavailableItemIds, clock.now())
        }
        const ids = await drawShipmentIds(tx, result.shipments.length)
        const shipments = result.shipments.map((shipment, index) => ({ ...shipment, id: ids[index] as string }))
        planned = shipments
        const applied = applyAllocation(document, pipeline, round, shipments, [], clock.now())
        if (firstAllocation) {
          const prices = chargedPrices(
            order,
            quote,
            shipments.map((shipment) => shipment.price),
          )
          const target = linesOfShipments(prices, ids)
          applied.jobs.push(...(await deps.billing.chargeDifference(tx, order, target, true)))
        } else {
          const newShipmentOfItem = new Map(
            shipments.flatMap((shipment) => shipment.itemIds.map((itemId) => [itemId, shipment.id] as const)),
          )
          followReallocatedItems(billing, newShipmentOfItem)
        }
        return applied
      }
      const logAllocation = ({ order }: Applied) => {
        const fields = { ...orderLogFields(order), step: 'allocate', round }
        if (unavailableItemIds.length > 0) {
          log.warn(
            { ...fields, result: 'unavailable', unavailableItemIds },
            `allocation found no lab for ${unavailableItemIds.join(', ')}`,
          )
          return
        }
        const currency = order.pipeline.billing?.currency ?? ''
        const cost = formatMinorAsAmount(planned.reduce((sum, shipment) => sum + shipmentTotal(shipment), 0n))
        const shipments = planned.map((shipment) => ({
          shipmentId: shipment.id,
          labCode: shipment.labCode,
          itemIds: shipment.itemIds,
          cost: formatMinorAsAmount(shipmentTotal(shipment)),
        }))
        const labs = planned.map((shipment) => `${shipment.labCode} (${shipment.id})`).join(', ')
        const awaitingPayment = isAwaitingPayment(order.pipeline)
        log.info(
          { ...fields, result: 'allocated', shipments, cost, currency, awaitingPayment },
          `allocated to ${labs}; cost ${cost} ${currency}${awaitingPayment ? '; awaiting payment' : ''}`,
        )
      }
      await transition(orderNumberOf(orderId), allocate, logAllocation)
    },

    async renderPrintFile(orderId: string, shipmentId: string, assetId: string): Promise<void> {
      const orderNumber = orderNumberOf(orderId)
      const snapshot = await readOrder(db, orderNumber)
      const shipment = snapshot?.pipeline.shipments[shipmentId]
      if (!snapshot || !shipment || shipment.state !== 'allocated' || shipment.printFiles[assetId]) return
      const source = snapshot.pipeline.files[assetId]?.stored
      const item = snapshot.document.items.find((candidate) => candidate.assets.some((asset) => asset.id === assetId))
      const asset = item?.assets.find((candidate) => candidate.id === assetId)
      if (!source || !item || !asset) return
      const format = printFileFormatOf(shipment.formats[assetId], source.contentType)
      let printFile: PrintFile | undefined
      let bytes = 0
      let failure: string | undefined
      const started = performance.now()
      try {
        const input = await deps.files.get(source.blobKey)
        if (format === 'pdf') {
          // Books: the PDF is checked and passed through as it is.
          await deps.checkPdf(input, asset.pageCount)
          printFile = {
            blobKey: source.blobKey,
            width: 0,
            height: 0,
            format: 'pdf',
            previewBlobKey: null,
            geometry: null,
          }
          bytes = input.length
        } else {
          const variant = deps.catalogue.findVariant(item.sku, item.attributes)
          const size = variant?.printAreaSizes[asset.printArea]
          if (!size) throw new Error(`the catalogue has no print area ${asset.printArea} for ${item.sku}`)
          const rendered = await deps.renderer.renderPrintFile(input, {
            width: size.horizontalResolution,
            height: size.verticalResolution,
            sizing: item.sizing,
            format,
          })
          const blobKey = `print-files/${orderId}/${shipmentId}/${assetId}.${rendered.format === 'jpeg' ? 'jpg' : rendered.format}`
          await deps.files.put(blobKey, rendered.data, `image/${rendered.format}`)
          const preview = previewBlobKey(orderId, shipmentId, assetId)
          await deps.files.put(preview, rendered.preview, 'image/jpeg')
          printFile = {
            blobKey,
            width: rendered.width,
            height: rendered.height,
            format: rendered.format,
            previewBlobKey: preview,
            geometry: { source: rendered.source, plan: rendered.plan },
          }
          bytes = rendered.data.length
        }
      } catch (error) {
        failure = (error as Error).message
      }
      const ms = Math.round(performance.now() - started)
      const now = clock.now()
      const logRender = ({ order }: Applied) => {
        const fields = { ...orderLogFields(order), step: 'render', shipmentId, assetId, ms }
        if (!printFile) {
          log.warn({ ...fields, result: 'failed', error: failure }, `print file for ${assetId} failed: ${failure}`)
          return
        }
        const { format, width, height } = printFile
        const what = format === 'pdf' ? 'PDF checked' : `${width}x${height} ${format}`
        log.info(
          { ...fields, result: 'ok', format, width, height, bytes },
          `print file for ${assetId} in ${shipmentId}: ${what}, ${bytes} bytes in ${ms} ms`,
        )
      }
      await transition(
        orderNumber,
        (order) =>
          printFile
            ? recordPrintFile(order.document, order.pipeline, shipmentId, assetId, printFile, now)
            : recordPrintFileFailure(
                order.document,
                order.pipeline,
                shipmentId,
                assetId,
                failure ?? 'unknown error',
                now,
              ),
        logRender,
      )
    },

    /** Hands a shipment to its lab: the lab API lists it, or a simulated lab starts working on it. */
    async submitShipment(orderId: string, shipmentId: string): Promise<void> {
      const submit = async (order: PipelineOrder, tx: Queryable): Promise<Transition> => {
        const result = recordSubmitted(order.document, order.pipeline, shipmentId, clock.now())
        if (!result.changed) return result
        const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
        await upsertLabJob(
          tx,
          {
            shipmentNumber: parseId('shp', shipmentId) ?? 0,
            orderNumber: order.orderNumber,
            labCode,
            environment: order.environment,
            state: 'submitted',
          },
          clock.now(),
        )
        result.jobs.push(...labConnectorFor(order.environment).afterSubmit(order, shipmentId))
        return result
      }
      await transition(orderNumberOf(orderId), submit, ({ order }) => {
        const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
        const connector = labConnectorFor(order.environment) === labApiConnector ? 'lab API' : 'simulated'
        log.info(
          { ...orderLogFields(order), step: 'submit', shipmentId, labCode, connector },
          `shipment ${shipmentId} submitted to lab ${labCode} (${connector})`,
        )
      })
    },

    /** A lab's report on a shipment (the lab API and the simulated labs both end here). */
    reportLab,

    /** The order as it stands, unlocked (the simulated labs read their shipments from it). */
    orderOf(orderId: string): Promise<PipelineOrder | undefined> {
      return readOrder(db, orderNumberOf(orderId))
    },

    /** Deletes kept copies and print files older than the retention period; returns how many. */
    async expireStoredFiles(): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - deps.settings.assetRetentionDays * 86_400_000)
      let deleted = 0
      for (const prefix of EXPIRING_PREFIXES) {
        for await (const key of deps.files.listOlderThan(prefix, cutoff)) {
          await deps.files.delete(key)
          deleted += 1
        }
      }
      return deleted
    },

    /** Signed URLs of the kept copies of the packing slip and branding files, for the lab. */
    extraFileUrls(order: PipelineOrder): {
      packingSlip: { url: string } | null
      branding: Record<string, { url: string }> | null
    } {
      const urlOf = (fileKey: string) => {
        const stored = order.pipeline.files[fileKey]?.stored
        return stored ? { url: deps.fileLinks.url(order.environment, stored.blobKey) } : null
      }
      const branding: Record<string, { url: string }> = {}
      for (const fileKey of Object.keys(order.pipeline.files)) {
        if (!fileKey.startsWith('branding:')) continue
        const url = urlOf(fileKey)
        if (url) branding[fileKey.slice('branding:'.length)] = url
      }
      return { packingSlip: urlOf('packingSlip'), branding: Object.keys(branding).length > 0 ? branding : null }
    },

    /** Signs the print files of a shipment for its lab. */
    printFileUrls(order: PipelineOrder, shipmentId: string): { assetId: string; url: string; format: string }[] {
      const shipment = order.pipeline.shipments[shipmentId]
      if (!shipment) return []
      return Object.entries(shipment.printFiles).flatMap(([assetId, file]) =>
        file ? [{ assetId, url: deps.fileLinks.url(order.environment, file.blobKey), format: file.format }] : [],
      )
    },
  }

  // Each step's duration is recorded whatever its outcome (a re-run that finds its work done counts too).
  return {
    ...steps,
    startOrder: timedStep('start', steps.startOrder),
    downloadFile: timedStep('download', steps.downloadFile),
    allocateOrder: timedStep('allocate', steps.allocateOrder),
    renderPrintFile: timedStep('render', steps.renderPrintFile),
    submitShipment: timedStep('submit', steps.submitShipment),
  }
}

export type PipelineService = ReturnType<typeof createPipelineService>

/** A random secret for signing file URLs, generated once per installation. */
export function newSigningSecret(): string {
  return randomBytes(32).toString('base64url')
}
