// The HTTP server of one environment (Live or Sandbox: separate base addresses, separate data). Everything
// the contract says about transport is implemented here once, at its root: trace context, the request
// timeout, authentication, JSON parsing, case-insensitive routes and query names, error bodies and 405s.
import cookie from '@fastify/cookie'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import type { SampleImages } from '../adapters/sample-images.ts'
import { environmentName, otherEnvironmentKeyMessage } from '../domain/environment.ts'
import { DEFAULT_EVENT_VENDOR } from '../domain/order-events.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { sessionCookieName } from '../domain/session-cookie.ts'
import type { FileLinks } from '../domain/signed-urls.ts'
import type { AccountsService, Caller, Environment } from '../services/accounts.service.ts'
import type { AddressesService } from '../services/addresses.service.ts'
import type { AuditService } from '../services/audit.service.ts'
import type { CallbacksService } from '../services/callbacks.service.ts'
import type { ChannelFulfilmentsService } from '../services/channel-fulfilments.service.ts'
import type { ChannelsService } from '../services/channels.service.ts'
import type { ClaimsService } from '../services/claims.service.ts'
import type { CoverDimensionsService } from '../services/cover-dimensions.service.ts'
import type { HealthService } from '../services/health.service.ts'
import type { HostedPaymentsService } from '../services/hosted-payments.service.ts'
import type { InvoicesService } from '../services/invoices.service.ts'
import type { LabStatementsService } from '../services/lab-statements.service.ts'
import type { LabClaimsService } from '../services/labs/lab-claims.service.ts'
import type { LabPushesService } from '../services/labs/lab-pushes.service.ts'
import type { LabsService } from '../services/labs/labs.service.ts'
import type { HttpRequestLabels } from '../services/observability.ts'
import type { OrderActionsService } from '../services/order-actions.service.ts'
import type { OrderImportsService } from '../services/order-imports.service.ts'
import type { OrdersService } from '../services/orders.service.ts'
import type { PaymentEventsService } from '../services/payment-events.service.ts'
import type { PaymentsService } from '../services/payments.service.ts'
import type { PreviewsService } from '../services/previews.service.ts'
import type { PreflightService } from '../services/print-files/preflight.service.ts'
import type { PrintFilesService } from '../services/print-files.service.ts'
import type { ProductsService } from '../services/products.service.ts'
import type { QuotesService } from '../services/quotes.service.ts'
import type { SandboxService } from '../services/sandbox.service.ts'
import type { SandboxClaimsService } from '../services/sandbox-claims.service.ts'
import type { SavedCardsService } from '../services/saved-cards.service.ts'
import { isCsrfTokenOf, type SessionsService } from '../services/sessions.service.ts'
import type { SpineService } from '../services/spine.service.ts'
import type { WebhookRecoveryService } from '../services/webhook-recovery.service.ts'
import type { WebhooksService } from '../services/webhooks.service.ts'
import {
  API_VERSION_PREFIX,
  answerClientError,
  answerConnectRequests,
  answerFrameworkError,
  installErrorHandling,
  MalformedJsonError,
  readIgnoredBodies,
  refuseOversizedBodies,
  registerMethodNotAllowed,
  sendError,
} from './errors.ts'
import { type IdempotentAnswers, installIdempotency } from './idempotency.ts'
import { installKeyScopes } from './key-scopes.ts'
import { registerLabOpenApiRoute } from './lab-openapi.ts'
import { type OpenApiOptions, registerOpenApi, registerOpenApiDocumentRoutes } from './openapi.ts'
import { decoratePublicUrl } from './public-url.ts'
import { installRateLimits, type PageViewOfThisCall, type RateLimitOptions, type RateLimits } from './rate-limit.ts'
import { registerAccountBillingRoutes } from './routes/account-billing.routes.ts'
import { registerAccountKeyRoutes } from './routes/account-keys.routes.ts'
import { registerAccountSettingsRoutes } from './routes/account-settings.routes.ts'
import { registerAccountTopUpRoutes } from './routes/account-top-ups.routes.ts'
import { registerAddressRoutes } from './routes/addresses.routes.ts'
import { registerAuditRoutes } from './routes/audit.routes.ts'
import { registerCallbackRoutes } from './routes/callbacks.routes.ts'
import { registerChannelRoutes } from './routes/channels.routes.ts'
import { registerClaimRoutes } from './routes/claims.routes.ts'
import { registerCommercialInvoicePdfRoute } from './routes/commercial-invoices.routes.ts'
import { registerCoverDimensionsRoutes } from './routes/cover-dimensions.routes.ts'
import { registerFileRoutes, type ServedFiles } from './routes/files.routes.ts'
import { registerInvoicePdfRoute, registerInvoiceRoutes } from './routes/invoices.routes.ts'
import { registerLabClaimRoutes } from './routes/lab-claims.routes.ts'
import { registerLabRoutes } from './routes/labs.routes.ts'
import { type MetricsEndpoint, registerHealthRoutes, registerMetricsRoute } from './routes/operations.routes.ts'
import { registerOrderActionRoutes } from './routes/order-actions.routes.ts'
import { registerOrderImportRoutes } from './routes/order-imports.routes.ts'
import { registerOrderRoutes } from './routes/orders.routes.ts'
import { registerPaymentMethodRoutes } from './routes/payment-method.routes.ts'
import { registerPaymentWebhookRoutes } from './routes/payment-webhooks.routes.ts'
import { registerPaymentRoutes } from './routes/payments.routes.ts'
import { registerPreflightRoutes } from './routes/preflight.routes.ts'
import { registerPreviewRoutes } from './routes/previews.routes.ts'
import { registerPrintFileRoutes } from './routes/print-files.routes.ts'
import { registerProductRoutes } from './routes/products.routes.ts'
import { registerQuoteRoutes } from './routes/quotes.routes.ts'
import { registerSampleRoutes } from './routes/samples.routes.ts'
import { registerSandboxRoutes } from './routes/sandbox.routes.ts'
import { registerSpineRoutes } from './routes/spine.routes.ts'
import { registerWebhookRoutes } from './routes/webhooks.routes.ts'
import { serializerCompiler } from './serialization.ts'
import { type ServerBaseOptions, serverBaseOptions } from './server-base.ts'
import { installTraceContext } from './trace-context.ts'
import { validatorCompiler } from './validation.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account and environment; set on every route that requires a key. */
    caller: Caller
  }
  interface FastifyContextConfig {
    /** false for the few routes open without an API key (the OpenAPI document). */
    auth?: boolean
  }
}

/** Requests not answered within this time get 500 TimedOut (specification, "Limits": under one minute). */
export const REQUEST_TIMEOUT_MS = 60_000
/** Our request body limit (the specification leaves it open): room for 100 items with long URLs. */
export const BODY_LIMIT_BYTES = 1_048_576
/**
 * Deepest JSON nesting accepted in a body. An order needs 5 levels; metadata gets the rest. Without a
 * limit a small body of nested brackets overflows the stack wherever it is walked.
 */
export const MAX_JSON_DEPTH = 32
/**
 * The router's limit on one path parameter, as large as the request line Node accepts (16 KiB), so that an
 * over-long ID reaches its parameter's schema and is refused naming it (400 TooLong), not by the router.
 */
export const MAX_PATH_PARAMETER_LENGTH = 16_384

/** The deepest bracket nesting of a JSON text, brackets inside strings not counted. */
export function jsonNestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === 92)
        index++ // backslash: skip the escaped character
      else if (code === 34) inString = false
    } else if (code === 34) inString = true
    else if (code === 123 || code === 91) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (code === 125 || code === 93) depth--
  }
  return deepest
}

export interface HttpServices {
  /** Storefront channels and their webhooks (docs/channels.md); absent: no channel routes. */
  channels?: ChannelsService
  /** The channels' fulfilment outbox (its list and "try again now"); given with `channels`. */
  channelFulfilments?: ChannelFulfilmentsService
  accounts: AccountsService
  audit: AuditService
  orders: OrdersService
  orderActions: OrderActionsService
  /** Print files, their placement on the source and their previews (printroute's own endpoint). */
  printFiles: PrintFilesService
  /** Invoices and credit notes of orders, and their PDFs under signed links. */
  invoices: InvoicesService
  /** Previews and mockups of items before they are ordered, and the resolution check of quotes. */
  previews: PreviewsService
  /** Files checked against a product before they are ordered (printroute's own endpoint). */
  preflight: PreflightService
  orderImports: OrderImportsService
  products: ProductsService
  quotes: QuotesService
  spine: SpineService
  /** Books' full-spread cover dimensions (printroute's own). */
  coverDimensions: CoverDimensionsService
  /** Countries' address rules and address checks (docs/addresses.md). */
  addresses: AddressesService
  /** The lab API is served on the Live address only. */
  labs: LabsService | null
  /** The lab's pushes (GET /labs/v1/pushes); with `labs`. */
  labPushes: LabPushesService
  /** The labs' payables statements, served to each lab on the lab API. */
  labStatements: LabStatementsService
  /** The claims against each lab's jobs and its answers (GET /labs/v1/claims). */
  labClaims: LabClaimsService
  /** The account's card on file (docs/billing.md#a-card-on-file). */
  savedCards: SavedCardsService
  /** Payment pages of orders awaiting payment: Live only. */
  payments: PaymentsService | null
  /** The hosted provider's pages of held orders and top-ups (with `payments`), and the top-ups' API routes. */
  hostedPayments: HostedPaymentsService
  /** The card provider's webhooks, on each environment's port; null without a payment gateway (then 404). */
  paymentEvents: PaymentEventsService | null
  /** The Sandbox's own endpoints (scenarios, advance): Sandbox only. */
  sandbox: SandboxService | null
  /** The Sandbox's simulated operator deciding claims (POST /sandbox/claims/{id}/advance): Sandbox only. */
  sandboxClaims: SandboxClaimsService | null
  /** Stored files under their signed links (thumbnails, print files). */
  files: { store: ServedFiles; links: FileLinks; now: () => Date }
  /** Callback deliveries and the events feed. */
  callbacks: CallbacksService
  /** Webhook endpoints (docs/callbacks.md#webhook-endpoints). */
  webhooks: WebhooksService
  /** Merchants' claims about shipped work and their evidence photos (docs/claims.md). */
  claims: ClaimsService
  /** Webhook endpoints that keep failing: redeliver-missed. */
  webhookRecovery: WebhookRecoveryService
  /** The bundled sample images, served under /samples/. */
  samples: SampleImages
  /** GET /healthz and /readyz; not served when absent. */
  health?: HealthService
  /** Dashboard sessions: a session cookie authenticates like the key it was made from. */
  sessions: SessionsService
  /** Stored answers of POSTs sent with an Idempotency-Key (docs/api.md#idempotent-requests). */
  idempotency: IdempotentAnswers
  /** The base URL of each environment (a key of the other environment is told where that one is). */
  publicUrl: (environment: Environment) => string
  /** `<vendor>` of the callback event types, for the OpenAPI document's webhooks; `printroute` when absent. */
  eventVendor?: string
}

/** The `route` label of requests that matched no route (404s of unknown paths). */
export const UNMATCHED_ROUTE = '(unmatched)'

export interface HttpServerOptions extends ServerBaseOptions {
  environment: Environment
  services: HttpServices
  requestTimeoutMs?: number
  bodyLimitBytes?: number
  /** Called once per answered request; nothing is measured when absent. */
  observeHttpRequest?: (labels: HttpRequestLabels, seconds: number) => void
  /** GET /metrics on this server (the Live one, unless the metrics have a port of their own). */
  metrics?: MetricsEndpoint | null
  /** Requests allowed per API key (docs/api.md#rate-limits); none when absent or null. */
  rateLimit?: RateLimitOptions | null
  /** The web dashboard on this server; not served when absent. */
  dashboard?: ServedDashboard
}

/**
 * The dashboard (docs/dashboard.md) as this server needs it. The composition root hands it over, so that the
 * HTTP layer serves the dashboard without importing it (docs/architecture.md, Boundaries).
 */
export interface ServedDashboard {
  /**
   * Registers its pages (under /dashboard/), after the sample images and before the payment pages;
   * `rateLimits` counts its sign-ins with a key that is not valid.
   */
  register(server: App, rateLimits: RateLimits): Promise<void>
  /** Its page views: the rate limit counts each view's API calls once. */
  pageViewOfThisCall: PageViewOfThisCall
}

export type App = FastifyInstance

// `orderIds[]` (Ruby's Faraday, jQuery) and `orderIds[0]` (PHP's http_build_query): how common HTTP libraries
// spell a repeated parameter.
const ARRAY_SUFFIX = /\[[0-9]*\]$/

/**
 * Query parameter names are case-insensitive and array parameters may be comma-separated
 * (docs/wire-contract.md#transport), or named with a bracket suffix (`orderIds[]=a&orderIds[]=b`).
 */
function canonicaliseQuery(query: Record<string, unknown>, schema: QuerySchema): Record<string, unknown> {
  // No prototype: a parameter named `__proto__` or `constructor` is just an unknown name.
  const result: Record<string, unknown> = Object.create(null)
  for (const [rawName, rawValue] of Object.entries(query)) {
    const lower = rawName.toLowerCase()
    const bracketless = schema.canonicalNames.get(lower.replace(ARRAY_SUFFIX, ''))
    const name =
      schema.canonicalNames.get(lower) ??
      (bracketless !== undefined && schema.arrayNames.has(bracketless) ? bracketless : rawName)
    let value = rawValue
    if (schema.arrayNames.has(name)) {
      const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => String(part).split(','))
      value = parts.map((part) => part.trim()).filter((part) => part !== '')
    }
    const previous = result[name]
    result[name] = previous === undefined ? value : ([] as unknown[]).concat(previous, value)
  }
  return result
}

interface QuerySchema {
  canonicalNames: Map<string, string>
  arrayNames: Set<string>
}

const querySchemaCache = new WeakMap<object, QuerySchema>()

function querySchemaOf(schema: unknown): QuerySchema | undefined {
  if (!schema || typeof schema !== 'object') return undefined
  let cached = querySchemaCache.get(schema)
  if (!cached) {
    const properties = (schema as { properties?: Record<string, { type?: string }> }).properties ?? {}
    cached = {
      canonicalNames: new Map(Object.keys(properties).map((name) => [name.toLowerCase(), name])),
      arrayNames: new Set(
        Object.entries(properties)
          .filter(([, p]) => p.type === 'array')
          .map(([name]) => name),
      ),
    }
    querySchemaCache.set(schema, cached)
  }
  return cached
}

export async function buildHttpServer(options: HttpServerOptions): Promise<App> {
  const { environment, services } = options
  const app = Fastify({
    // Requests not answered in time get 500 TimedOut (mapped in errors.ts); not-found answers are immediate.
    handlerTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    ...serverBaseOptions(options),
    bodyLimit: options.bodyLimitBytes ?? BODY_LIMIT_BYTES,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Answers outside any route still get the error body (errors.ts): the shutdown 503 (below), undecodable
    // paths, and what Node's HTTP parser refuses.
    return503OnClosing: false,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.decorateRequest('caller', null as unknown as Caller)
  decoratePublicUrl(app, () => services.publicUrl(environment))

  // JSON only. An empty body counts as no body (bodiless POSTs such as cancel may still say JSON).
  // secure-json-parse refuses `__proto__` and `constructor.prototype` keys (prototype poisoning).
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    if (jsonNestingDepth(text) > MAX_JSON_DEPTH) {
      return done(
        new MalformedJsonError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, 'TooDeeplyNested'),
        undefined,
      )
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch (error) {
      done(new MalformedJsonError((error as Error).message), undefined)
    }
  })

  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })

  // Cookies are read (for dashboard sessions) before the API key check below needs them.
  await app.register(cookie)

  // Trace context first, so even a refused request carries its traceparent; then the API key; then the
  // rate limit of the key (or, for a refused key, of the address).
  installTraceContext(app)
  refuseOversizedBodies(app)
  readIgnoredBodies(app)
  const rateLimits = await installRateLimits(app, environment, options.rateLimit, options.dashboard?.pageViewOfThisCall)
  installApiKeyCheck()

  /** Each request's X-API-Key, once the server is not shutting down: the caller, or the refusal (counted against the address's rate limit). */
  function installApiKeyCheck(): void {
    app.addHook('onRequest', async (request, reply) => {
      if (closing) {
        return sendError(request, reply, new ServiceError('ServiceUnavailable', 'The server is shutting down; retry'))
      }
      if (request.routeOptions.config.auth === false || request.is404) return
      const key = request.headers['x-api-key']
      const hasKey = typeof key === 'string' && key !== ''
      // Without a key, a dashboard session cookie stands for the key it was made from (docs/dashboard.md).
      const sessionToken = hasKey ? undefined : request.cookies[sessionCookieName(environment)]
      if (sessionToken) {
        const caller = await services.sessions.authenticate(sessionToken, environment)
        if (!caller) {
          return rateLimits.refuseUnauthenticated(
            request,
            reply,
            new ServiceError('Unauthorized', 'The dashboard session has ended; sign in again'),
          )
        }
        // SameSite=Strict already keeps other sites' pages from sending the cookie; the token makes sure.
        const safe = request.method === 'GET' || request.method === 'HEAD'
        if (!safe && !isCsrfTokenOf(sessionToken, request.headers['x-csrf-token'])) {
          return rateLimits.refuseUnauthenticated(
            request,
            reply,
            new ServiceError('Unauthorized', 'A change made with a dashboard session needs its X-CSRF-Token header'),
          )
        }
        request.caller = caller
        return
      }
      const caller = hasKey ? await services.accounts.identify(key) : undefined
      if (caller?.environment !== environment) {
        // A key of the other environment is refused like a wrong one (same status, same budget), but says so.
        const statusText = !hasKey
          ? 'The X-API-Key header is missing'
          : caller
            ? otherEnvironmentKeyMessage(caller.environment, environment, services.publicUrl)
            : `The X-API-Key is not a valid ${environmentName(environment)} key`
        return rateLimits.refuseUnauthenticated(request, reply, new ServiceError('Unauthorized', statusText))
      }
      request.caller = caller
    })
  }
  // After the key check: the route's scope against the key's (docs/api.md#api-keys).
  installKeyScopes(app, API_VERSION_PREFIX)

  // Routes with a query string get their parameter names canonicalised before validation.
  app.addHook('onRoute', (route) => {
    const schema = querySchemaOf(route.schema?.querystring)
    if (!schema) return
    route.preValidation = [
      async (request) => {
        request.query = canonicaliseQuery(request.query as Record<string, unknown>, schema)
      },
    ]
  })

  const observe = options.observeHttpRequest
  if (observe) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE)
      observe({ environment, route, method: request.method, status: reply.statusCode }, reply.elapsedTime / 1000)
      done()
    })
  }

  installErrorHandling(app)
  // After the API key (the keys are per account and environment), before validation and the routes' work.
  installIdempotency(app, services.idempotency)

  // The OpenAPI document (GET /v4.0/openapi.json and .yaml, below) and the reference page at /docs.
  const openApi: OpenApiOptions = {
    environment,
    publicUrl: () => services.publicUrl(environment),
    eventVendor: services.eventVendor ?? DEFAULT_EVENT_VENDOR,
    sessions: services.sessions,
  }
  await registerOpenApi(app, openApi)

  const routes: { url: string; methods: string[] }[] = []
  app.addHook('onRoute', (route) => {
    routes.push({ url: route.url, methods: ([] as string[]).concat(route.method) })
  })

  await app.register(
    async (api) => {
      registerMerchantApiRoutes(api, services)
      registerOpenApiDocumentRoutes(api, app, openApi)
    },
    { prefix: API_VERSION_PREFIX },
  )
  registerFileRoutes(app, { files: services.files.store, links: services.files.links, environment })
  registerInvoicePdfRoute(app, { invoices: services.invoices, links: services.files.links, environment })
  const labs = services.labs
  if (labs) {
    registerCommercialInvoicePdfRoute(app, { labs, links: services.files.links, environment })
    // One scope: the claims' routes sit behind the lab key check the jobs' routes install.
    const registerLabApi = async (labApi: FastifyInstance) => {
      registerLabRoutes(labApi, labs, services.labPushes, rateLimits, services.labStatements)
      registerLabClaimRoutes(labApi, services.labClaims)
    }
    await app.register(registerLabApi, { prefix: '/labs/v1' })
    registerLabOpenApiRoute(app, openApi)
  }
  registerSampleRoutes(app, services.samples)
  if (services.channels && services.channelFulfilments) {
    await registerChannelRoutes(app, services.channels, services.channelFulfilments, environment)
  }
  if (options.dashboard) await options.dashboard.register(app, rateLimits)
  if (services.payments) registerPaymentRoutes(app, services.payments, services.hostedPayments)
  if (services.paymentEvents) await registerPaymentWebhookRoutes(app, services.paymentEvents)
  if (services.health) registerHealthRoutes(app, services.health)
  if (options.metrics) registerMetricsRoute(app, options.metrics)
  registerMethodNotAllowed(app, routes)
  await app.ready()
  // An `Expect` other than 100-continue: Node would answer a bare 417 itself. The expectation is ignored
  // instead (RFC 9110 allows it) and the request answered as any other.
  app.server.on('checkExpectation', (request, response) => app.routing(request, response))
  answerConnectRequests(app)
  return app
}

/** The merchant API's routes under /v4.0, one group per resource. */
function registerMerchantApiRoutes(api: FastifyInstance, services: HttpServices): void {
  registerOrderRoutes(api, services.orders)
  registerOrderActionRoutes(api, services.orderActions)
  registerPrintFileRoutes(api, services.printFiles)
  registerInvoiceRoutes(api, services.invoices)
  registerProductRoutes(api, services.products)
  registerSpineRoutes(api, services.spine)
  registerCoverDimensionsRoutes(api, services.coverDimensions)
  registerAddressRoutes(api, services.addresses)
  registerQuoteRoutes(api, services.quotes, services.previews)
  registerPreviewRoutes(api, services.previews)
  registerPreflightRoutes(api, services.preflight)
  registerOrderImportRoutes(api, services.orderImports)
  registerCallbackRoutes(api, services.callbacks)
  registerWebhookRoutes(api, services.webhooks, services.webhookRecovery)
  registerClaimRoutes(api, services.claims)
  registerAccountSettingsRoutes(api, services.accounts)
  registerAccountKeyRoutes(api, services.accounts)
  registerAccountBillingRoutes(api, services.invoices)
  registerPaymentMethodRoutes(api, services.savedCards)
  registerAccountTopUpRoutes(api, services.hostedPayments)
  registerAuditRoutes(api, services.audit)
  if (services.sandbox) registerSandboxRoutes(api, services.sandbox, services.orders, services.sandboxClaims)
}
