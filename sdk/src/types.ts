// Friendly names for the API's bodies. Every type here is derived from `paths` in the generated openapi.ts
// (request bodies, query parameters and 200 answers of each endpoint), not from named component schemas, so the
// names survive the document reorganising its components; regenerate with `npm run sdk:generate`.
// The few types the document does not describe (the CloudEvent payloads of callbacks and the events feed) are
// written by hand below, from docs/callbacks.md.
import type { paths } from './openapi.ts'

type JsonContent<Part> = Part extends { content: { 'application/json': infer Body } } ? Body : never
/** The JSON request body of an operation. */
type RequestBodyOf<Operation> = Operation extends { requestBody?: infer Body } ? JsonContent<NonNullable<Body>> : never
/** The JSON body of an operation's 200 answer. */
type OkBodyOf<Operation> = Operation extends { responses: { 200: infer Answer } } ? JsonContent<Answer> : never
/** An operation's query parameters. */
/** The body of a 201 answer (what creates answer). */
type CreatedBodyOf<Operation> = Operation extends { responses: { 201: infer Answer } } ? JsonContent<Answer> : never

type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never

type OrdersPath = paths['/v4.0/orders']
type OrderPath = paths['/v4.0/orders/{orderId}']

// Orders

export type CreateOrderRequest = RequestBodyOf<OrdersPath['post']>
/** `Created` with the whole order, `OnHold` (only `order.id` is set), or `AlreadyExists` (same idempotency key). */
export type CreateOrderResponse = OkBodyOf<OrdersPath['post']>
export type GetOrderResponse = OkBodyOf<OrderPath['get']>
export type Order = GetOrderResponse['order']
export type OrderItem = Order['items'][number]
export type Charge = Order['charges'][number]
export type Shipment = Order['shipments'][number]
export type ShippingMethod = Order['shippingMethod']
export type OrderStage = Order['status']['stage']
/** The recipient as an order or `updateRecipient` takes it. */
export type Recipient = CreateOrderRequest['recipient']
export type Address = Recipient['address']
export type Metadata = NonNullable<CreateOrderRequest['metadata']>

export type OrderListFilters = QueryOf<OrdersPath['get']>
/** One page of `GET /v4.0/orders`: `orders`, `hasMore`, `nextUrl`. */
export type OrderPage = OkBodyOf<OrdersPath['get']>

// Order actions

export type OrderActions = OkBodyOf<paths['/v4.0/orders/{orderId}/actions']['get']>
export type CancelOrderResponse = OkBodyOf<paths['/v4.0/orders/{orderId}/actions/cancel']['post']>
export type UpdateShippingMethodRequest = RequestBodyOf<
  paths['/v4.0/orders/{orderId}/actions/updateShippingMethod']['post']
>
export type UpdateShippingMethodResponse = OkBodyOf<
  paths['/v4.0/orders/{orderId}/actions/updateShippingMethod']['post']
>
export type UpdateRecipientResponse = OkBodyOf<paths['/v4.0/orders/{orderId}/actions/updateRecipient']['post']>
export type UpdateMetadataResponse = OkBodyOf<paths['/v4.0/orders/{orderId}/actions/updateMetadata']['post']>
export type ReplaceAssetRequest = RequestBodyOf<paths['/v4.0/orders/{orderId}/actions/replaceAsset']['post']>
export type ReplaceAssetResponse = OkBodyOf<paths['/v4.0/orders/{orderId}/actions/replaceAsset']['post']>
export type ConfirmOrderResponse = OkBodyOf<paths['/v4.0/orders/{orderId}/actions/confirm']['post']>

// Quotes, products

export type QuoteRequest = RequestBodyOf<paths['/v4.0/quotes']['post']>
export type QuoteResponse = OkBodyOf<paths['/v4.0/quotes']['post']>
/** One quote of an answer: one per shipping method; its `id` as an order's `quoteId` locks its prices. */
export type Quote = QuoteResponse['quotes'][number]

/** A LowResolution warning of a quote whose assets carry URLs (`warnings`, printroute's addition). */
export type QuoteWarning = NonNullable<QuoteResponse['warnings']>[number]

// Previews

export type PreviewRequest = RequestBodyOf<paths['/v4.0/previews']['post']>
export type PreviewResponse = OkBodyOf<paths['/v4.0/previews']['post']>
/** One asset's preview: links to the reduced print file and the mockup, the crop, the effective DPI, warnings. */
export type Preview = PreviewResponse['previews'][number]
export type ResolutionWarning = Preview['warnings'][number]

// Preflight (printroute's addition)

export type PreflightRequest = RequestBodyOf<paths['/v4.0/files/preflight']['post']>
/** A file checked against a product: Pending, Running, then Passed, PassedWithWarnings or Failed, with its report. */
export type Preflight = OkBodyOf<paths['/v4.0/files/preflight']['post']>['preflight']
export type PreflightCheck = Preflight['checks'][number]
/** Each asset of an order with its preflight (Pending until downloaded) and its print area's guide lines. */
export type OrderAssetPreflight = OkBodyOf<paths['/v4.0/orders/{orderId}/preflight']['get']>['preflight'][number]

// Invoices and credit notes of an order
/** One invoice or credit note: its number (the charge's prodigiInvoiceNumber), totals and a signed PDF link. */
export type Invoice = OkBodyOf<paths['/v4.0/orders/{orderId}/invoices']['get']>['invoices'][number]

// Routing explanations

/** How an order's or a quote's items were allocated to labs (`GET /v4.0/orders/{id}/routing`). */
export type Routing = OkBodyOf<paths['/v4.0/orders/{orderId}/routing']['get']>['routing']
/** One allocation of a routing: the labs per item, the chosen plan, the best unsplit plan, the saving. */
export type RoutingAllocation = Routing['allocations'][number]

export type Product = OkBodyOf<paths['/v4.0/products/{sku}']['get']>['product']
export type ProductListFilters = QueryOf<paths['/v4.0/products']['get']>
export type CoverDimensionsQuery = QueryOf<paths['/v4.0/products/{sku}/cover-dimensions']['get']>
export type CoverDimensions = OkBodyOf<paths['/v4.0/products/{sku}/cover-dimensions']['get']>['coverDimensions']
export type ProductPage = OkBodyOf<paths['/v4.0/products']['get']>
export type SpineRequest = RequestBodyOf<paths['/v4.0/products/spine']['post']>
export type SpineResponse = OkBodyOf<paths['/v4.0/products/spine']['post']>
export type CountrySummary = OkBodyOf<paths['/v4.0/countries']['get']>['countries'][number]
export type Country = OkBodyOf<paths['/v4.0/countries/{countryCode}']['get']>['country']
export type ValidateAddressRequest = RequestBodyOf<paths['/v4.0/addresses/validate']['post']>
export type ValidateAddressResponse = OkBodyOf<paths['/v4.0/addresses/validate']['post']>

// Callbacks and the events feed

export type CallbackListFilters = QueryOf<paths['/v4.0/callbacks']['get']>
export type CallbackPage = OkBodyOf<paths['/v4.0/callbacks']['get']>
export type CallbackDelivery = CallbackPage['callbacks'][number]
export type RedeliverResponse = OkBodyOf<paths['/v4.0/callbacks/{callbackId}/redeliver']['post']>
export type RedeliverMissedRequest = RequestBodyOf<paths['/v4.0/webhooks/{webhookId}/redeliver-missed']['post']>
export type RedeliverMissedResponse = OkBodyOf<paths['/v4.0/webhooks/{webhookId}/redeliver-missed']['post']>

export type EventListFilters = QueryOf<paths['/v4.0/events']['get']>
/** One page of the events feed, with the events typed (the document describes them only as objects). */
export type EventPage = Omit<OkBodyOf<paths['/v4.0/events']['get']>, 'events'> & { events: CallbackEvent[] }

/**
 * An order event: the CloudEvent (JSON format, CloudEvents 1.0) that a callback POSTs and the events feed lists.
 * Written by hand: the OpenAPI document does not describe the payload.
 */
export interface CallbackEvent {
  specversion: '1.0'
  /** `com.<vendor>.order.<what changed>#<new value>`, e.g. `com.printroute.order.status.stage.changed#Cancelled`. */
  type: string
  /** The order's address on the environment's API. */
  source: string
  /** The event id, `evt_<number>`: the same on every attempt; deduplicate on it. */
  id: string
  /** When the change happened (ISO-8601, UTC). */
  time: string
  datacontenttype: 'application/json'
  data: {
    /** The whole order as it stood at the change; the recipient's phone is also under `mobilePhoneNumber`. */
    order: Order & { recipient: Order['recipient'] & { mobilePhoneNumber?: string | null } }
    traceParent: string
  }
  /** The order id. */
  subject: string
  /**
   * CloudEvents sequence extension: numbers the order's events from 1 in the order the changes happened, as 19
   * zero-padded digits (`'0000000000000000003'`): compare the strings (`a.sequence < b.sequence`) to order them,
   * or read the number with `Number(event.sequence)`.
   */
  sequence: string
}

// Sandbox (docs/sandbox.md): scenarios and advancing an order; the Sandbox address only

export type AdvanceOrderRequest = NonNullable<RequestBodyOf<paths['/v4.0/sandbox/orders/{orderId}/advance']['post']>>
export type AdvanceTarget = NonNullable<AdvanceOrderRequest['to']>
export type AdvanceOrderResponse = OkBodyOf<paths['/v4.0/sandbox/orders/{orderId}/advance']['post']>
export type SandboxOrder = OkBodyOf<paths['/v4.0/sandbox/orders/{orderId}']['get']>['sandboxOrder']
export type SandboxScenario = NonNullable<SandboxOrder['scenario']>

// Errors

/** The error body every failed request carries (docs/errors.md). */
export type ErrorBody = JsonContent<OrdersPath['post']['responses'][400]>
/** The problems of a `ValidationFailed` answer, by field path (`recipient.address.countryCode`, `items[0].sku`). */
export type Failures = NonNullable<ErrorBody['failures']>
export type Failure = Failures[string][number]

// Webhook endpoints (docs/callbacks.md#webhook-endpoints)
type WebhooksPath = paths['/v4.0/webhooks']
type WebhookPath = paths['/v4.0/webhooks/{webhookId}']
export type Webhook = OkBodyOf<WebhookPath['get']>['webhook']
export type CreateWebhookRequest = RequestBodyOf<WebhooksPath['post']>
/** The new endpoint and its whole signing secret, shown only in this answer. */
export type CreateWebhookResponse = CreatedBodyOf<WebhooksPath['post']>
export type UpdateWebhookRequest = RequestBodyOf<WebhookPath['patch']>
/** The endpoint after the change, and `signingSecret` when it was rotated. */
export type UpdateWebhookResponse = OkBodyOf<WebhookPath['patch']>
export type WebhookTestResponse = OkBodyOf<paths['/v4.0/webhooks/{webhookId}/test']['post']>

// Claims (printroute's addition, docs/claims.md)

export type ClaimCategoriesResponse = OkBodyOf<paths['/v4.0/claims/categories']['get']>
/** A claim category and its rules (photos required, resolutions it allows). */
export type ClaimCategory = ClaimCategoriesResponse['categories'][number]
export type UploadEvidenceResponse = CreatedBodyOf<paths['/v4.0/claims/evidence']['post']>
/** An uploaded photo: name its `id` (evd_) in a claim within a day. */
export type ClaimEvidence = UploadEvidenceResponse['evidence']
export type CreateClaimRequest = RequestBodyOf<paths['/v4.0/orders/{orderId}/claims']['post']>
export type CreateClaimResponse = CreatedBodyOf<paths['/v4.0/orders/{orderId}/claims']['post']>
export type Claim = CreateClaimResponse['claim']
export type ClaimListFilters = QueryOf<paths['/v4.0/claims']['get']>
/** One page of `GET /v4.0/claims`: `claims`, `hasMore`, `nextUrl`. */
export type ClaimPage = OkBodyOf<paths['/v4.0/claims']['get']>
export type RetractClaimResponse = OkBodyOf<paths['/v4.0/claims/{claimId}/retract']['post']>

// Order imports (printroute's addition, docs/imports.md)

export type CreateOrderImportQuery = QueryOf<paths['/v4.0/orders/imports']['post']>
export type CreateOrderImportResponse = OkBodyOf<paths['/v4.0/orders/imports']['post']>
export type OrderImport = CreateOrderImportResponse['import']
export type OrderImportListFilters = QueryOf<paths['/v4.0/orders/imports']['get']>
/** One page of `GET /v4.0/orders/imports`: `imports`, `hasMore`, `nextUrl`. */
export type OrderImportPage = OkBodyOf<paths['/v4.0/orders/imports']['get']>

// Storefront channels (printroute's addition, docs/channels.md)

type ChannelPath = paths['/v4.0/channels/{channelId}']
export type CreateChannelRequest = RequestBodyOf<paths['/v4.0/channels']['post']>
export type Channel = CreatedBodyOf<paths['/v4.0/channels']['post']>['channel']
export type UpdateChannelRequest = RequestBodyOf<ChannelPath['patch']>
export type UpdateChannelResponse = OkBodyOf<ChannelPath['patch']>
export type CreateChannelLinkRequest = RequestBodyOf<paths['/v4.0/channels/{channelId}/links']['post']>
export type ChannelLink = OkBodyOf<paths['/v4.0/channels/{channelId}/links']['get']>['links'][number]
export type ChannelPendingOrder = OkBodyOf<paths['/v4.0/channels/{channelId}/pending']['get']>['orders'][number]
export type ChannelStoreCancellation = OkBodyOf<
  paths['/v4.0/channels/{channelId}/cancellations']['get']
>['cancellations'][number]
export type ReleaseChannelOrderResponse = CreatedBodyOf<
  paths['/v4.0/channels/{channelId}/pending/{externalOrderId}/release']['post']
>
export type DeletedChannelLinkResponse = OkBodyOf<paths['/v4.0/channels/{channelId}/links/{linkId}']['delete']>
export type ChannelFulfilmentListFilters = QueryOf<paths['/v4.0/channels/{channelId}/fulfilments']['get']>
/** One page of `GET /v4.0/channels/{id}/fulfilments`: `fulfilments`, `hasMore`, `nextUrl`. */
export type ChannelFulfilmentPage = OkBodyOf<paths['/v4.0/channels/{channelId}/fulfilments']['get']>
export type ChannelFulfilment = ChannelFulfilmentPage['fulfilments'][number]

// Top-ups of a prepaid balance (docs/api.md#top-ups).
type TopUpsPath = paths['/v4.0/account/top-ups']
export type CreateTopUpRequest = RequestBodyOf<TopUpsPath['post']>
export type CreateTopUpResponse = CreatedBodyOf<TopUpsPath['post']>
export type TopUp = OkBodyOf<paths['/v4.0/account/top-ups/{id}']['get']>['topUp']
