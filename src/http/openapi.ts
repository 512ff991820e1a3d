// The OpenAPI 3.1 document of one environment and its reference page (docs/api.md, "Reference and OpenAPI").
// @fastify/swagger builds the document from the route schemas; `shapeDocument` then turns it into what a
// client generator needs: every schema named with `named()` becomes one component referred to everywhere,
// every error answer a shared response with the ErrorBody, and the callbacks a `webhooks` section. None of this
// touches the route schemas, so validation and serialisation stay as they are. `servers` is added per
// request, since the public URL is known only once the port is bound.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { stringify as toYaml } from 'yaml'
import { environmentName } from '../domain/environment.ts'
import { STAGES } from '../domain/order.ts'
import {
  CALLBACK_DELIVERY_STATUSES,
  type CallbackDeliveryStatus,
  CLAIM_EVENT_STATUSES,
  type ClaimEventStatus,
  eventType,
  isWebhookOnlyEvent,
  type OrderEventKind,
} from '../domain/order-events.ts'
import { ERROR_OUTCOME_STATUS } from '../domain/outcomes.ts'
import { sessionCookieName } from '../domain/session-cookie.ts'
import type { Environment } from '../services/accounts.service.ts'
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../services/idempotency.service.ts'
import { csrfTokenOf, type SessionsService } from '../services/sessions.service.ts'
import { API_VERSION_PREFIX } from './errors.ts'
import {
  createOrderRequestExample,
  createOrderResponseExample,
  createPreviewRequestExample,
  createPreviewResponseExample,
  createQuoteRequestExample,
  createQuoteResponseExample,
  createWebhookRequestExample,
  createWebhookResponseExample,
  getOrderRoutingResponseExample,
  getProductResponseExample,
} from './openapi-examples.ts'
import { CallbackEventSchema } from './schemas/callbacks.schema.ts'
import { EvidenceUploadBody } from './schemas/claims.schema.ts'
import { ErrorResponseSchema } from './schemas/common.schema.ts'
import { RecipientRequestSchema } from './schemas/order.schema.ts'

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version

/** Where the reference page is served, on both ports. */
export const DOCS_PATH = '/docs'
/** The dashboard session's CSRF token for the reference page's try-it console (same origin only). */
export const DOCS_SESSION_PATH = `${DOCS_PATH}/session`

/** Paths of the public API; everything else (dashboard, files, samples, payment pages, probes) stays out. */
const DOCUMENTED_PREFIXES = ['/v4.0/', '/labs/v1/']

const TAGS = [
  { name: 'orders', description: 'Create, read and list orders, and their print files.' },
  { name: 'order actions', description: 'What an order allows now, and the changes it allows.' },
  { name: 'products', description: 'The catalogue: product details, the product list, book spine widths.' },
  { name: 'addresses', description: "Countries' address rules, and an address checked against them." },
  { name: 'quotes', description: 'Prices per shipping method, without an order.' },
  { name: 'previews', description: 'What an item will print as and look like, before it is ordered.' },
  { name: 'preflight', description: 'A file checked against a product before it is ordered.' },
  { name: 'callbacks', description: 'Callback deliveries and the events feed (the webhooks below).' },
  {
    name: 'webhooks',
    description: 'Webhook endpoints: more receivers of the events, each with its filters and signing secret.',
  },
  {
    name: 'claims',
    description: 'Claims about shipped work: evidence photos, claims on orders, their listing and retraction.',
  },
  {
    name: 'channels',
    description:
      'Storefront channels: stores whose orders come in by webhook, their links to products, waiting orders.',
  },
  { name: 'account', description: "The account's settings and API keys." },
  { name: 'labs', description: 'For print labs (Live only): the shipments assigned to a lab and its reports.' },
  {
    name: 'sandbox',
    description: "Sandbox only: an order's test scenario, and advancing an order by the simulated labs' steps.",
  },
]

type Json = Record<string, unknown>
const COMPONENT_PREFIX = '#/components/schemas/'

/** Error answers shared by the operations, by status: the outcomes that status carries (domain/outcomes.ts). */
const ERROR_RESPONSES: Record<string, { name: string; when: string }> = {
  400: {
    name: 'BadRequest',
    when:
      'The request is not valid: a path, query, header or body value (each failing field is named under ' +
      '`failures`), or, whatever the operation, a request the HTTP parser cannot read (`data.reason`).',
  },
  401: { name: 'Unauthorized', when: 'The key is missing or not valid for this environment.' },
  403: {
    name: 'Forbidden',
    when: "The key is valid but its account is suspended by printroute's operator: contact the operator.",
  },
  404: { name: 'NotFound', when: 'No such resource (for this account and environment), or no such endpoint.' },
  413: { name: 'PayloadTooLarge', when: 'The body is larger than the limit.' },
  409: {
    name: 'IdempotencyKeyInUse',
    when: 'A request with this `Idempotency-Key` is still being answered: retry in a moment.',
  },
  415: { name: 'UnsupportedMediaType', when: 'The body is not JSON.' },
  422: {
    name: 'IdempotencyKeyReused',
    when:
      'This `Idempotency-Key` was used (within 24 hours) for another request (another method, path or body: ' +
      '`data.reason` AnotherRequest) or by another API key of the account (AnotherApiKey: a stored answer goes only ' +
      'to the key that made the request).',
  },
  431: {
    name: 'RequestHeadersTooLarge',
    when: 'The request line and headers together are larger than the limit (16 KiB), whatever the operation.',
  },
  429: {
    name: 'TooManyRequests',
    when: "The key's (or, without a valid key, the address's) rate limit is used up: retry after `Retry-After` seconds.",
  },
  500: { name: 'ServerError', when: 'Something failed on the server, or the request was not answered in time.' },
  503: {
    name: 'ServiceUnavailable',
    when:
      'The server is shutting down, or its database is unavailable (then `Retry-After` says when to try again): ' +
      'retry; an order is created again with the same idempotency key.',
  },
}

/** What a 503 says besides its body when the database is unavailable (not when the server is shutting down). */
const SERVICE_UNAVAILABLE_HEADERS = {
  'Retry-After': {
    description: 'Seconds to wait before retrying, when the database is unavailable.',
    schema: { type: 'integer', minimum: 1 },
  },
}

/** What a 429 says besides its body (the same RateLimit-* headers are on every limited answer). */
const RATE_LIMIT_HEADERS = {
  'Retry-After': { description: 'Seconds until the window ends.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window ends.', schema: { type: 'integer', minimum: 0 } },
}

function outcomesOfStatus(status: number): string[] {
  return Object.entries(ERROR_OUTCOME_STATUS)
    .filter(([, code]) => code === status)
    .map(([outcome]) => outcome)
}

/** POSTs whose answers an Idempotency-Key stores (http/idempotency.ts); create-order keeps its keys with its orders. */
function storesIdempotentAnswers(path: string, method: string): boolean {
  return method === 'post' && path.startsWith(`${API_VERSION_PREFIX}/`) && path !== `${API_VERSION_PREFIX}/orders`
}

/** The Idempotency-Key header every POST of the merchant API accepts (docs/api.md#idempotent-requests). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first answer is kept 24 hours and a retry of the same request (method, path, body) ' +
    "gets it again with `Idempotent-Replayed: true`. Creating an order, it is the order's `idempotencyKey`.",
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
}

/** The error statuses any operation of this shape can answer, beside those its route schema declares. */
function commonErrorStatuses(path: string, method: string, operation: Json): string[] {
  const changes = method !== 'get' && method !== 'head'
  // Every /v4.0 operation counts against a rate limit (http/rate-limit.ts); the lab API has none.
  const limited = !path.startsWith('/labs/')
  const parameters = (operation.parameters as { in: string }[] | undefined) ?? []
  return [
    // Any operation, even one without parameters or body: a request Node's HTTP parser refuses (400
    // MalformedRequest, http/errors.ts) or a path whose escapes are not UTF-8 never reaches its route's schema.
    '400',
    '401',
    // An account's keys (and sessions) belong to an account the operator may suspend; lab keys do not.
    ...(limited ? ['403'] : []),
    ...(parameters.some((parameter) => parameter.in === 'path') ? ['404'] : []),
    // A body over the limit is refused whatever the method (http/errors.ts, refuseOversizedBodies).
    '413',
    ...(changes ? ['415'] : []),
    ...(storesIdempotentAnswers(path, method) ? ['409', '422'] : []),
    ...(limited ? ['429'] : []),
    // Node's HTTP parser refuses headers over the limit before any route is known (http/errors.ts).
    '431',
    '500',
    '503',
  ]
}

/** `type: [X, 'null']` (what `Nullable` makes of a named schema) as the schema X and whether null is allowed. */
function splitNullable(schema: Json): { base: Json; nullable: boolean } {
  const type = schema.type
  if (!Array.isArray(type) || !type.includes('null')) return { base: schema, nullable: false }
  const rest = type.filter((entry) => entry !== 'null')
  const base: Json = { ...schema, type: rest.length === 1 ? rest[0] : rest }
  // Nullable adds null to an enum's values; the component is the non-null schema.
  if (Array.isArray(schema.enum)) base.enum = schema.enum.filter((value) => value !== null)
  return { base, nullable: true }
}

/**
 * Replaces every schema carrying a `title` with a `$ref` to the component of that name, innermost first.
 * Two different schemas under one name are a mistake in the schemas: the document then fails to build.
 */
function extractNamedSchemas(node: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((entry) => extractNamedSchemas(entry, components))
  if (node === null || typeof node !== 'object') return node
  const object = node as Json
  const title = object.title
  if (typeof title !== 'string') {
    return Object.fromEntries(
      Object.entries(object).map(([key, value]) => [key, extractNamedSchemas(value, components)]),
    )
  }
  const { base, nullable } = splitNullable(object)
  const { title: _name, ...rest } = base
  const component = {
    title,
    ...(Object.fromEntries(
      Object.entries(rest).map(([key, value]) => [key, extractNamedSchemas(value, components)]),
    ) as Json),
  }
  const existing = components[title]
  if (existing === undefined) components[title] = component
  else if (!isDeepStrictEqual(existing, component)) {
    throw new Error(
      `Two different schemas are named ${title}: ${JSON.stringify(existing)} and ${JSON.stringify(component)}`,
    )
  }
  const ref = { $ref: `${COMPONENT_PREFIX}${title}` }
  return nullable ? { anyOf: [ref, { type: 'null' }] } : ref
}

/**
 * A TypeBox schema as plain JSON the way @fastify/swagger writes route schemas: a record's `patternProperties`
 * as `additionalProperties`. For the schemas this file adds itself, so they equal those of the routes.
 */
function toDocumentSchema(schema: unknown): Json {
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert)
    if (node === null || typeof node !== 'object') return node
    const entries = Object.entries(node as Json).map(([key, value]): [string, unknown] =>
      key === 'patternProperties'
        ? ['additionalProperties', convert(Object.values(value as Json)[0])]
        : [
            key,
            key === 'properties'
              ? Object.fromEntries(Object.entries(value as Json).map(([name, property]) => [name, convert(property)]))
              : convert(value),
          ],
    )
    return Object.fromEntries(entries)
  }
  return convert(JSON.parse(JSON.stringify(schema))) as Json
}

const DELIVERY_EVENT_SUMMARIES: Record<CallbackDeliveryStatus, string> = {
  InTransit: 'After shipping, the carrier has the parcel (one event per shipment)',
  DeliveryFailed: 'A delivery attempt of a shipment failed; another attempt or a return follows',
  Delivered: 'A shipment was delivered',
  Returned: 'A shipment is going back to the sender; it will not be delivered',
}

const CLAIM_EVENT_SUMMARIES: Record<ClaimEventStatus, string> = {
  Created: 'The merchant made a claim about shipped work (data.claim); webhook endpoints and the feed only',
  Resolved: 'A claim was resolved: reprint, refund or credit (data.claim); webhook endpoints and the feed only',
  Rejected: 'A claim was rejected, with the reason (data.claim); webhook endpoints and the feed only',
  Retracted: 'The merchant withdrew a Pending claim (data.claim); webhook endpoints and the feed only',
}

/** The event types callbacks carry (docs/callbacks.md), one webhook each. */
const EVENT_KINDS: { kind: OrderEventKind; summary: string }[] = [
  ...STAGES.map((stage) => ({
    kind: { kind: 'stageChanged', stage } as OrderEventKind,
    summary:
      stage === 'InProgress'
        ? 'The pause window ended: the order is submitted for fulfilment'
        : `The order's stage changed to ${stage}`,
  })),
  { kind: { kind: 'downloadAssetsComplete' }, summary: 'Every asset has downloaded' },
  { kind: { kind: 'paymentAuthorised' }, summary: 'A prepaid order waiting for payment was paid' },
  {
    kind: { kind: 'assetReplaced', itemId: '', assetId: '' },
    summary: "The merchant replaced an asset's file (replaceAsset); it is downloaded and preflighted afresh",
  },
  {
    kind: { kind: 'parcelShipped', shipmentId: '', parcel: 0 },
    summary: 'A parcel of a shipment shipped in several parcels left the lab (one event per parcel)',
  },
  { kind: { kind: 'shipmentShipped', shipmentId: '' }, summary: 'A shipment was made (one event per shipment)' },
  { kind: { kind: 'shippingComplete' }, summary: 'Every shipment has shipped' },
  ...CALLBACK_DELIVERY_STATUSES.map((status) => ({
    kind: { kind: 'shipmentDelivery', shipmentId: '', status } as OrderEventKind,
    summary: DELIVERY_EVENT_SUMMARIES[status],
  })),
  { kind: { kind: 'orderDelivered' }, summary: 'Every shipment that was not cancelled has been delivered' },
  {
    kind: { kind: 'shipmentMoved', shipmentId: '', fromShipmentId: '' },
    summary: "The operator moved a shipment to another lab: a new shipment took the old one's items",
  },
  {
    kind: { kind: 'creditIssued', creditId: '' },
    summary:
      'A credit was issued on the order by itself (a late delivery on a guaranteed shipping method): data.credit ' +
      'carries it',
  },
  ...CLAIM_EVENT_STATUSES.map((status) => ({
    kind: { kind: 'claimChanged', claimId: '', status } as OrderEventKind,
    summary: CLAIM_EVENT_SUMMARIES[status],
  })),
  { kind: { kind: 'draftConfirmed' }, summary: 'A draft order was confirmed and starts (actions/confirm)' },
  {
    kind: { kind: 'draftExpired' },
    summary: 'A draft order was not confirmed within 30 days and was cancelled (also a stage change to Cancelled)',
  },
  {
    kind: { kind: 'holdReleased' },
    summary: "An order's own hold (holdUntil) was released early by actions/confirm; it starts now",
  },
]

function webhookOperationId(kind: OrderEventKind): string {
  const suffix =
    kind.kind === 'stageChanged'
      ? kind.stage
      : kind.kind === 'shipmentDelivery' || kind.kind === 'claimChanged'
        ? kind.status
        : ''
  return `on${kind.kind[0]?.toUpperCase()}${kind.kind.slice(1)}${suffix}`
}

/**
 * The Standard Webhooks headers of a signed POST (merchant callbacks, pushes to labs): `id` says what to do with the
 * event ID, `secret` names the secret that signs it.
 */
export function signedWebhookHeaders(notes: { id: string; secret: string }): Json[] {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  })
  return [
    header('webhook-id', `The event ID, the same on every attempt (Standard Webhooks)${notes.id}.`),
    header('webhook-timestamp', 'Unix time of this attempt, in seconds.'),
    header(
      'webhook-signature',
      `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> with ${notes.secret}; during a ` +
        'rotation also the signature with the previous secret, space-separated.',
    ),
  ]
}

function webhooks(vendor: string): Json {
  const parameters = signedWebhookHeaders({ id: '', secret: 'the signing secret of the account settings' })
  const payload = toDocumentSchema(CallbackEventSchema)
  return Object.fromEntries(
    EVENT_KINDS.map(({ kind, summary }) => {
      const type = eventType(vendor, kind)
      return [
        type,
        {
          post: {
            operationId: webhookOperationId(kind),
            tags: ['callbacks'],
            summary,
            description: isWebhookOnlyEvent(kind)
              ? `A CloudEvent of type \`${type}\`, POSTed to the account's webhook endpoints that take it and kept in the events feed; never to a callback URL.`
              : `A CloudEvent of type \`${type}\`, POSTed to the order's callback URL (else the account's).`,
            security: [],
            parameters,
            requestBody: { required: true, content: { 'application/json': { schema: payload } } },
            responses: {
              200: { description: 'Any 2xx answer within 15 seconds counts as delivered.' },
              400: { description: 'Any other answer (or none) is recorded and the delivery retried later.' },
            },
          },
        },
      ]
    }),
  )
}

/** The examples the document shows, by operationId: of the JSON request body, and of the 200 answer. */
const EXAMPLES = new Map<string, { request?: unknown; ok: unknown }>([
  ['createOrder', { request: createOrderRequestExample, ok: createOrderResponseExample }],
  ['createQuote', { request: createQuoteRequestExample, ok: createQuoteResponseExample }],
  ['createPreview', { request: createPreviewRequestExample, ok: createPreviewResponseExample }],
  ['getOrderRouting', { ok: getOrderRoutingResponseExample }],
  ['getProduct', { ok: getProductResponseExample }],
  ['createWebhook', { request: createWebhookRequestExample, ok: createWebhookResponseExample }],
])

/** Doc-only additions, by operationId: examples, and the recipient body the route validates by hand. */
function decorateOperation(operation: Json): void {
  const json = (path: string[]): Json | undefined => {
    let node: unknown = operation
    for (const key of path) node = (node as Json | undefined)?.[key]
    return node as Json | undefined
  }
  const requestMedia = json(['requestBody', 'content', 'application/json'])
  const okMedia =
    json(['responses', '200', 'content', 'application/json']) ??
    json(['responses', '201', 'content', 'application/json'])
  const examples = EXAMPLES.get(String(operation.operationId))
  if (examples) {
    if (requestMedia && examples.request !== undefined) requestMedia.example = examples.request
    if (okMedia) okMedia.example = examples.ok
  }
  if (operation.operationId === 'uploadClaimEvidence') {
    // The photo is the raw body, read by the route's own parsers (claims.routes.ts): no schema validates it.
    operation.requestBody = EvidenceUploadBody
  }
  if (operation.operationId === 'updateRecipient' && requestMedia) {
    // The route accepts the recipient or {recipient} and validates either itself (order-actions.routes.ts).
    const recipient = toDocumentSchema(RecipientRequestSchema)
    requestMedia.schema = {
      description: 'The recipient object, as in create order; {recipient: {...}} also works.',
      anyOf: [
        recipient,
        { type: 'object', properties: { recipient }, required: ['recipient'], additionalProperties: false },
      ],
    }
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** What @fastify/swagger built, made into the published document (see the file's first comment). */
export function shapeDocument(document: Json, vendor: string): Json {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      decorateOperation(operation)
      if (method === 'post' && path.startsWith(`${API_VERSION_PREFIX}/`)) {
        operation.parameters = [...((operation.parameters as Json[] | undefined) ?? []), IDEMPOTENCY_KEY_PARAMETER]
      }
      if (path.startsWith('/labs/v1/')) operation.security = [{ labKey: [] }]
      const responses = (operation.responses ?? {}) as Record<string, Json>
      if (path.startsWith('/labs/')) delete responses['429']
      for (const status of new Set([...Object.keys(responses), ...commonErrorStatuses(path, method, operation)])) {
        const shared = ERROR_RESPONSES[status]
        if (shared) responses[status] = { $ref: `#/components/responses/${shared.name}` }
        else if (responses[status]?.description === 'Default Response') {
          ;(responses[status] as Json).description = 'OK: the outcome says what happened'
        }
      }
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
    }
  }
  const schemas: Record<string, Json> = {}
  const shapedPaths = extractNamedSchemas(paths, schemas)
  const shapedWebhooks = extractNamedSchemas(webhooks(vendor), schemas)
  // The error responses below refer to ErrorBody (the operations' own error answers were replaced by them).
  extractNamedSchemas(toDocumentSchema(ErrorResponseSchema), schemas)
  const errorBody = schemas.ErrorBody
  // Optional in the route schema only so the serializer keeps `failures` in its place (common.schema.ts).
  if (errorBody) errorBody.required = ['outcome', 'statusText', 'statusCode', 'data', 'traceParent']
  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { name, when }]) => [
      name,
      {
        description: `${when} Outcome ${outcomesOfStatus(Number(status)).join(' or ')}.`,
        ...(status === '429' ? { headers: RATE_LIMIT_HEADERS } : {}),
        ...(status === '503' ? { headers: SERVICE_UNAVAILABLE_HEADERS } : {}),
        content: { 'application/json': { schema: { $ref: `${COMPONENT_PREFIX}ErrorBody` } } },
      },
    ]),
  )
  const components = (document.components ?? {}) as Json
  // The lab key's scheme only where the lab API is served (Live).
  const securitySchemes = { ...(components.securitySchemes as Json) }
  if (!Object.keys(paths).some((path) => path.startsWith('/labs/v1/'))) delete securitySchemes.labKey
  return {
    ...document,
    paths: shapedPaths,
    webhooks: shapedWebhooks,
    components: {
      ...components,
      securitySchemes,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses,
    },
  }
}

export interface OpenApiOptions {
  environment: Environment
  /** The environment's public base URL, as it is now (it is known once the port is bound). */
  publicUrl: () => string
  /** `<vendor>` of the callback event types. */
  eventVendor: string
  sessions: SessionsService
}

/** The document with `servers` (right after `info`), as served. */
function withServers(document: Json, url: string, environment: Environment): Json {
  const { openapi, info, ...rest } = document
  return { openapi, info, servers: [{ url, description: `${environmentName(environment)} environment` }], ...rest }
}

/** Registers the document builder and the reference page; call before the routes are registered. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const { environment } = options
  const name = environmentName(environment)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `printroute API (${name})`,
        version: PACKAGE_VERSION,
        summary: 'Print-on-demand orders, products and quotes: the Prodigi Print API v4.0, self-hosted.',
        description:
          `The ${name} environment. Authenticate with the \`X-API-Key\` header (a ${name} key), or, in a browser ` +
          'signed in to the [dashboard](/dashboard/), with its session. Errors have one body, `ErrorBody`, whose ' +
          '`outcome` decides the HTTP status. Callbacks are listed under webhooks.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: `An API key of the ${name} environment (pr_${environment}_...).`,
          },
          labKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'A lab key (pr_lab_..., from `printroute labs keys create`), for the lab API only.',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url }) => ({
      schema: DOCUMENTED_PREFIXES.some((prefix) => url.startsWith(prefix)) ? schema : { ...schema, hide: true },
      url,
    }),
    transformObject: (documentObject) =>
      shapeDocument((documentObject as { openapiObject: Json }).openapiObject, options.eventVendor) as never,
  })

  // The reference page and its assets are open without a key, like the document.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: false } as typeof route.config
    })
    // Everything the page loads comes from this server (swagger-ui-dist in node_modules); only try-it
    // requests may go to the public URL when it is another origin (a proxy in front).
    docs.addHook('onSend', async (_request, reply) => {
      const publicOrigin = new URL(options.publicUrl()).origin
      reply.header(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
          `font-src 'self' data:; connect-src 'self' ${publicOrigin}; base-uri 'none'; form-action 'none'; ` +
          "frame-ancestors 'none'",
      )
    })
    docs.get(DOCS_SESSION_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
      reply.header('cache-control', 'no-store')
      const token = request.cookies[sessionCookieName(environment)]
      const caller = token ? await options.sessions.authenticate(token, environment) : undefined
      if (!token || !caller) return { signedIn: false }
      return { signedIn: true, csrfToken: csrfTokenOf(token) }
    })
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      theme: { title: `printroute API reference (${name})` },
      uiConfig: {
        layout: 'BaseLayout',
        deepLinking: true,
        displayOperationId: true,
        docExpansion: 'list',
        defaultModelsExpandDepth: 0,
        // swagger-ui's request object (its type says Request; it is a plain object with method and headers).
        requestInterceptor: addDashboardCsrfToken as never,
      },
      transformSpecification: (document, request) => {
        const shaped = withServers(document as Json, options.publicUrl(), environment)
        // Opened on another address than the public one: try-it goes to this one (same origin, same cookie),
        // as a relative URL: the Host header is compared, never written into the document.
        if (request.host.toLowerCase() !== new URL(options.publicUrl()).host) {
          ;(shaped.servers as Json[]).unshift({ url: '/', description: 'This address' })
        }
        return shaped
      },
    })
  })
}

/**
 * Runs in the browser (serialised into the page's initializer by @fastify/swagger-ui, so it refers to nothing
 * outside itself): a try-it change sent without an X-API-Key goes with the dashboard session's cookie, which
 * the API accepts only with the session's X-CSRF-Token header; the token is fetched from this origin.
 */
async function addDashboardCsrfToken(request: { method: string; headers: Record<string, string> }) {
  const method = String(request.method).toUpperCase()
  const hasKey = Object.keys(request.headers).some((header) => header.toLowerCase() === 'x-api-key')
  if (method === 'GET' || method === 'HEAD' || hasKey) return request
  const answer = await fetch('/docs/session', { credentials: 'same-origin' })
  const session = (answer.ok ? await answer.json() : null) as { csrfToken?: string } | null
  if (session?.csrfToken) request.headers['X-CSRF-Token'] = session.csrfToken
  return request
}

/** GET /v4.0/openapi.json and /v4.0/openapi.yaml (no key), registered under the API prefix. */
export function registerOpenApiDocumentRoutes(api: FastifyInstance, app: FastifyInstance, options: OpenApiOptions) {
  let cachedYaml: { url: string; text: string } | undefined
  const document = () => withServers(app.swagger() as unknown as Json, options.publicUrl(), options.environment)
  api.get('/openapi.json', { schema: { hide: true }, config: { auth: false } }, async () => document())
  api.get('/openapi.yaml', { schema: { hide: true }, config: { auth: false } }, async (_request, reply) => {
    const url = options.publicUrl()
    if (cachedYaml?.url !== url) cachedYaml = { url, text: toYaml(document(), { aliasDuplicateObjects: false }) }
    return reply.type('application/yaml; charset=utf-8').send(cachedYaml.text)
  })
}
