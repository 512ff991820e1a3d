// printroute-client: a typed client for printroute's Print API v4.0 (fetch only: Node >= 20 and browsers).
export {
  Addresses,
  Callbacks,
  ChannelFulfilments,
  ChannelLinks,
  Channels,
  Claims,
  Countries,
  type CreateOrderOptions,
  Events,
  OrderImports,
  Orders,
  Preflights,
  Previews,
  PrintrouteClient,
  type PrintrouteClientOptions,
  Products,
  Quotes,
  TopUps,
  type UploadOrderImportOptions,
  Webhooks,
} from './client.ts'
export { CallbackVerificationError, PrintrouteConnectionError, PrintrouteError } from './errors.ts'
export type { components, paths } from './openapi.ts'
export type { RequestOptions } from './transport.ts'
export type * from './types.ts'
export {
  type CallbackHeaders,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyCallbackOptions,
  verifyCallback,
} from './verify-callback.ts'
