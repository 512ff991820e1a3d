// The fulfilment pipeline: one step per job, each in a file of its own beside this one. Slow work (downloads,
// rendering) happens outside any transaction; its result is then applied to the order by a pure transition from
// domain/pipeline/ inside one transaction that locks the order row, saves it and enqueues the jobs the
// change causes (order-transition.ts). Every step is idempotent, so a job re-run after a crash converges. This
// file assembles the steps into the service the jobs, the lab API and the Sandbox call.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { JobEnqueuer } from '../../adapters/job-queue.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import type { BillingService } from '../billing.service.ts'
import {
  noMetrics,
  type PipelineStep,
  type ServiceLogger,
  type ServiceMetrics,
  secondsSince,
  silentLogger,
} from '../observability.ts'
import { createOrderChanger } from '../order-change.ts'
import type { OrderEventsService } from '../order-events.service.ts'
import { type AllocateOrder, createAllocateOrder } from './allocate-order.ts'
import { createDownloadFile, type DownloadFile } from './download-file.ts'
import { createExpireStoredFiles } from './expire-stored-files.ts'
import {
  type ExtraFileUrls,
  extraFileUrls,
  type PrintFileUrl,
  packingSlipPdfUrl,
  printFileUrls,
} from './lab-file-links.ts'
import { createReportLab, type ReportLab } from './lab-report.ts'
import { createLabRoom, type LabQualityGate } from './lab-room.ts'
import { createStepTransition, orderNumberOf } from './order-transition.ts'
import type {
  Allocator,
  AssetFetcher,
  AssetPreflight,
  FileLinker,
  FileStore,
  LabConnector,
  PackingSlipRenderer,
  PdfChecker,
  PdfColourConverter,
  PipelineSettings,
  PrintFileRenderer,
  ScratchFileProvider,
} from './ports.ts'
import { createRenderPrintFile, type RenderPrintFile } from './render-print-file.ts'
import { createStartOrder, type StartOrder } from './start-order.ts'
import { createSubmitShipment, type SubmitShipment } from './submit-shipment.ts'

export interface PipelineDeps {
  db: Database
  jobs: JobEnqueuer
  clock: Clock
  catalogue: Catalogue
  /**
   * The catalogue version an order's shipments were allocated with (docs/catalogue.md#switching): work on them
   * reads it, even when another version is active (its lab or product may be gone from the active one). The
   * served catalogue when absent.
   */
  catalogueOf?: (version: number | null) => Promise<Catalogue>
  fetcher: AssetFetcher
  files: FileStore
  withScratchFile: ScratchFileProvider
  renderer: PrintFileRenderer
  checkPdf: PdfChecker
  /** A CMYK lab's book PDFs converted to its colour (`--ghostscript`); passed through as they are when absent. */
  convertPdfColour?: PdfColourConverter | undefined
  renderPackingSlip: PackingSlipRenderer
  allocate: Allocator
  billing: BillingService
  fileLinks: FileLinker
  settings: PipelineSettings
  /** Where Sandbox orders (and Live ones in a demo) are submitted: simulated-labs.ts. */
  simulatedLabs: LabConnector
  /** Writes the callbacks a change causes, in its transaction. */
  events: OrderEventsService
  /** The labs' quality rates: Live allocation leaves out the labs above their threshold; none when absent. */
  labQuality?: LabQualityGate
  /** One line per step outcome (docs/operations.md); silent when absent. */
  log?: ServiceLogger
  metrics?: ServiceMetrics
  /** Checks every asset after its download (services/print-files/preflight.service.ts); none when absent. */
  preflight?: AssetPreflight
}

/** The pipeline as the jobs (jobs/registry.ts), the lab API, the Sandbox and the simulated labs use it. */
export interface PipelineService {
  /**
   * Job start-order: the order enters the pipeline (at creation, or when its pause window expires). `traceId`: of
   * the request that created it, kept with the order for the log lines of its background work.
   */
  startOrder: StartOrder
  /** Job download-file: one attempt at one of the order's files, retried with backoff on failure. */
  downloadFile: DownloadFile
  /** Job allocate-order: the order's unallocated items go to labs (charged at the first allocation). */
  allocateOrder: AllocateOrder
  /** Job render-print-file: the print file of one asset for one shipment. */
  renderPrintFile: RenderPrintFile
  /** Job submit-shipment: hands a shipment to its lab (the lab API lists it, or a simulated lab starts on it). */
  submitShipment: SubmitShipment
  /** A lab's report on a shipment (the lab API and the simulated labs both end here). */
  reportLab: ReportLab
  /** The order as it stands, unlocked (the simulated labs read their shipments from it). */
  orderOf(orderId: string): Promise<PipelineOrder | undefined>
  /** Scheduled job expire-stored-files: deletes kept copies and print files past retention; returns how many. */
  expireStoredFiles(): Promise<number>
  /** Signed URLs of the kept copies of the packing slip and branding files, for the lab. */
  extraFileUrls(order: PipelineOrder): ExtraFileUrls
  /** Signs the print files of a shipment for its lab. */
  printFileUrls(order: PipelineOrder, shipmentId: string): PrintFileUrl[]
  /** Signs printroute's packing slip of a shipment for its lab; null when the shipment has none. */
  packingSlipPdfUrl(order: PipelineOrder, shipmentId: string): { url: string } | null
}

export function createPipelineService(deps: PipelineDeps): PipelineService {
  const { db, clock, files, settings } = deps
  const log = deps.log ?? silentLogger
  const metrics = deps.metrics ?? noMetrics

  /**
   * Runs a step and records how long it took (printroute_pipeline_step_duration_seconds), whatever its outcome
   * (a re-run that finds its work done counts too).
   */
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

  const transition = createStepTransition({ orders: createOrderChanger(deps), log })
  const startOrder = createStartOrder({ clock, transition })
  const downloadFile = createDownloadFile({ ...deps, metrics, transition })
  const allocateOrder = createAllocateOrder({
    ...deps,
    log,
    transition,
    labRoomRetrySeconds: settings.labRoomRetrySeconds,
    labRoom: createLabRoom({
      clock,
      catalogue: deps.catalogue,
      ...(deps.labQuality ? { labQuality: deps.labQuality } : {}),
    }),
  })
  const renderPrintFile = createRenderPrintFile({ ...deps, transition })
  const submitShipment = createSubmitShipment({
    db,
    clock,
    settings,
    simulatedLabs: deps.simulatedLabs,
    files,
    renderPackingSlip: deps.renderPackingSlip,
    log,
    transition,
  })
  const reportLab = createReportLab({ clock, catalogue: deps.catalogue, transition, billing: deps.billing })

  return {
    startOrder: timedStep('start', startOrder),
    downloadFile: timedStep('download', downloadFile),
    allocateOrder: timedStep('allocate', allocateOrder),
    renderPrintFile: timedStep('render', renderPrintFile),
    submitShipment: timedStep('submit', submitShipment),
    reportLab: timedStep('lab-report', reportLab),
    orderOf: (orderId) => readOrder(db, orderNumberOf(orderId)),
    expireStoredFiles: createExpireStoredFiles({ clock, files, settings }),
    extraFileUrls: (order) => extraFileUrls(deps.fileLinks, order),
    printFileUrls: (order, shipmentId) => printFileUrls(deps.fileLinks, order, shipmentId),
    packingSlipPdfUrl: (order, shipmentId) => packingSlipPdfUrl(deps.fileLinks, order, shipmentId),
  }
}

/** A random secret for signing file URLs, generated once per installation. */
export function newSigningSecret(): string {
  return randomBytes(32).toString('base64url')
}
