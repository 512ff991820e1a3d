// The HTTP servers of one application: Live and Sandbox (the API, the dashboard on each, the lab portal and the
// operator console on Live), and the metrics and console servers when they have ports of their own.

import type { createMetrics } from '../adapters/metrics.ts'
import { createDatabaseRateLimitCounters } from '../adapters/rate-limit-counters.ts'
import type { SampleImages } from '../adapters/sample-images.ts'
import { databaseUnavailableReason } from '../domain/database-unavailable.ts'
import type { Environment } from '../domain/environment.ts'
import { DEFAULT_EVENT_VENDOR } from '../domain/order-events.ts'
import { DEFAULT_RATE_LIMIT_TEXT, parseRateLimit } from '../domain/rate-limit.ts'
import type { FileLinks } from '../domain/signed-urls.ts'
import { buildAdminServer } from '../http/admin-server.ts'
import { buildMetricsServer } from '../http/metrics-server.ts'
import type { RateLimits } from '../http/rate-limit.ts'
import type { MetricsEndpoint } from '../http/routes/operations.routes.ts'
import { type App, buildHttpServer, type ServedDashboard } from '../http/server.ts'
import type { CatalogueVersionsService } from '../services/catalogue-versions.service.ts'
import type { HealthService } from '../services/health.service.ts'
import type { ServiceLogger } from '../services/observability.ts'
import {
  consoleAccountsOf,
  consoleAuditOf,
  consoleCatalogueOf,
  consoleClaimsOf,
  consoleInvoicesOf,
  consoleLabsOf,
  consoleOperatorsOf,
  consoleOrderActionsOf,
  consoleOrderCardPaymentsOf,
  consoleRevenueOf,
  consoleShipmentMovesOf,
} from '../services/operator/console-sections.ts'
import { dashboardPageViewOfThisCall } from '../web/kit/api-client.ts'
import { registerLabPortal } from '../web/labs/lab-portal.plugin.ts'
import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'
import { registerAdminConsole } from '../web/operator/admin.plugin.ts'
import { ADMIN_PATH } from '../web/operator/admin-context.ts'
import { registerAttentionPages } from '../web/operator/attention.pages.ts'
import { registerAuditPages } from '../web/operator/audit.pages.ts'
import { registerCallbacksPages } from '../web/operator/callbacks.pages.ts'
import { registerCataloguePages } from '../web/operator/catalogue.pages.ts'
import { registerChannelsPages } from '../web/operator/channels.pages.ts'
import { registerClaimsPages } from '../web/operator/claims.pages.ts'
import { registerInvoicesPages } from '../web/operator/invoices.pages.ts'
import { registerLabsPages } from '../web/operator/labs.pages.ts'
import { registerOperatorsPages } from '../web/operator/operators.pages.ts'
import { registerOrdersPages } from '../web/operator/orders.pages.ts'
import { registerRevenuePages } from '../web/operator/revenue.pages.ts'
import type { ApplicationOptions } from './options.ts'
import type { Services } from './services.ts'

/** What the servers are built on. */
export interface ServerDeps {
  services: Services & { catalogueVersions: CatalogueVersionsService }
  publicUrls: Record<Environment, string>
  fileLinks: FileLinks
  now: () => Date
  samples: SampleImages
  health: HealthService
  metrics: ReturnType<typeof createMetrics>
  log: ServiceLogger
}

/** The Live and Sandbox servers, and the metrics and console servers when they have their own ports (else null). */
export async function buildServers(
  options: ApplicationOptions,
  { services, publicUrls, fileLinks, now, samples, health, metrics, log }: ServerDeps,
): Promise<{ live: App; sandbox: App; metricsServer: App | null; adminServer: App | null }> {
  const httpServices = (environment: Environment) => ({
    channels: services.channels,
    channelFulfilments: services.channelFulfilments,
    accounts: services.accounts,
    audit: services.audit,
    orders: services.orders,
    orderActions: services.orderActions,
    printFiles: services.printFiles,
    invoices: services.invoices,
    previews: services.previews,
    preflight: services.preflight,
    orderImports: services.orderImports,
    products: services.products,
    quotes: services.quotes,
    spine: services.spine,
    coverDimensions: services.coverDimensions,
    addresses: services.addresses,
    labs: environment === 'live' ? services.labs : null,
    labPushes: services.labPushes,
    labStatements: services.labStatements,
    labClaims: services.labClaims,
    savedCards: services.savedCards,
    // Sandbox never bills, so only Live serves payment pages.
    payments: environment === 'live' ? services.payments : null,
    hostedPayments: services.hostedPayments,
    paymentEvents: services.paymentEvents,
    sandbox: environment === 'sandbox' ? services.sandbox : null,
    sandboxClaims: environment === 'sandbox' ? services.sandboxClaims : null,
    files: { store: services.files, links: fileLinks, now },
    callbacks: services.callbacks,
    webhooks: services.webhooks,
    webhookRecovery: services.webhookRecovery,
    claims: services.claims,
    samples,
    health,
    sessions: services.sessions,
    idempotency: services.idempotency,
    publicUrl: (of: Environment) => publicUrls[of],
    eventVendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
  })
  const limit = options.rateLimit === undefined ? parseRateLimit(DEFAULT_RATE_LIMIT_TEXT) : options.rateLimit
  const rateLimit = limit && {
    limit,
    ...(options.db.kind === 'postgres' && !options.rateLimitInMemory
      ? {
          sharedCounters: createDatabaseRateLimitCounters(options.db, {
            onCleanupError: (error) => {
              if (!databaseUnavailableReason(error))
                log.warn({ err: error }, 'deleting ended rate limit windows failed')
            },
          }),
        }
      : {}),
  }
  const registerConsole = consoleOf(services, publicUrls)
  // The dashboard (docs/dashboard.md) on each environment's server: wired here, so that the HTTP layer serves it
  // without importing it.
  const dashboardOn = (environment: Environment): ServedDashboard => ({
    async register(server, rateLimits) {
      await server.register(
        async (dashboard) =>
          registerDashboard(dashboard, {
            api: server,
            environment,
            eventVendor: options.eventVendor ?? DEFAULT_EVENT_VENDOR,
            sessions: services.sessions,
            publicUrl: (of: Environment) => publicUrls[of],
            limitFailedSignIn: async (request, reply) =>
              (await rateLimits.countUnauthenticated(request, reply))?.message,
          }),
        { prefix: '/dashboard' },
      )
      // The lab portal (docs/labs.md#the-lab-portal): Live only, as the lab API is; real labs never see Sandbox work.
      if (environment === 'live') {
        await server.register(
          async (portal) =>
            registerLabPortal(portal, {
              sessions: services.sessions,
              labs: services.labs,
              statements: services.labStatements,
              claims: { claims: services.labClaims, quality: (labCode) => services.labQuality.of(labCode) },
              publicUrl: () => publicUrls.live,
              limitFailedSignIn: async (request, reply) =>
                (await rateLimits.countUnauthenticated(request, reply))?.message,
            }),
          { prefix: '/labs/portal' },
        )
        if (!options.adminOwnServer) await registerConsole(server, rateLimits)
      }
    },
    pageViewOfThisCall: dashboardPageViewOfThisCall,
  })
  const common = {
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs,
    observeHttpRequest: metrics.observeHttpRequest,
    rateLimit,
  }
  const serverOf = (environment: Environment) => {
    const bound = options.servers?.[environment]
    return bound ? { boundServer: bound } : {}
  }
  const metricsEndpoint: MetricsEndpoint = { scrape: metrics.scrape, token: options.metrics?.token ?? null }
  const ownMetricsPort = options.metrics?.port !== undefined && options.metrics.port !== null
  const live = await buildHttpServer({
    ...common,
    ...serverOf('live'),
    environment: 'live',
    services: httpServices('live'),
    metrics: ownMetricsPort ? null : metricsEndpoint,
    dashboard: dashboardOn('live'),
  })
  const sandbox = await buildHttpServer({
    ...common,
    ...serverOf('sandbox'),
    environment: 'sandbox',
    services: httpServices('sandbox'),
    dashboard: dashboardOn('sandbox'),
  })
  const metricsServer = ownMetricsPort
    ? await buildMetricsServer({
        metrics: metricsEndpoint,
        health,
        logger: options.logger,
        ...(options.servers?.metrics ? { boundServer: options.servers.metrics } : {}),
      })
    : null
  const adminServer = options.adminOwnServer
    ? await buildAdminServer({
        logger: options.logger,
        rateLimit,
        register: registerConsole,
        ...(options.servers?.admin ? { boundServer: options.servers.admin } : {}),
      })
    : null
  return { live, sandbox, metricsServer, adminServer }
}

/** The operator console (docs/admin.md): registered on the Live server under /admin/, or on a server of its own. */
function consoleOf(
  services: ServerDeps['services'],
  publicUrls: Record<Environment, string>,
): (server: App, rateLimits: RateLimits) => Promise<void> {
  return async (server, rateLimits) => {
    await server.register(
      async (adminScope) =>
        registerAdminConsole(adminScope, {
          sessions: services.sessions,
          publicUrl: () => publicUrls.live,
          imageOrigins: () => [publicUrls.live, publicUrls.sandbox],
          limitFailedSignIn: async (request, reply) => (await rateLimits.countUnauthenticated(request, reply))?.message,
          accounts: consoleAccountsOf(
            services.accounts,
            services.payments,
            services.catalogueVersions,
            services.cardPaymentsView,
          ),
          channels: services.adminViews.channels,
          sellerConfigured: () => services.invoices.sellerConfigured(),
          // The other sections, each module's register<Section>Pages with its deps filled from the services.
          sections: [
            (pages, console) =>
              registerOrdersPages(pages, console, services.adminViews.orders, {
                margins: consoleRevenueOf(services.revenue),
                moves: consoleShipmentMovesOf(services.shipmentMoves),
                actions: consoleOrderActionsOf(services.orderOperations),
                cardPayments: consoleOrderCardPaymentsOf(services.cardPaymentsView),
              }),
            (pages, console) => registerAttentionPages(pages, console, services.attention),
            (pages, console) => registerClaimsPages(pages, console, consoleClaimsOf(services.claimResolution)),
            (pages, console) =>
              registerLabsPages(
                pages,
                console,
                consoleLabsOf(services.labs, services.adminViews.labs, services.labStatements),
              ),
            (pages, console) => registerCataloguePages(pages, console, consoleCatalogueOf(services.catalogueVersions)),
            (pages, console) => registerInvoicesPages(pages, console, consoleInvoicesOf(services.invoices)),
            (pages, console) => registerRevenuePages(pages, console, consoleRevenueOf(services.revenue)),
            (pages, console) => registerCallbacksPages(pages, console, services.adminViews.callbacks),
            (pages, console) => registerChannelsPages(pages, console, services.adminViews.channels),
            (pages, console) => registerAuditPages(pages, console, consoleAuditOf(services.audit)),
            (pages, console) => registerOperatorsPages(pages, console, consoleOperatorsOf(services.operators)),
          ],
          attentionCount: () => services.attention.count(),
        }),
      { prefix: ADMIN_PATH },
    )
  }
}
