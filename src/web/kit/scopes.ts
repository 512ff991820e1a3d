// What the signed-in key's scopes let the dashboard offer. The dashboard does everything through the API with
// the session's key, and the API refuses a route outside the key's scopes (403 Forbidden); so a page offers only
// what its key may do, and says politely what it may not instead of showing a refusal. Every use the pages make
// of the API is named here once, with the API routes it calls: the scope is the one those routes declare
// (scopes.test.ts holds each to the route table), so no page carries a scope of its own.
import { type KeyScope, keyAllows } from '../../domain/key-scopes.ts'
import { type Html, html } from './html.ts'

/** What a key without the scope cannot do, as a page says it: "This key cannot <words> ...". */
const SCOPE_WORDS: Record<KeyScope, string> = {
  'orders:read': 'read orders',
  'orders:write': 'create or change orders',
  quotes: 'price quotes or check addresses',
  'products:read': 'read the catalogue',
  'webhooks:manage': 'see or send callbacks',
  'keys:manage': 'list, create or revoke API keys',
  'account:read': "read the account's settings, billing or activity",
  'account:manage': "change the account's settings",
}

interface DashboardUse {
  scope: KeyScope
  /** The API routes (`METHOD /v4.0/path` as registered) the dashboard calls for this use. */
  routes: readonly string[]
}

/** Every use a dashboard page makes of the API, with the routes it calls. */
export const DASHBOARD_USES = {
  /** The orders list, an order's page (with its events, print files, routing and invoices), the events feed. */
  readOrders: {
    scope: 'orders:read',
    routes: [
      'GET /v4.0/orders',
      'GET /v4.0/orders/:orderId',
      'GET /v4.0/orders/:orderId/actions',
      'GET /v4.0/orders/:orderId/print-files',
      'GET /v4.0/orders/:orderId/routing',
      'GET /v4.0/orders/:orderId/invoices',
      'GET /v4.0/events',
      'GET /v4.0/sandbox/orders/:orderId',
    ],
  },
  /** An order's actions: cancel, shipping method, recipient, metadata. */
  changeOrders: {
    scope: 'orders:write',
    routes: [
      'POST /v4.0/orders/:orderId/actions/cancel',
      'POST /v4.0/orders/:orderId/actions/updateShippingMethod',
      'POST /v4.0/orders/:orderId/actions/updateRecipient',
      'POST /v4.0/orders/:orderId/actions/updateMetadata',
    ],
  },
  /** The New order page. */
  createOrders: { scope: 'orders:write', routes: ['POST /v4.0/orders'] },
  /** The Sandbox's Advance on an order's page. */
  advanceSandboxOrders: { scope: 'orders:write', routes: ['POST /v4.0/sandbox/orders/:orderId/advance'] },
  /** The catalogue's quote calculator, and the routing of the quote an order was made with. */
  quote: { scope: 'quotes', routes: ['POST /v4.0/quotes', 'GET /v4.0/quotes/:quoteId/routing'] },
  /** The New order page's address check before it places the order. */
  checkAddresses: { scope: 'quotes', routes: ['POST /v4.0/addresses/validate'] },
  /** The catalogue, and the New order page's product picker. */
  readCatalogue: { scope: 'products:read', routes: ['GET /v4.0/products', 'GET /v4.0/products/:sku'] },
  /** The callbacks log and an order's callbacks. */
  readCallbacks: { scope: 'webhooks:manage', routes: ['GET /v4.0/callbacks'] },
  /** The Redeliver buttons. */
  redeliverCallbacks: { scope: 'webhooks:manage', routes: ['POST /v4.0/callbacks/:callbackId/redeliver'] },
  /** The Settings view's test callback. */
  testCallbacks: { scope: 'webhooks:manage', routes: ['POST /v4.0/callbacks/test'] },
  /** The webhook endpoints: the Developers pages' banner for endpoints disabled for failing. */
  readWebhooks: { scope: 'webhooks:manage', routes: ['GET /v4.0/webhooks'] },
  /**
   * The Webhooks view: the endpoints, creating, changing (enable, disable, rotate), deleting and test-sending them,
   * and redelivering what one disabled for failing missed.
   */
  manageWebhooks: {
    scope: 'webhooks:manage',
    routes: [
      'GET /v4.0/webhooks',
      'POST /v4.0/webhooks',
      'GET /v4.0/webhooks/:webhookId',
      'PATCH /v4.0/webhooks/:webhookId',
      'DELETE /v4.0/webhooks/:webhookId',
      'POST /v4.0/webhooks/:webhookId/test',
      'POST /v4.0/webhooks/:webhookId/redeliver-missed',
    ],
  },
  /** The Settings view. */
  readSettings: { scope: 'account:read', routes: ['GET /v4.0/account/settings'] },
  /** The Settings view's forms: callback URL and pause window, address checks, default scenario, rotation. */
  changeSettings: { scope: 'account:manage', routes: ['PATCH /v4.0/account/settings'] },
  /** The API keys view: the list, Create and Revoke. */
  manageKeys: {
    scope: 'keys:manage',
    routes: ['GET /v4.0/account/keys', 'POST /v4.0/account/keys', 'POST /v4.0/account/keys/:prefix/revoke'],
  },
  /** The Billing page: the account's billing and its invoices and credit notes. */
  readBilling: {
    scope: 'account:read',
    routes: [
      'GET /v4.0/account/billing',
      'GET /v4.0/account/invoices',
      'GET /v4.0/account/statements/:month',
      'GET /v4.0/account/payment-method',
    ],
  },
  /** The Billing page's card on file: Save a card, Remove. */
  manageCard: {
    scope: 'account:manage',
    routes: ['POST /v4.0/account/payment-method/setup', 'DELETE /v4.0/account/payment-method'],
  },
  /** The Billing page's Top up form (Live prepaid accounts). */
  topUp: { scope: 'account:manage', routes: ['POST /v4.0/account/top-ups'] },
  /** The Channels page: the account's storefront channels. */
  readChannels: { scope: 'account:read', routes: ['GET /v4.0/channels'] },
  /** The Channels page's forms: connect a store, delete a channel. */
  manageChannels: { scope: 'account:manage', routes: ['POST /v4.0/channels', 'DELETE /v4.0/channels/:channelId'] },
  /** A channel's links, its orders waiting as not connected and the store's cancellations. */
  readChannelOrders: {
    scope: 'orders:read',
    routes: [
      'GET /v4.0/channels/:channelId/links',
      'GET /v4.0/channels/:channelId/pending',
      'GET /v4.0/channels/:channelId/cancellations',
    ],
  },
  /** Adding and deleting a channel's links, releasing a waiting order. */
  changeChannelOrders: {
    scope: 'orders:write',
    routes: [
      'POST /v4.0/channels/:channelId/links',
      'DELETE /v4.0/channels/:channelId/links/:linkId',
      'POST /v4.0/channels/:channelId/pending/:externalOrderId/release',
    ],
  },
  /** The Activity view (the audit trail). */
  readActivity: { scope: 'account:read', routes: ['GET /v4.0/account/audit'] },
} as const satisfies Record<string, DashboardUse>

export type DashboardUseName = keyof typeof DASHBOARD_USES

/** The scopes a session's key has: null for every scope. */
export type SessionScopes = readonly KeyScope[] | null | undefined

/** Whether the session's key may do `use`. */
export function mayUse(scopes: SessionScopes, use: DashboardUseName): boolean {
  return keyAllows(scopes, DASHBOARD_USES[use].scope)
}

/** "This key cannot read orders (it lacks the orders:read scope)." */
export function scopeMissingText(scope: KeyScope): string {
  return `This key cannot ${SCOPE_WORDS[scope]} (it lacks the ${scope} scope).`
}

/** What a page shows where a use its key may not make would be. */
export function scopeMissing(use: DashboardUseName): Html {
  const { scope } = DASHBOARD_USES[use]
  return html`<p class="notice notice-info scope-missing">This key cannot ${SCOPE_WORDS[scope]} (it lacks the <code>${scope}</code> scope).</p>`
}
