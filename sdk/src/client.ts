import { type Call, type RequestOptions, Transport, type TransportOptions } from './transport.ts'
import type {
  AdvanceOrderResponse,
  AdvanceTarget,
  CallbackListFilters,
  CallbackPage,
  CancelOrderResponse,
  Channel,
  ChannelFulfilment,
  ChannelFulfilmentListFilters,
  ChannelFulfilmentPage,
  ChannelLink,
  ChannelPendingOrder,
  ChannelStoreCancellation,
  Claim,
  ClaimCategory,
  ClaimEvidence,
  ClaimListFilters,
  ClaimPage,
  ConfirmOrderResponse,
  Country,
  CountrySummary,
  CoverDimensions,
  CoverDimensionsQuery,
  CreateChannelLinkRequest,
  CreateChannelRequest,
  CreateClaimRequest,
  CreateOrderImportQuery,
  CreateOrderImportResponse,
  CreateOrderRequest,
  CreateOrderResponse,
  CreateTopUpRequest,
  CreateTopUpResponse,
  CreateWebhookRequest,
  CreateWebhookResponse,
  DeletedChannelLinkResponse,
  EventListFilters,
  EventPage,
  GetOrderResponse,
  Invoice,
  Metadata,
  Order,
  OrderActions,
  OrderAssetPreflight,
  OrderImport,
  OrderImportListFilters,
  OrderImportPage,
  OrderListFilters,
  OrderPage,
  Preflight,
  PreflightRequest,
  PreviewRequest,
  PreviewResponse,
  Product,
  ProductListFilters,
  ProductPage,
  QuoteRequest,
  QuoteResponse,
  Recipient,
  RedeliverMissedRequest,
  RedeliverMissedResponse,
  RedeliverResponse,
  ReleaseChannelOrderResponse,
  ReplaceAssetRequest,
  ReplaceAssetResponse,
  Routing,
  SandboxOrder,
  SpineRequest,
  SpineResponse,
  TopUp,
  UpdateChannelRequest,
  UpdateChannelResponse,
  UpdateMetadataResponse,
  UpdateRecipientResponse,
  UpdateShippingMethodRequest,
  UpdateShippingMethodResponse,
  UpdateWebhookRequest,
  UpdateWebhookResponse,
  ValidateAddressRequest,
  ValidateAddressResponse,
  Webhook,
  WebhookTestResponse,
} from './types.ts'

export interface PrintrouteClientOptions {
  /** An API key of the environment `baseUrl` points at (`pr_sandbox_...` or `pr_live_...`). */
  apiKey: string
  /**
   * The environment's address, with or without the version: `http://127.0.0.1:8081` or
   * `http://127.0.0.1:8081/v4.0` (Sandbox by default on 8081, Live on 8080).
   */
  baseUrl: string
  /** A fetch to use instead of the global one (a proxy agent, a test double, a framework's fetch). */
  fetch?: typeof fetch
  /** Retries after a 429, a 5xx or no answer, for requests safe to repeat (default 2: three attempts). */
  maxRetries?: number
  /** How long each attempt may take before it counts as unanswered (default 65,000 ms). */
  timeoutMs?: number
  /** First backoff delay; doubles with each retry, with jitter (default 500 ms). */
  retryDelayMs?: number
  /** The longest wait before a retry (default 30,000 ms): a `Retry-After` beyond it is thrown, not waited for. */
  maxRetryDelayMs?: number
}

export interface CreateOrderOptions extends RequestOptions {
  /**
   * Sent as the order's `idempotencyKey`: the same key again answers `AlreadyExists` with the first order instead
   * of creating another. With a key (here or in the order) a create is retried; without one it never is.
   */
  idempotencyKey?: string
}

type ListedOrder = OrderPage['orders'][number]

export class PrintrouteClient {
  readonly orders: Orders
  readonly quotes: Quotes
  readonly previews: Previews
  readonly preflights: Preflights
  readonly products: Products
  /** Countries' address rules (docs/addresses.md). */
  readonly countries: Countries
  /** An address checked against its country's rules (docs/addresses.md). */
  readonly addresses: Addresses
  readonly events: Events
  readonly callbacks: Callbacks
  /** Webhook endpoints: more receivers of the events, each with its filters and secret (docs/callbacks.md). */
  readonly webhooks: Webhooks
  /** Sandbox only: an order's test scenario, and advancing an order (docs/sandbox.md). */
  readonly sandbox: Sandbox
  /** Claims about shipped items or missing parcels, and their evidence photos (docs/claims.md). */
  readonly claims: Claims
  /** Storefront channels: their product links and waiting orders (docs/channels.md). */
  readonly channels: Channels
  /** Top-ups of a Live prepaid balance, paid by card on the link they answer (docs/api.md#top-ups). */
  readonly topUps: TopUps
  /** The API's base address in use, ending in `/v4.0`. */
  readonly baseUrl: string

  constructor(options: PrintrouteClientOptions) {
    const transport = new Transport(options satisfies TransportOptions)
    this.baseUrl = transport.baseUrl
    this.orders = new Orders(transport)
    this.quotes = new Quotes(transport)
    this.previews = new Previews(transport)
    this.preflights = new Preflights(transport)
    this.products = new Products(transport)
    this.countries = new Countries(transport)
    this.addresses = new Addresses(transport)
    this.events = new Events(transport)
    this.callbacks = new Callbacks(transport)
    this.webhooks = new Webhooks(transport)
    this.sandbox = new Sandbox(transport)
    this.claims = new Claims(transport)
    this.channels = new Channels(transport)
    this.topUps = new TopUps(transport)
  }
}

const segment = encodeURIComponent

/** A group of endpoints sharing the client's transport. */
abstract class Resource {
  protected readonly transport: Transport
  constructor(transport: Transport) {
    this.transport = transport
  }
}

/** The number of an order ID (`ord_42` -> 42), undefined for anything else. */
function orderNumber(id: string): number | undefined {
  const match = /^ord_(\d+)$/.exec(id)
  return match ? Number(match[1]) : undefined
}

export class Orders extends Resource {
  /** CSV imports of orders (docs/imports.md). */
  readonly imports: OrderImports

  constructor(transport: Transport) {
    super(transport)
    this.imports = new OrderImports(transport)
  }

  /**
   * `POST /v4.0/orders`. The answer's `outcome` is `Created` (with the order), `OnHold` (the account's pause window:
   * only `order.id`) or `AlreadyExists` (an earlier order with the same idempotency key).
   */
  async create(order: CreateOrderRequest, options: CreateOrderOptions = {}): Promise<CreateOrderResponse> {
    const { idempotencyKey, ...requestOptions } = options
    if (idempotencyKey !== undefined && order.idempotencyKey != null && order.idempotencyKey !== idempotencyKey) {
      throw new TypeError('the order and the options carry different idempotency keys')
    }
    const key = idempotencyKey ?? order.idempotencyKey ?? undefined
    const body: CreateOrderRequest = key === undefined ? order : { ...order, idempotencyKey: key }
    return this.transport.request({
      method: 'POST',
      path: '/orders',
      body,
      // Without a key a repeated create could make a second order, so only a keyed create is retried.
      retryable: typeof key === 'string' && key !== '',
      keyInBody: true,
      options: requestOptions,
    })
  }

  /** `GET /v4.0/orders/{id}`: the order (404 `EntityNotFound` for an unknown one or one on hold). */
  async get(orderId: string, options?: RequestOptions): Promise<Order> {
    const answer = await this.transport.request<GetOrderResponse>(read(`/orders/${segment(orderId)}`, {}, options))
    return answer.order
  }

  /**
   * `GET /v4.0/orders/{id}/preflight` (printroute's): each asset's preflight, `Pending` until downloaded, then its
   * report (checks, fixes) and the print area's guide lines.
   */
  async preflight(orderId: string, options?: RequestOptions): Promise<OrderAssetPreflight[]> {
    const answer = await this.transport.request<{ preflight: OrderAssetPreflight[] }>(
      read(`/orders/${segment(orderId)}/preflight`, {}, options),
    )
    return answer.preflight
  }

  /** One page of `GET /v4.0/orders`, newest first: `orders`, `hasMore`, `nextUrl`. */
  list(filters: OrderListFilters = {}, options?: RequestOptions): Promise<OrderPage> {
    return this.transport.request(read('/orders', filters, options))
  }

  /**
   * Every order matching the filters, newest first, page after page (`top` is the page size, default 100; `skip`
   * where to start). Orders created while it walks are not included, and none is yielded twice.
   */
  async *iterate(filters: OrderListFilters = {}, options?: RequestOptions): AsyncGenerator<ListedOrder, void> {
    const top = filters.top ?? 100
    let skip = filters.skip ?? 0
    // Pages are by offset, newest first: orders created during the walk push older ones onto the next page.
    // IDs grow with creation, so anything not older than the last order yielded has been seen (or is new).
    let oldestYielded: number | undefined
    for (;;) {
      const page = await this.list({ ...filters, top, skip }, options)
      for (const order of page.orders) {
        const number = orderNumber(order.id)
        if (number !== undefined && oldestYielded !== undefined && number >= oldestYielded) continue
        if (number !== undefined) oldestYielded = number
        yield order
      }
      if (!page.hasMore || page.orders.length === 0) return
      skip += page.orders.length
    }
  }

  /** `GET /v4.0/orders/{id}/routing`: how the order's items were (or, before allocation, would be) routed. */
  async routing(orderId: string, options?: RequestOptions): Promise<Routing> {
    const answer = await this.transport.request<{ routing: Routing }>(
      read(`/orders/${segment(orderId)}/routing`, {}, options),
    )
    return answer.routing
  }

  /**
   * `GET /v4.0/orders/{id}/invoices`: the order's invoices and credit notes, one per charge, each with a signed
   * `pdfUrl` that works without a key until it expires (list again for a fresh one).
   */
  async invoices(orderId: string, options?: RequestOptions): Promise<Invoice[]> {
    const answer = await this.transport.request<{ invoices: Invoice[] }>(
      read(`/orders/${segment(orderId)}/invoices`, {}, options),
    )
    return answer.invoices
  }

  /** `GET /v4.0/orders/{id}/actions`: which actions are available now. */
  actions(orderId: string, options?: RequestOptions): Promise<OrderActions> {
    return this.transport.request(read(`/orders/${segment(orderId)}/actions`, {}, options))
  }

  /**
   * Cancels every shipment not yet with its lab: `Cancelled`, `FailedToCancel` or `ActionNotAvailable` (HTTP 200
   * all three). Retried like a read: a second cancel changes nothing, and the retry's `Idempotency-Key` gets it
   * the first attempt's answer (without the key it would be `ActionNotAvailable`: the order is already cancelled).
   */
  cancel(orderId: string, options?: RequestOptions): Promise<CancelOrderResponse> {
    return this.transport.request(action(orderId, 'cancel', undefined, options))
  }

  /** `Updated`, `PartiallyUpdated`, `FailedToUpdate` or `ActionNotAvailable`; the method in any letter case. */
  updateShippingMethod(
    orderId: string,
    shippingMethod: UpdateShippingMethodRequest['shippingMethod'],
    options?: RequestOptions,
  ): Promise<UpdateShippingMethodResponse> {
    return this.transport.request(action(orderId, 'updateShippingMethod', { shippingMethod }, options))
  }

  /** Replaces the recipient (same checks as create; the country cannot change). Outcomes as for the method. */
  updateRecipient(orderId: string, recipient: Recipient, options?: RequestOptions): Promise<UpdateRecipientResponse> {
    return this.transport.request(action(orderId, 'updateRecipient', recipient, options))
  }

  /** Replaces the metadata, in every state: `Updated`. */
  updateMetadata(orderId: string, metadata: Metadata, options?: RequestOptions): Promise<UpdateMetadataResponse> {
    return this.transport.request(action(orderId, 'updateMetadata', { metadata }, options))
  }

  /**
   * printroute's own: gives the asset on `printArea` of item `itemId` (`ori_...`) a new file until the order is
   * allocated to labs (a file held by PreflightFailed or that failed to download too): `Updated`, else
   * `ActionNotAvailable`. Retried
   * like the other actions: the retry's `Idempotency-Key` gets the first answer.
   */
  replaceAsset(orderId: string, request: ReplaceAssetRequest, options?: RequestOptions): Promise<ReplaceAssetResponse> {
    return this.transport.request(action(orderId, 'replaceAsset', request, options))
  }

  /**
   * printroute's own: confirms a draft (created with `draft: true`), which then starts as a new order would, or
   * releases a held order's hold (`holdUntil`) early: `Confirmed` (again for a repeat: nothing starts twice),
   * `OnHold` (only the order id: confirmed in the account's pause window) or `ActionNotAvailable`. Retried like
   * cancel.
   */
  confirm(orderId: string, options?: RequestOptions): Promise<ConfirmOrderResponse> {
    return this.transport.request(action(orderId, 'confirm', undefined, options))
  }
}

export class Quotes extends Resource {
  /**
   * `POST /v4.0/quotes`: one quote per shipping method, each with an `id` an order can name as `quoteId` until
   * `expiresAt`. A retry only stores more quotes, so it is retried.
   */
  create(request: QuoteRequest, options?: RequestOptions): Promise<QuoteResponse> {
    return this.transport.request({ method: 'POST', path: '/quotes', body: request, retryable: true, options })
  }

  /** `GET /v4.0/quotes/{id}/routing`: how the quote's items were routed when it was made. */
  async routing(quoteId: string, options?: RequestOptions): Promise<Routing> {
    const answer = await this.transport.request<{ routing: Routing }>(
      read(`/quotes/${segment(quoteId)}/routing`, {}, options),
    )
    return answer.routing
  }
}

export class Previews extends Resource {
  /**
   * `POST /v4.0/previews`: per asset, a reduced print file and a product mockup (links valid 24 hours), the crop,
   * the effective DPI and LowResolution warnings. Creates no order, so it is retried.
   */
  create(request: PreviewRequest, options?: RequestOptions): Promise<PreviewResponse> {
    return this.transport.request({ method: 'POST', path: '/previews', body: request, retryable: true, options })
  }
}

export class Preflights extends Resource {
  /**
   * `POST /v4.0/files/preflight`: downloads the file and answers the preflight, `Pending`; `get` it until its
   * status is `Passed`, `PassedWithWarnings` or `Failed`. Each call makes a new preflight and orders nothing, so
   * it is retried.
   */
  async create(request: PreflightRequest, options?: RequestOptions): Promise<Preflight> {
    const answer = await this.transport.request<{ preflight: Preflight }>({
      method: 'POST',
      path: '/files/preflight',
      body: request,
      retryable: true,
      options,
    })
    return answer.preflight
  }

  /** `GET /v4.0/files/preflight/{id}`: the status and, once inspected, the report (404 after its 7 days). */
  async get(preflightId: string, options?: RequestOptions): Promise<Preflight> {
    const answer = await this.transport.request<{ preflight: Preflight }>(
      read(`/files/preflight/${segment(preflightId)}`, {}, options),
    )
    return answer.preflight
  }
}

export class Products extends Resource {
  /** `GET /v4.0/products/{sku}` (any letter case; 404 `EntityNotFound` when unknown). */
  async get(sku: string, options?: RequestOptions): Promise<Product> {
    const answer = await this.transport.request<{ product: Product }>(read(`/products/${segment(sku)}`, {}, options))
    return answer.product
  }

  /** One page of the catalogue's products (printroute's addition): `search`, `top`, `skip`. */
  list(filters: ProductListFilters = {}, options?: RequestOptions): Promise<ProductPage> {
    return this.transport.request(read('/products', filters, options))
  }

  /**
   * `GET /v4.0/products/{sku}/cover-dimensions` (printroute's): a book's full-spread cover for `pageCount` pages,
   * in `unit` (mm by default); the spine from `labCode`'s paper, or the lab allocation picks for
   * `destinationCountryCode`. 400 `ValidationFailed` for a product without a cover or a page count out of range.
   */
  async coverDimensions(sku: string, query: CoverDimensionsQuery, options?: RequestOptions): Promise<CoverDimensions> {
    const answer = await this.transport.request<{ coverDimensions: CoverDimensions }>(
      read(`/products/${segment(sku)}/cover-dimensions`, query, options),
    )
    return answer.coverDimensions
  }

  /** `POST /v4.0/products/spine`: a book's spine width; read-only, so retried. */
  spine(request: SpineRequest, options?: RequestOptions): Promise<SpineResponse> {
    return this.transport.request({ method: 'POST', path: '/products/spine', body: request, retryable: true, options })
  }
}

export class Countries extends Resource {
  /** `GET /v4.0/countries`: every country's address rules and whether the catalogue ships there (printroute's). */
  async list(options?: RequestOptions): Promise<CountrySummary[]> {
    const answer = await this.transport.request<{ countries: CountrySummary[] }>(read('/countries', {}, options))
    return answer.countries
  }

  /** `GET /v4.0/countries/{code}` (any letter case) with its subdivisions; 404 `EntityNotFound` for no country. */
  async get(countryCode: string, options?: RequestOptions): Promise<Country> {
    const answer = await this.transport.request<{ country: Country }>(
      read(`/countries/${segment(countryCode)}`, {}, options),
    )
    return answer.country
  }
}

export class Addresses extends Resource {
  /**
   * `POST /v4.0/addresses/validate`: the address's problems and its normal form (`valid` is false when there are
   * problems: the answer is `Ok` either way). Changes nothing, so it is retried.
   */
  validate(request: ValidateAddressRequest, options?: RequestOptions): Promise<ValidateAddressResponse> {
    return this.transport.request({
      method: 'POST',
      path: '/addresses/validate',
      body: request,
      retryable: true,
      options,
    })
  }
}

export class Events extends Resource {
  /**
   * One page of the events feed, oldest first, after the cursor `after` (an event id; absent: from the first).
   * Poll again with `after: page.nextCursor`.
   */
  list(filters: EventListFilters = {}, options?: RequestOptions): Promise<EventPage> {
    return this.transport.request(read('/events', filters, options))
  }

  /** Every event after `after`, page after page, until the feed has no more right now. */
  async *iterate(
    filters: EventListFilters = {},
    options?: RequestOptions,
  ): AsyncGenerator<EventPage['events'][number], void> {
    let after = filters.after
    for (;;) {
      const page = await this.list({ ...filters, ...(after === undefined ? {} : { after }) }, options)
      yield* page.events
      if (!page.hasMore || page.events.length === 0 || page.nextCursor === null) return
      after = page.nextCursor
    }
  }
}

export class Callbacks extends Resource {
  /** Callback deliveries with their attempts, newest first: `orderId`, `status`, `top`, `skip`. */
  list(filters: CallbackListFilters = {}, options?: RequestOptions): Promise<CallbackPage> {
    return this.transport.request(read('/callbacks', filters, options))
  }

  /** Sends a delivery's event again as a new delivery. Not retried: each call makes a delivery. */
  redeliver(callbackId: string, options?: RequestOptions): Promise<RedeliverResponse> {
    return this.transport.request({
      method: 'POST',
      path: `/callbacks/${segment(callbackId)}/redeliver`,
      retryable: false,
      options,
    })
  }
}

export class Webhooks extends Resource {
  /** `GET /v4.0/webhooks`: the environment's endpoints, oldest first. */
  async list(options?: RequestOptions): Promise<Webhook[]> {
    const answer = await this.transport.request<{ webhooks: Webhook[] }>(read('/webhooks', {}, options))
    return answer.webhooks
  }

  /** `GET /v4.0/webhooks/{id}` (404 `EntityNotFound` for another environment's or a deleted one). */
  async get(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    const answer = await this.transport.request<{ webhook: Webhook }>(
      read(`/webhooks/${segment(webhookId)}`, {}, options),
    )
    return answer.webhook
  }

  /**
   * `POST /v4.0/webhooks`: a new endpoint, with its whole `signingSecret` (shown only in this answer: store it).
   * Retried with an Idempotency-Key, so a retry after a lost answer gets the same endpoint, not a second one.
   */
  create(request: CreateWebhookRequest, options?: RequestOptions): Promise<CreateWebhookResponse> {
    return this.transport.request({ method: 'POST', path: '/webhooks', body: request, retryable: true, options })
  }

  /**
   * `PATCH /v4.0/webhooks/{id}`: fields left out stay as they are. Retried unless it rotates the secret (a repeated
   * rotation would replace the secret the first one answered with).
   */
  update(webhookId: string, change: UpdateWebhookRequest, options?: RequestOptions): Promise<UpdateWebhookResponse> {
    return this.transport.request({
      method: 'PATCH',
      path: `/webhooks/${segment(webhookId)}`,
      body: change,
      retryable: change.rotateSigningSecret !== true,
      options,
    })
  }

  /** `DELETE /v4.0/webhooks/{id}`: the deleted endpoint. Not retried (a repeat would answer 404). */
  async delete(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    const answer = await this.transport.request<{ webhook: Webhook }>({
      method: 'DELETE',
      path: `/webhooks/${segment(webhookId)}`,
      retryable: false,
      options,
    })
    return answer.webhook
  }

  /**
   * `POST /v4.0/webhooks/{id}/test`: a test callback sent now to the endpoint, signed with its secret, and its
   * delivery. Retried with an Idempotency-Key (a retry is answered as the first attempt was, not sent again).
   */
  test(webhookId: string, options?: RequestOptions): Promise<WebhookTestResponse> {
    return this.transport.request({
      method: 'POST',
      path: `/webhooks/${segment(webhookId)}/test`,
      retryable: true,
      options,
    })
  }

  /**
   * `POST /v4.0/webhooks/{id}/redeliver-missed`: sends an enabled endpoint every event it missed since `since`
   * (absent: where it began to miss them), at most `limit` (10,000) a call; while `hasMore`, call again with
   * `since: answer.nextSince`. Retried: an event already sent again is not sent a third time.
   */
  redeliverMissed(
    webhookId: string,
    request: RedeliverMissedRequest = {},
    options?: RequestOptions,
  ): Promise<RedeliverMissedResponse> {
    return this.transport.request({
      method: 'POST',
      path: `/webhooks/${segment(webhookId)}/redeliver-missed`,
      body: request,
      retryable: true,
      options,
    })
  }
}

export class Sandbox extends Resource {
  /** `GET /v4.0/sandbox/orders/{id}`: the order's scenario and why a plain advance would be refused (or null). */
  async getOrder(orderId: string, options?: RequestOptions): Promise<SandboxOrder> {
    const answer = await this.transport.request<{ sandboxOrder: SandboxOrder }>(
      read(`/sandbox/orders/${segment(orderId)}`, {}, options),
    )
    return answer.sandboxOrder
  }

  /**
   * `POST /v4.0/sandbox/orders/{id}/advance`: one lab step on (no `to`), or to `InProduction`, `Shipped`,
   * `Complete` or `Delivered`; answers `Updated` or, when the order is already there, `Ok`, with the order. With `to` it is
   * idempotent and retried; a plain step is not (each call moves the order on).
   */
  advanceOrder(
    orderId: string,
    { to, ...options }: RequestOptions & { to?: AdvanceTarget } = {},
  ): Promise<AdvanceOrderResponse> {
    return this.transport.request({
      method: 'POST',
      path: `/sandbox/orders/${segment(orderId)}/advance`,
      body: to === undefined ? {} : { to },
      retryable: to !== undefined,
      options,
    })
  }
}

export interface UploadOrderImportOptions extends RequestOptions {
  /** automatic (default): each order is created at once; manual: each is created as a draft to confirm. */
  approval?: CreateOrderImportQuery['approval']
  /** The file's name, shown in the imports list. */
  fileName?: string
}

export class OrderImports extends Resource {
  /**
   * `POST /v4.0/orders/imports`: the CSV file (UTF-8, at most 20 MiB) as the body; answers the import at once,
   * `Pending` (`get` it until `Completed` or `Failed`). Retried with an Idempotency-Key, and every order is created
   * with a key from its merchantReference, so even uploading the file again creates no order twice.
   */
  async upload(csv: string | Uint8Array, options: UploadOrderImportOptions = {}): Promise<OrderImport> {
    const { approval, fileName, ...requestOptions } = options
    const answer = await this.transport.request<CreateOrderImportResponse>({
      method: 'POST',
      path: '/orders/imports',
      query: { approval, fileName },
      rawBody: { data: csv, contentType: 'text/csv; charset=utf-8' },
      retryable: true,
      options: requestOptions,
    })
    return answer.import
  }

  /** `GET /v4.0/orders/imports/{id}`: the import's status and counts. */
  async get(importId: string, options?: RequestOptions): Promise<OrderImport> {
    const answer = await this.transport.request<{ import: OrderImport }>(
      read(`/orders/imports/${segment(importId)}`, {}, options),
    )
    return answer.import
  }

  /** One page of the account's imports, newest first: `imports`, `hasMore`, `nextUrl` (`before` continues). */
  list(filters: OrderImportListFilters = {}, options?: RequestOptions): Promise<OrderImportPage> {
    return this.transport.request(read('/orders/imports', filters, options))
  }

  /** `GET /v4.0/orders/imports/{id}/results.csv`: one line per row read so far (outcome, orderId, errors). */
  results(importId: string, options?: RequestOptions): Promise<string> {
    return this.transport.request({
      ...read(`/orders/imports/${segment(importId)}/results.csv`, {}, options),
      answer: 'text',
    })
  }

  /** `GET /v4.0/orders/imports/template.csv`: every column an import takes, with an example order. */
  template(options?: RequestOptions): Promise<string> {
    return this.transport.request({ ...read('/orders/imports/template.csv', {}, options), answer: 'text' })
  }
}

export class Claims extends Resource {
  /** `GET /v4.0/claims/categories`: the categories and their rules. */
  async categories(options?: RequestOptions): Promise<ClaimCategory[]> {
    const answer = await this.transport.request<{ categories: ClaimCategory[] }>(
      read('/claims/categories', {}, options),
    )
    return answer.categories
  }

  /**
   * `POST /v4.0/claims/evidence`: a photo (JPEG or PNG, at most 10 MiB) as the body; name the answer's `id` (evd_)
   * in a claim within a day. Retried with an Idempotency-Key: a retry gets the first upload's answer.
   */
  async uploadEvidence(
    image: Uint8Array,
    contentType: 'image/jpeg' | 'image/png',
    options?: RequestOptions,
  ): Promise<ClaimEvidence> {
    const answer = await this.transport.request<{ evidence: ClaimEvidence }>({
      method: 'POST',
      path: '/claims/evidence',
      rawBody: { data: image, contentType },
      retryable: true,
      options,
    })
    return answer.evidence
  }

  /**
   * `POST /v4.0/orders/{id}/claims`: a claim about shipped items (with their photos) or a missing parcel; answers it
   * `Pending`. Retried with an Idempotency-Key, so a retry after a lost answer does not make a second claim.
   */
  async create(orderId: string, claim: CreateClaimRequest, options?: RequestOptions): Promise<Claim> {
    const answer = await this.transport.request<{ claim: Claim }>({
      method: 'POST',
      path: `/orders/${segment(orderId)}/claims`,
      body: claim,
      retryable: true,
      options,
    })
    return answer.claim
  }

  /** One page of the account's claims, newest first: `status`, `orderId`, `createdFrom`, `createdTo`, `before`, `top`. */
  list(filters: ClaimListFilters = {}, options?: RequestOptions): Promise<ClaimPage> {
    return this.transport.request(read('/claims', filters, options))
  }

  /** Every claim matching the filters, newest first, page after page (following each page's `before` cursor). */
  async *iterate(filters: ClaimListFilters = {}, options?: RequestOptions): AsyncGenerator<Claim, void> {
    let before = filters.before
    for (;;) {
      const page = await this.list({ ...filters, ...(before === undefined ? {} : { before }) }, options)
      yield* page.claims
      // The cursor is the one the server put in nextUrl (a relative or absolute URL).
      const next =
        page.nextUrl === null ? null : new URL(page.nextUrl, this.transport.baseUrl).searchParams.get('before')
      if (!page.hasMore || page.claims.length === 0 || next === null) return
      before = next
    }
  }

  /** `GET /v4.0/claims/{id}` (404 `EntityNotFound` for another account's). */
  async get(claimId: string, options?: RequestOptions): Promise<Claim> {
    const answer = await this.transport.request<{ claim: Claim }>(read(`/claims/${segment(claimId)}`, {}, options))
    return answer.claim
  }

  /**
   * `POST /v4.0/claims/{id}/retract`: withdraws a Pending claim (400 on `status` for any other). Retried with an
   * Idempotency-Key, so a retry after a lost answer gets the first answer, not a refusal.
   */
  async retract(claimId: string, options?: RequestOptions): Promise<Claim> {
    const answer = await this.transport.request<{ claim: Claim }>({
      method: 'POST',
      path: `/claims/${segment(claimId)}/retract`,
      retryable: true,
      options,
    })
    return answer.claim
  }
}

export class ChannelLinks extends Resource {
  /** `POST /v4.0/channels/{id}/links`: a store variant or SKU linked to a product (or ignored). Retried with a key. */
  async create(channelId: string, link: CreateChannelLinkRequest, options?: RequestOptions): Promise<ChannelLink> {
    const answer = await this.transport.request<{ link: ChannelLink }>({
      method: 'POST',
      path: `/channels/${segment(channelId)}/links`,
      body: link,
      retryable: true,
      options,
    })
    return answer.link
  }

  /** `GET /v4.0/channels/{id}/links`: the channel's links. */
  async list(channelId: string, options?: RequestOptions): Promise<ChannelLink[]> {
    const answer = await this.transport.request<{ links: ChannelLink[] }>(
      read(`/channels/${segment(channelId)}/links`, {}, options),
    )
    return answer.links
  }

  /** `DELETE /v4.0/channels/{id}/links/{linkId}`: `outcome: 'Deleted'`. Not retried (a repeat would answer 404). */
  delete(channelId: string, linkId: string, options?: RequestOptions): Promise<DeletedChannelLinkResponse> {
    return this.transport.request({
      method: 'DELETE',
      path: `/channels/${segment(channelId)}/links/${segment(linkId)}`,
      retryable: false,
      options,
    })
  }
}

export class ChannelFulfilments extends Resource {
  /**
   * `GET /v4.0/channels/{id}/fulfilments`: one page of the shipments told to the store, newest first, each with its
   * attempts: `fulfilments`, `hasMore`, `nextUrl` (`before` continues).
   */
  list(
    channelId: string,
    filters: ChannelFulfilmentListFilters = {},
    options?: RequestOptions,
  ): Promise<ChannelFulfilmentPage> {
    return this.transport.request(read(`/channels/${segment(channelId)}/fulfilments`, filters, options))
  }

  /**
   * `POST /v4.0/channels/{id}/fulfilments/{fulfilmentId}/retry`: a fulfilment not yet delivered tried again now (one
   * already delivered is 400 naming fulfilmentId). Retried: it makes the same attempt due, which runs once.
   */
  async retry(channelId: string, fulfilmentId: string, options?: RequestOptions): Promise<ChannelFulfilment> {
    const answer = await this.transport.request<{ fulfilment: ChannelFulfilment }>({
      method: 'POST',
      path: `/channels/${segment(channelId)}/fulfilments/${segment(fulfilmentId)}/retry`,
      retryable: true,
      options,
    })
    return answer.fulfilment
  }
}

export class Channels extends Resource {
  readonly links: ChannelLinks
  readonly fulfilments: ChannelFulfilments

  constructor(transport: Transport) {
    super(transport)
    this.links = new ChannelLinks(transport)
    this.fulfilments = new ChannelFulfilments(transport)
  }

  /** `POST /v4.0/channels`: the channel with its `webhookUrl` (the token and secret are never shown again). */
  async create(channel: CreateChannelRequest, options?: RequestOptions): Promise<Channel> {
    const answer = await this.transport.request<{ channel: Channel }>({
      method: 'POST',
      path: '/channels',
      body: channel,
      retryable: true,
      options,
    })
    return answer.channel
  }

  /** `GET /v4.0/channels`: the environment's channels, oldest first. */
  async list(options?: RequestOptions): Promise<Channel[]> {
    const answer = await this.transport.request<{ channels: Channel[] }>(read('/channels', {}, options))
    return answer.channels
  }

  /** `GET /v4.0/channels/{id}`. */
  async get(channelId: string, options?: RequestOptions): Promise<Channel> {
    const answer = await this.transport.request<{ channel: Channel }>(
      read(`/channels/${segment(channelId)}`, {}, options),
    )
    return answer.channel
  }

  /** `PATCH /v4.0/channels/{id}`: fields left out stay as they are. Retried: it sets the fields it names. */
  update(channelId: string, change: UpdateChannelRequest, options?: RequestOptions): Promise<UpdateChannelResponse> {
    return this.transport.request({
      method: 'PATCH',
      path: `/channels/${segment(channelId)}`,
      body: change,
      retryable: true,
      options,
    })
  }

  /** `DELETE /v4.0/channels/{id}`: the deleted channel. Not retried (a repeat would answer 404). */
  async delete(channelId: string, options?: RequestOptions): Promise<Channel> {
    const answer = await this.transport.request<{ channel: Channel }>({
      method: 'DELETE',
      path: `/channels/${segment(channelId)}`,
      retryable: false,
      options,
    })
    return answer.channel
  }

  /** `GET /v4.0/channels/{id}/pending`: the store orders waiting for links or approval. */
  async pending(channelId: string, options?: RequestOptions): Promise<ChannelPendingOrder[]> {
    const answer = await this.transport.request<{ orders: ChannelPendingOrder[] }>(
      read(`/channels/${segment(channelId)}/pending`, {}, options),
    )
    return answer.orders
  }

  /** `GET /v4.0/channels/{id}/cancellations`: the store orders the store cancelled, with what the cancel answered. */
  async cancellations(channelId: string, options?: RequestOptions): Promise<ChannelStoreCancellation[]> {
    const answer = await this.transport.request<{ cancellations: ChannelStoreCancellation[] }>(
      read(`/channels/${segment(channelId)}/cancellations`, {}, options),
    )
    return answer.cancellations
  }

  /** `POST /v4.0/channels/{id}/pending/{externalOrderId}/release`: the waiting order created. Retried with a key. */
  release(channelId: string, externalOrderId: string, options?: RequestOptions): Promise<ReleaseChannelOrderResponse> {
    return this.transport.request({
      method: 'POST',
      path: `/channels/${segment(channelId)}/pending/${segment(externalOrderId)}/release`,
      retryable: true,
      options,
    })
  }
}

function read(path: string, query: object, options: RequestOptions | undefined): Call {
  return { method: 'GET', path, query: query as Record<string, unknown>, retryable: true, options }
}

/**
 * An order action. Each sets the order to a state (cancelled, this method, this recipient, this metadata), so
 * sending it twice ends where sending it once does: actions are retried.
 */
function action(orderId: string, name: string, body: unknown, options: RequestOptions | undefined): Call {
  return { method: 'POST', path: `/orders/${segment(orderId)}/actions/${name}`, body, retryable: true, options }
}

export class TopUps extends Resource {
  /**
   * `POST /v4.0/account/top-ups` (Live key, prepaid account): `{amount}` -> the top-up with its `url`, where the
   * payer pays it by card (given once). Retried with one Idempotency-Key, so a retry asks for one top-up.
   */
  create(request: CreateTopUpRequest, options?: RequestOptions): Promise<CreateTopUpResponse> {
    return this.transport.request({ method: 'POST', path: '/account/top-ups', body: request, retryable: true, options })
  }

  /** `GET /v4.0/account/top-ups/{id}`: the top-up and its status (`open`, `succeeded`, `expired`, `failed`). */
  async get(topUpId: string, options?: RequestOptions): Promise<TopUp> {
    const answer = await this.transport.request<{ topUp: TopUp }>(
      read(`/account/top-ups/${segment(topUpId)}`, {}, options),
    )
    return answer.topUp
  }
}
