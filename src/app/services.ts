// The services of one application, built over its adapters: what buildApplication serves, runs jobs with and
// hands the HTTP servers, the dashboard and the console. Wiring only: each service holds its own rules.
import type { BlobStore } from '../adapters/blob-store.ts'
import { createCallbackPoster } from '../adapters/callback-poster.ts'
import type { Clock } from '../adapters/clock.ts'
import { renderCommercialInvoicePdf } from '../adapters/commercial-invoice-pdf.ts'
import { CsvReadError, readCsvHeader, readCsvRecords } from '../adapters/csv-rows.ts'
import { normaliseEvidenceImage } from '../adapters/evidence-image.ts'
import { type BoundedFileInspector, createFileInspector } from '../adapters/file-inspector.ts'
import { inspectImage } from '../adapters/image-inspection.ts'
import { createImageRenderer } from '../adapters/image-renderer.ts'
import { renderInvoicePdf, renderLabStatementPdf, renderStatementPdf } from '../adapters/invoice-pdf.ts'
import type { JobQueue } from '../adapters/job-queue.ts'
import { renderMockup } from '../adapters/mockup-renderer.ts'
import { renderPackingSlipPdf } from '../adapters/packing-slip-pdf.ts'
import { createSimulatedPaymentProvider } from '../adapters/payment-provider.ts'
import { checkPdf } from '../adapters/pdf-check.ts'
import { createPdfColourConverter } from '../adapters/pdf-colour-converter.ts'
import { createSafeFetcher } from '../adapters/safe-fetcher.ts'
import { type SampleImages, unknownSampleUrl, withSampleImages } from '../adapters/sample-images.ts'
import { sha256File, withScratchFile, writeScratchFile } from '../adapters/scratch-files.ts'
import { createShopifyStorefront } from '../adapters/shopify-storefront.ts'
import { createWooCommerceStorefront } from '../adapters/woocommerce-storefront.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { Environment } from '../domain/environment.ts'
import { invoicePdfKey } from '../domain/invoices.ts'
import { type AllocationRequest, allocateOrderItems } from '../domain/order-allocation.ts'
import { DEFAULT_EVENT_VENDOR } from '../domain/order-events.ts'
import type { FileInspector } from '../domain/preflight.ts'
import type { FileLinks } from '../domain/signed-urls.ts'
import { newSigningSecret as newCallbackSigningSecret } from '../domain/webhook-signature.ts'
import { PAYMENT_PATH_PREFIX } from '../http/routes/payments.routes.ts'
import { createOrderRequestCheck } from '../http/validation.ts'
import { createAccountsService } from '../services/accounts.service.ts'
import { createAddressesService } from '../services/addresses.service.ts'
import { createAdminViewsService } from '../services/admin-views.service.ts'
import { createAttentionService } from '../services/attention.service.ts'
import { createAuditService } from '../services/audit.service.ts'
import { createBillingService } from '../services/billing.service.ts'
import { createCallbacksService } from '../services/callbacks.service.ts'
import { createCardDisputesService } from '../services/card-disputes.service.ts'
import { createCardPaymentsView } from '../services/card-payments-view.service.ts'
import {
  type CardRefundsService,
  createCardRefundRequester,
  createCardRefundsService,
} from '../services/card-refunds.service.ts'
import type { CatalogueVersionsService } from '../services/catalogue-versions.service.ts'
import {
  createChannelFulfilmentRecorder,
  createChannelFulfilmentsService,
} from '../services/channel-fulfilments.service.ts'
import { createChannelsService } from '../services/channels.service.ts'
import {
  type ClaimResolutionDeps,
  type ClaimResolutionService,
  createClaimResolutionService,
} from '../services/claim-resolution.service.ts'
import { createClaimsService } from '../services/claims.service.ts'
import { createCoverDimensionsService } from '../services/cover-dimensions.service.ts'
import { createHostedPaymentsService } from '../services/hosted-payments.service.ts'
import { createIdempotencyService } from '../services/idempotency.service.ts'
import { createInvoicesService, type InvoicesService } from '../services/invoices.service.ts'
import { createLabStatementsService } from '../services/lab-statements.service.ts'
import { createLabClaimsService } from '../services/labs/lab-claims.service.ts'
import { createLabPushesService } from '../services/labs/lab-pushes.service.ts'
import { createLabQualitySource } from '../services/labs/lab-quality.service.ts'
import { createLabsService } from '../services/labs/labs.service.ts'
import { createMissingParcelsService } from '../services/missing-parcels.service.ts'
import type { ServiceLogger, ServiceMetrics } from '../services/observability.ts'
import { revenueSourceOf } from '../services/operator/revenue.ts'
import { createOperatorsService } from '../services/operators.service.ts'
import type { OrderActionsService } from '../services/order-actions.service.ts'
import { createOrderActionsService } from '../services/order-actions.service.ts'
import { createOrderEventsService, type OrderEventsService } from '../services/order-events.service.ts'
import { createOrderImportsService } from '../services/order-imports.service.ts'
import { createOrderOperationsService } from '../services/order-operations.service.ts'
import { createOrdersService, type OrdersService } from '../services/orders.service.ts'
import { createPaymentEventsService, type PaymentEventHandlers } from '../services/payment-events.service.ts'
import { createPaymentsService } from '../services/payments.service.ts'
import { createPipelineService } from '../services/pipeline/index.ts'
import { createLabRoom } from '../services/pipeline/lab-room.ts'
import { createSimulatedLabs } from '../services/pipeline/simulated-labs.ts'
import { createPreviewsService } from '../services/previews.service.ts'
import { createPreflightService } from '../services/print-files/preflight.service.ts'
import { createPrintFilesService } from '../services/print-files.service.ts'
import { createProductsService } from '../services/products.service.ts'
import { createQuotesService } from '../services/quotes.service.ts'
import { createSandboxService } from '../services/sandbox.service.ts'
import { createSandboxClaimsService } from '../services/sandbox-claims.service.ts'
import {
  createSavedCardsService,
  type SavedCardsService,
  savedCardChargeStarter,
} from '../services/saved-cards.service.ts'
import { createSessionsService } from '../services/sessions.service.ts'
import { createShipmentMovesService } from '../services/shipment-moves.service.ts'
import { createSpineService } from '../services/spine.service.ts'
import { createWebhookRecoveryService } from '../services/webhook-recovery.service.ts'
import { createWebhooksService } from '../services/webhooks.service.ts'
import { type ApplicationOptions, DEFAULT_LAB_CANCEL_WAIT_SECONDS, DEFAULT_PIPELINE_SETTINGS } from './options.ts'

/** What the services are built on: the catalogue served, the adapters buildApplication opened. */
export interface ServiceDeps {
  catalogue: Catalogue
  catalogueVersions: CatalogueVersionsService
  clock: Clock
  jobs: JobQueue
  files: BlobStore
  fileLinks: FileLinks
  publicUrls: Record<Environment, string>
  samples: SampleImages
  log: ServiceLogger
  metrics: ServiceMetrics
  /** The key storefront channels' secrets are sealed under (app.ts reads or makes it). */
  channelSecretsKey: Buffer
}

/** Charges and their settlement, each charge's document issued by `invoices`. */
function billingOf(options: ApplicationOptions, deps: ServiceDeps, invoices: InvoicesService) {
  const { clock } = deps
  return createBillingService({
    invoices,
    clock,
    paymentPageUrl: (orderId, token) =>
      `${deps.publicUrls.live}${PAYMENT_PATH_PREFIX}${orderId}?token=${encodeURIComponent(token)}`,
    sandboxAuthorisationUrl: (orderId) => `${deps.publicUrls.sandbox}/dashboard/orders/${orderId}`,
    // A held prepaid order's card on file is charged only with a payment gateway (docs/billing.md#a-card-on-file).
    ...(options.paymentGateway
      ? { startSavedCardCharge: savedCardChargeStarter({ gateway: options.paymentGateway, clock }) }
      : {}),
    // A refund of an order a card paid goes back to the card (docs/billing.md#refunds-to-the-card).
    ...cardRefundRequesterOf(options, deps),
  })
}

/**
 * The services that others are built on (invoices under billing, order events under the pipeline...) and the
 * pieces they share (the renderer, the fetcher, the pipeline's settings).
 */
function buildCoreServices(options: ApplicationOptions, deps: ServiceDeps) {
  const { db } = options
  const { catalogue, clock, jobs, files, fileLinks, log, metrics } = deps
  const renderConcurrency = options.renderConcurrency ?? 2
  const renderer = createImageRenderer({ concurrency: renderConcurrency })
  const allocate = (request: AllocationRequest) => allocateOrderItems(catalogue, request)
  const invoices = createInvoicesService({
    db,
    clock,
    taxRateOf: (countryCode) => catalogue.taxRate(countryCode),
    instanceName: () => deps.publicUrls.live,
    pdfLink: (environment, number) => deps.fileLinks.url(environment, invoicePdfKey(number)),
    renderInvoicePdf,
    renderStatementPdf,
  })
  const billing = billingOf(options, deps, invoices)
  const callbackPoster = createCallbackPoster({ allowPrivateAddresses: options.allowPrivateUrls ?? false })
  // The labs' quality rates, read once a minute at most by every allocation, quote and page of this process.
  const labQuality = createLabQualitySource({ db, clock, catalogue })
  const labPushes = createLabPushesService({
    db,
    clock,
    jobs,
    catalogue,
    fileTokens: { url: (environment, key) => fileLinks.token(environment, key) },
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    source: () => `${deps.publicUrls.live}/labs/v1/jobs`,
    claimPhotoUrl: (evidenceId) => `${deps.publicUrls.live}/labs/v1/claims/evidence/${evidenceId}`,
    newSigningSecret: newCallbackSigningSecret,
    log,
  })
  const events = createOrderEventsService({
    clock,
    jobs,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    sourceOf: (environment, orderId) => `${deps.publicUrls[environment]}/v4.0/orders/${orderId}`,
    labEvents: labPushes,
    channelFulfilments: createChannelFulfilmentRecorder({ clock, jobs }),
  })
  const webhookRecovery = createWebhookRecoveryService({
    db,
    clock,
    jobs,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    eventSource: (environment, webhookId) => `${deps.publicUrls[environment]}/v4.0/webhooks/${webhookId}`,
    log,
  })
  const callbacks = createCallbacksService({
    db,
    clock,
    jobs,
    fileLinks,
    post: callbackPoster.post,
    newSigningSecret: newCallbackSigningSecret,
    vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
    testEventSource: (environment) => `${deps.publicUrls[environment]}/v4.0/callbacks/test`,
    ...(options.callbackRetryScheduleSeconds ? { retryScheduleSeconds: options.callbackRetryScheduleSeconds } : {}),
    ...(options.callbackRetentionSeconds ? { retentionSeconds: options.callbackRetentionSeconds } : {}),
    log,
    metrics,
    webhookAttempts: webhookRecovery,
  })
  // printroute's own sample URLs come from the bundled files; every other URL from the network. Orders and
  // previews download through the same fetcher: the same address rules and size limit.
  const fetcher = withSampleImages(
    createSafeFetcher({
      allowPrivateAddresses: options.allowPrivateUrls ?? false,
      ...(options.maxDownloadBytes ? { maxBytes: options.maxDownloadBytes } : {}),
    }),
    deps.samples,
    () => Object.values(deps.publicUrls),
  )
  // A URL under printroute's own /samples/ naming no sample is refused at the request (docs/assets.md).
  const unknownSampleUrlOf = (url: string) => unknownSampleUrl(url, deps.samples, Object.values(deps.publicUrls))
  const pipelineSettings = { ...DEFAULT_PIPELINE_SETTINGS, ...options.pipeline }
  const simulatedLabs = createSimulatedLabs({ clock, settings: pipelineSettings })
  // Stand-alone preflights and every order asset's are checked by the same engine (docs/pipeline.md#preflight).
  const bounded = createFileInspector()
  const preflight = createPreflightService({
    db,
    clock,
    catalogue,
    jobs,
    fetcher,
    files,
    withScratchFile,
    writeScratchFile,
    inspector: preflightInspector(bounded),
    fixPdfBoxes: (input, output, book) => bounded.fixPdfBoxes(input, output, book),
    renderThumbnails: (path, request) => bounded.renderPdfThumbnails(path, request),
    log,
    unknownSampleUrl: unknownSampleUrlOf,
    convertsPdfColour: Boolean(options.ghostscript),
  })
  const pipeline = createPipelineService({
    events,
    labQuality,
    db,
    jobs,
    clock,
    catalogue,
    catalogueOf: (version) => deps.catalogueVersions.catalogueOf(version),
    billing,
    fetcher,
    files,
    withScratchFile,
    renderer,
    checkPdf: async (input, pageCount) => checkPdf(input, pageCount),
    // Ghostscript, an AGPL program, only when the operator names it: run, never linked (docs/print-files.md).
    convertPdfColour: options.ghostscript
      ? createPdfColourConverter({
          ghostscript: options.ghostscript,
          warn: (fields, message) => log.warn(fields, message),
        })
      : undefined,
    renderPackingSlip: renderPackingSlipPdf,
    allocate,
    fileLinks,
    settings: pipelineSettings,
    simulatedLabs,
    log,
    metrics,
    preflight,
  })
  return {
    renderConcurrency,
    allocate,
    invoices,
    billing,
    callbackPoster,
    labPushes,
    labQuality,
    events,
    webhookRecovery,
    callbacks,
    fetcher,
    unknownSampleUrlOf,
    pipelineSettings,
    simulatedLabs,
    pipeline,
    preflight,
  }
}

/**
 * The preflight's inspector: PDFs in the bounded child process (adapters/file-inspector.ts); images from their
 * header in this process, as the download step already reads them with sharp (nothing is decoded, so no file can
 * cost more here than there), which spares every order asset a child process's start.
 */
function preflightInspector(bounded: BoundedFileInspector): FileInspector {
  return {
    inspect: (path, contentType) =>
      contentType.startsWith('image/')
        ? inspectImage(path, contentType, bounded.limits.maxPixels)
        : bounded.inspect(path, contentType),
  }
}

/** The labs' side of claims (the lab API's and the lab portal's): photos through the evidence normaliser. */
function labClaimsOf(options: ApplicationOptions, deps: ServiceDeps, events: OrderEventsService) {
  return createLabClaimsService({
    db: options.db,
    clock: deps.clock,
    jobs: deps.jobs,
    events,
    files: deps.files,
    normaliseEvidence: normaliseEvidenceImage,
    evidenceUrl: (evidenceId) => `${deps.publicUrls.live}/labs/v1/claims/evidence/${evidenceId}`,
  })
}

/**
 * Claims resolved by the operator (docs/claims.md#resolutions): the console's and the command line's, and the
 * undisputed-claims rule's (`--claim-auto-resolve-days`).
 */
function claimResolutionOf(
  base: Pick<ClaimResolutionDeps, 'db' | 'clock' | 'catalogue' | 'jobs' | 'files' | 'log'>,
  core: Pick<ClaimResolutionDeps, 'events' | 'billing'>,
  options: Pick<ApplicationOptions, 'claimAutoResolveDays'>,
): ClaimResolutionService {
  const undisputedDays = options.claimAutoResolveDays ?? 0
  const labRoom = createLabRoom({ clock: base.clock, catalogue: base.catalogue })
  return createClaimResolutionService({ ...base, events: core.events, billing: core.billing, labRoom, undisputedDays })
}

/** With a payment provider, a refund of an order its card paid goes back to the card (docs/billing.md). */
function cardRefundRequesterOf(options: ApplicationOptions, deps: ServiceDeps) {
  if (!options.paymentGateway) return {}
  const provider = options.paymentGateway.name
  return { cardRefunds: createCardRefundRequester({ clock: deps.clock, jobs: deps.jobs, provider }) }
}

/**
 * Refunds to the card and disputes (docs/billing.md#card-payments-through-stripe): the job `refund-card-payment` and
 * the handlers of the provider's charge.refunded and charge.dispute.* events.
 */
function cardPaymentServicesOf(options: ApplicationOptions, deps: ServiceDeps, events: OrderEventsService) {
  const { db } = options
  const { clock, jobs, log } = deps
  return {
    cardRefunds: createCardRefundsService({ db, clock, jobs, events, gateway: options.paymentGateway ?? null, log }),
    cardPaymentsView: createCardPaymentsView({ db }),
    cardDisputes: createCardDisputesService({
      db,
      clock,
      jobs,
      events,
      provider: options.paymentGateway?.name ?? 'stripe',
    }),
  }
}

/** The provider's webhook events each go to the service they concern (docs/billing.md#card-payments-through-stripe). */
function eventHandlersOf(
  savedCards: Pick<SavedCardsService, 'completeCardSetup'>,
  cardPayments: ReturnType<typeof cardPaymentServicesOf>,
): PaymentEventHandlers {
  return {
    cardSetupCompleted: (event) => savedCards.completeCardSetup(event),
    refunded: (event) => cardPayments.cardRefunds.recordRefunded(event),
    refundUpdated: (event) => cardPayments.cardRefunds.recordRefundUpdate(event),
    dispute: (event) => cardPayments.cardDisputes.recordDispute(event),
  }
}

/** Every service of the application (the catalogue versions service is built before them, by buildApplication). */
export function buildServices(options: ApplicationOptions, deps: ServiceDeps) {
  const { db } = options
  const { catalogue, clock, jobs, files, fileLinks, log } = deps
  const core = buildCoreServices(options, deps)
  const orders = ordersOf(options, deps, core)
  const spine = createSpineService({ catalogue })
  const savedCards = savedCardsOf(options, deps, core)
  const cardPayments = cardPaymentServicesOf(options, deps, core.events)
  const hosted = paymentServicesOf(options, deps, core, eventHandlersOf(savedCards, cardPayments), {
    savedCards,
    cardRefunds: cardPayments.cardRefunds,
  })
  const services = {
    accounts: createAccountsService({ db, clock, isKnownCurrency: (code) => catalogue.isKnownCurrency(code) }),
    audit: createAuditService({ db }),
    // The operator's revenue and margin (the console's Revenue section, `printroute revenue`): reads only.
    revenue: revenueSourceOf(db),
    orders,
    orderActions: createOrderActionsService({
      db,
      catalogue,
      clock,
      jobs,
      billing: core.billing,
      allocate: core.allocate,
      labRoom: createLabRoom({ clock, catalogue, labQuality: core.labQuality }),
      events: core.events,
      fileLinks,
      log,
      labCancellation: {
        // Real labs are asked; simulated ones (Sandbox, Live in a demo) are not (docs/sandbox.md).
        asksLabs: (environment) => environment === 'live' && !core.pipelineSettings.simulateLiveLabs,
        waitSeconds: options.labCancelWaitSeconds ?? DEFAULT_LAB_CANCEL_WAIT_SECONDS,
      },
    }),
    printFiles: createPrintFilesService({ db, catalogue, fileLinks }),
    invoices: core.invoices,
    labStatements: createLabStatementsService({
      db,
      clock,
      labOf: (labCode) => catalogue.labs.find((lab) => lab.code === labCode),
      buyer: async () => (await core.invoices.seller()).seller,
      renderPdf: renderLabStatementPdf,
    }),
    previews: createPreviewsService({
      db,
      clock,
      catalogue,
      fetcher: core.fetcher,
      files,
      withScratchFile,
      sha256File,
      // Their own renderer, one image at a time: a burst of previews takes neither every core nor orders' turn.
      renderer: createImageRenderer({ concurrency: 1 }),
      drawMockup: renderMockup,
      fileLinks,
      log,
      unknownSampleUrl: core.unknownSampleUrlOf,
    }),
    payments: hosted.payments,
    savedCards,
    ...cardPayments,
    products: createProductsService({ catalogue }),
    quotes: createQuotesService({
      catalogue,
      db,
      clock,
      labQuality: core.labQuality,
      ...(options.quoteLifetimeSeconds ? { lifetimeSeconds: options.quoteLifetimeSeconds } : {}),
    }),
    sessions: createSessionsService({ db, clock }),
    idempotency: createIdempotencyService({ db, clock }),
    operators: createOperatorsService({ db, clock }),
    spine,
    coverDimensions: createCoverDimensionsService({ catalogue, spine }),
    addresses: createAddressesService({ catalogue }),
    pipeline: core.pipeline,
    preflight: core.preflight,
    simulatedLabs: core.simulatedLabs,
    labs: createLabsService({
      db,
      clock,
      catalogue,
      pipeline: core.pipeline,
      commercialInvoices: { links: fileLinks, render: renderCommercialInvoicePdf },
      log,
    }),
    labPushes: core.labPushes,
    labQuality: core.labQuality,
    labClaims: labClaimsOf(options, deps, core.events),
    sandbox: createSandboxService({
      db,
      jobs,
      events: core.events,
      pipeline: core.pipeline,
      simulatedLabs: core.simulatedLabs,
      billing: core.billing,
      now: () => clock.now(),
    }),
    callbacks: core.callbacks,
    webhooks: createWebhooksService({
      db,
      clock,
      vendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
      newSigningSecret: newCallbackSigningSecret,
      callbacks: core.callbacks,
    }),
    webhookRecovery: core.webhookRecovery,
    closeCallbackFetcher: core.callbackPoster.close,
    files,
    fileLinks,
    renderConcurrency: core.renderConcurrency,
  }
  // The operator's move of a shipment to another lab (services/operator/orders.ts): the command line and the console.
  const shipmentMoves = createShipmentMovesService({
    db,
    clock,
    catalogue,
    jobs,
    events: core.events,
    labRoom: createLabRoom({ clock, catalogue, labQuality: core.labQuality }),
    labQuality: core.labQuality,
    log,
  })
  // The operator's actions on an order (docs/admin.md#acting-on-an-order): the console's and the command line's.
  const orderOperations = createOrderOperationsService({
    db,
    clock,
    jobs,
    events: core.events,
    billing: core.billing,
    orderActions: services.orderActions,
  })
  // The operator console's orders, labs and callbacks pages read through these (dashboard/admin/*.pages.ts).
  const adminViews = createAdminViewsService({ db, clock, catalogue, ...services })
  const attention = createAttentionService({ db, clock, catalogue })
  return {
    ...services,
    ...hosted,
    ...buildChannels(options, deps, services),
    orderImports: buildOrderImports(options, deps, orders),
    shipmentMoves,
    orderOperations,
    adminViews,
    attention,
    ...claimServicesOf(options, deps, core),
  }
}

/** A card on file (docs/billing.md#a-card-on-file): its setup through the payment gateway, its charges. */
function savedCardsOf(options: ApplicationOptions, deps: ServiceDeps, core: ReturnType<typeof buildCoreServices>) {
  return createSavedCardsService({
    db: options.db,
    clock: deps.clock,
    jobs: deps.jobs,
    billing: core.billing,
    events: core.events,
    gateway: options.paymentGateway ?? null,
    billingPageUrl: () => `${deps.publicUrls.live}/dashboard/billing`,
    log: deps.log,
  })
}

/**
 * Payments: the payment page and top-ups (the simulated provider's card form), and with a gateway the hosted
 * provider's (docs/billing.md#card-payments-through-stripe): held orders' Checkout, top-ups, the sweeper and the
 * provider's webhook events (null without a gateway). The events' handlers of saved cards, refunds and disputes are
 * given here as they are built, and the services whose pending charges and refunds the sweeper reads back.
 */
function paymentServicesOf(
  options: ApplicationOptions,
  deps: ServiceDeps,
  core: ReturnType<typeof buildCoreServices>,
  handlers: PaymentEventHandlers,
  readBack: {
    savedCards: Pick<SavedCardsService, 'settlePendingCharge'>
    cardRefunds: Pick<CardRefundsService, 'settlePendingRefund'>
  },
) {
  const { db } = options
  const { clock, jobs, log } = deps
  const provider = options.paymentProvider ?? createSimulatedPaymentProvider({ now: () => clock.now() })
  const payments = createPaymentsService({ db, clock, jobs, billing: core.billing, events: core.events, provider, log })
  const gateway = options.paymentGateway ?? null
  const hostedPayments = createHostedPaymentsService({
    db,
    clock,
    jobs,
    events: core.events,
    billing: core.billing,
    payments,
    gateway,
    provider,
    liveUrl: () => deps.publicUrls.live,
    // The sweeper reads back what the provider left pending: charges of a card on file, refunds to a card.
    savedCards: readBack.savedCards,
    cardRefunds: readBack.cardRefunds,
    log,
  })
  const paymentEvents = gateway
    ? createPaymentEventsService({ db, clock, jobs, gateway, hostedPayments, handlers, log })
    : null
  return { payments, hostedPayments, paymentEvents }
}

/**
 * Claims and who decides them: the merchants' claims, the operator's decisions (and the undisputed-claims rule), the
 * missing-parcel rule (`--missing-parcel-reprint-days`: claims made by printroute, reprinted as the operator would),
 * and the Sandbox's simulated operator (on advance, and by itself for the scenarios claimsResolved, claimsRejected).
 */
function claimServicesOf(options: ApplicationOptions, deps: ServiceDeps, core: ReturnType<typeof buildCoreServices>) {
  const { db } = options
  const { catalogue, clock, jobs, files, log } = deps
  const events = core.events
  const claims = buildClaims(options, deps, events, core.pipelineSettings.simulatedLabStepSeconds)
  const claimResolution = claimResolutionOf({ db, clock, catalogue, jobs, files, log }, core, options)
  const missingParcels = createMissingParcelsService({
    db,
    clock,
    jobs,
    events,
    claimResolution,
    log,
    reprintDays: options.missingParcelReprintDays ?? 0,
    ...(options.claimWindowDays !== undefined ? { windowDays: options.claimWindowDays } : {}),
  })
  const sandboxClaims = createSandboxClaimsService({ db, claims, claimResolution, log })
  return { claims, claimResolution, missingParcels, sandboxClaims }
}

/** Storefront channels (docs/channels.md) over each store's adapter, and their fulfilment outbox. */
function buildChannels(
  options: ApplicationOptions,
  deps: ServiceDeps,
  services: { orders: OrdersService; orderActions: OrderActionsService },
) {
  const adapters = {
    shopify: createShopifyStorefront({ ...(options.shopifyApiUrl ? { apiOrigin: options.shopifyApiUrl } : {}) }),
    woocommerce: createWooCommerceStorefront({ allowPrivateAddresses: options.allowPrivateUrls ?? false }),
  }
  const base = {
    db: options.db,
    clock: deps.clock,
    jobs: deps.jobs,
    adapters,
    secretsKey: deps.channelSecretsKey,
    log: deps.log,
  }
  return {
    channels: createChannelsService({
      ...base,
      catalogue: deps.catalogue,
      orders: services.orders,
      orderActions: services.orderActions,
      webhookUrl: (environment, kind, channelId) => `${deps.publicUrls[environment]}/channels/v1/${channelId}/${kind}`,
    }),
    channelFulfilments: createChannelFulfilmentsService({
      ...base,
      ...(options.channelRetryScheduleSeconds ? { retryScheduleSeconds: options.channelRetryScheduleSeconds } : {}),
    }),
  }
}

/** The orders service: what POST /orders and a CSV import's orders are created by. */
function ordersOf(options: ApplicationOptions, deps: ServiceDeps, core: ReturnType<typeof buildCoreServices>) {
  return createOrdersService({
    db: options.db,
    catalogue: deps.catalogue,
    clock: deps.clock,
    jobs: deps.jobs,
    fileLinks: deps.fileLinks,
    log: deps.log,
    metrics: deps.metrics,
    unknownSampleUrl: core.unknownSampleUrlOf,
    labQuality: core.labQuality,
  })
}

/** CSV order imports (docs/imports.md): the file streamed by csv-parse, each order created by the orders service. */
function buildOrderImports(options: ApplicationOptions, deps: ServiceDeps, orders: OrdersService) {
  const { files } = deps
  return createOrderImportsService({
    db: options.db,
    clock: deps.clock,
    jobs: deps.jobs,
    orders,
    files,
    async *readRecords(blobKey, maxFieldCharacters) {
      yield* readCsvRecords(await files.openRead(blobKey), maxFieldCharacters)
    },
    readHeader: readCsvHeader,
    readError: (error) =>
      error instanceof CsvReadError ? { record: error.record, message: error.message } : undefined,
    validateOrderRequest: createOrderRequestCheck(),
    log: deps.log,
  })
}

/** Merchants' claims about shipped work (docs/claims.md): their events go through the one order change. */
function buildClaims(
  options: ApplicationOptions,
  deps: ServiceDeps,
  events: ReturnType<typeof createOrderEventsService>,
  simulatedOperatorSeconds: number,
) {
  return createClaimsService({
    db: options.db,
    clock: deps.clock,
    jobs: deps.jobs,
    events,
    files: deps.files,
    normaliseImage: (input) => normaliseEvidenceImage(input),
    ...(options.claimWindowDays !== undefined ? { windowDays: options.claimWindowDays } : {}),
    simulatedOperatorSeconds,
  })
}

export type Services = ReturnType<typeof buildServices>
