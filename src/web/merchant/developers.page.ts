// Developers: what an integration needs besides the orders themselves. The callbacks log across orders
// (filter by status, redeliver), the events feed, the settings of this dashboard's environment (callback URL,
// signing secret, test callback; the account's pause window), the account's API keys (create, list,
// revoke) and its recent activity (the last entries of its audit trail). All through the public API, as any client.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/callback-deliveries.ts'
import { formatDurationSeconds, parseDurationSeconds } from '../../domain/duration.ts'
import { type KeyScope, scopesBeyond } from '../../domain/key-scopes.ts'
import { SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import { sessionCookieName } from '../../domain/session-cookie.ts'
import { type ApiAnswer, type ApiClient, describeApiError } from '../kit/api-client.ts'
import { auditChangeCell } from '../kit/audit-change.ts'
import { type CallbackDelivery, callbacksTable } from '../kit/callbacks-table.ts'
import { eventWords, formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import {
  csrfField,
  DASHBOARD_PATH,
  environmentName,
  errorNotice,
  listPage,
  type Notice,
  skipOf,
} from '../kit/layout.ts'
import { type DashboardUseName, mayUse, type SessionScopes, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import { refreshing } from './refreshing.ts'

/** Deliveries per page of the callbacks log. */
export const CALLBACKS_PAGE_SIZE = 20
/** Events per page of the feed (each carries a whole order). */
export const EVENTS_PAGE_SIZE = 20
/** Entries of the audit trail the Activity view shows: the most recent. */
export const ACTIVITY_ENTRIES = 20

/** The views, each with the uses it offers: its link is shown when the session's key may make any of them. */
const VIEWS = [
  ['callbacks', 'Callbacks', ['readCallbacks']],
  ['events', 'Events', ['readOrders']],
  ['settings', 'Settings', ['readSettings', 'testCallbacks']],
  ['webhooks', 'Webhooks', ['manageWebhooks']],
  ['keys', 'API keys', ['manageKeys']],
  ['activity', 'Activity', ['readActivity']],
] as const satisfies readonly (readonly [string, string, readonly DashboardUseName[]])[]
type View = (typeof VIEWS)[number][0]

function viewOffered(scopes: SessionScopes, uses: readonly DashboardUseName[]): boolean {
  return uses.some((use) => mayUse(scopes, use))
}

interface FeedEvent {
  id: string
  type: string
  time: string
  subject?: string
  /** The CloudEvents sequence attribute: zero-padded digits. */
  sequence?: string
  data?: { order?: { id?: string } }
}

interface FeedPage {
  events: FeedEvent[]
  nextCursor: string | null
  hasMore: boolean
}

interface AccountSettings {
  environment: 'sandbox' | 'live'
  callbackUrl: string | null
  pauseWindowSeconds: number
  signingSecret: string
  previousSigningSecretExpiresAt: string | null
  /** Sandbox only: the default scenario of new Sandbox orders (docs/sandbox.md). */
  sandboxScenario?: string | null
  /** What an order whose address has a problem that stops delivery gets: warn, refuse or off (docs/addresses.md). */
  addressValidation: 'warn' | 'refuse' | 'off'
  /** Which events the callback URLs get: all or prodigi (docs/callbacks.md). */
  callbackEvents: 'all' | 'prodigi'
}

/** What each address validation mode does, in the words the settings page and its notice use. */
const ADDRESS_MODE_WORDS: Record<AccountSettings['addressValidation'], string> = {
  warn: 'orders with an undeliverable address are created with a warning',
  refuse: 'orders with an undeliverable address are refused',
  off: 'addresses are not checked',
}

/** What each callback event set sends, in the words the settings page and its notice use. */
const CALLBACK_EVENTS_WORDS: Record<AccountSettings['callbackEvents'], string> = {
  all: 'every event type',
  prodigi: "only the Prodigi Print API's event types",
}

interface AccountKey {
  prefix: string
  environment: 'sandbox' | 'live'
  created: string
  revoked: string | null
  /** null: every scope. */
  scopes: string[] | null
  expiresAt: string | null
}

/** An entry of the account's audit trail (GET /v4.0/account/audit). */
interface AuditEntry {
  id: string
  at: string
  actor: { kind: string; description: string }
  action: string
  environment: 'sandbox' | 'live' | null
  target: string | null
  before: unknown
  after: unknown
}

interface IssuedKey {
  key: string
  prefix: string
  environment: 'sandbox' | 'live'
}

function developersPath(view: View | 'events/newest', query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '' && value !== 0) params.set(name, String(value))
  }
  const search = params.toString()
  return `${DASHBOARD_PATH}/developers/${view}${search ? `?${search}` : ''}`
}

/** A webhook endpoint as GET /v4.0/webhooks lists it: what the page's banner says of one disabled for failing. */
interface WebhookEndpoint {
  id: string
  url: string
  enabled: boolean
  disabledReason: 'manual' | 'failing' | null
  disabledAt: string | null
  failingSince: string | null
}

/**
 * One issue banner per endpoint printroute disabled for failing (docs/callbacks.md#when-a-webhook-endpoint-keeps-failing),
 * on every Developers view; only for a session whose key may manage webhooks (the others could not act on it). Each
 * links to the endpoint's page in the Webhooks view, which offers re-enabling it and redelivering what it missed.
 */
async function failingEndpointsBanner(request: FastifyRequest): Promise<Html> {
  const { api, caller } = request.signedIn
  if (!mayUse(caller.scopes, 'readWebhooks')) return html``
  const answer = await api.get<{ webhooks: WebhookEndpoint[] }>('/webhooks')
  // The banner is a hint beside the page's own content: without the list, the page still shows.
  if (!answer.ok) return html``
  const disabled = answer.body.webhooks.filter((endpoint) => endpoint.disabledReason === 'failing')
  if (disabled.length === 0) return html``
  return html`<section class="card issues" aria-labelledby="webhook-issues-heading"><h2 id="webhook-issues-heading">Webhook endpoints disabled</h2><ul>
${disabled.map(
  (endpoint) =>
    html`<li class="webhook-disabled">Webhook endpoint <a href="${developersPath('webhooks')}/${encodeURIComponent(endpoint.id)}"><code>${endpoint.id}</code></a> (<code>${endpoint.url}</code>) was disabled on ${formatTime(endpoint.disabledAt)} after failing since ${formatTime(endpoint.failingSince)}: fix it, re-enable it and redeliver what it missed.</li>`,
)}</ul></section>`
}

async function sendDeveloperPage(
  dashboard: Dashboard,
  request: FastifyRequest,
  reply: FastifyReply,
  view: View,
  page: { title: string; content: Html; status?: number; notice?: Notice },
): Promise<FastifyReply> {
  const banner = await failingEndpointsBanner(request)
  return dashboard.sendPage(request, reply, {
    title: `${page.title} · Developers`,
    section: 'developers',
    ...(page.status ? { status: page.status } : {}),
    ...(page.notice ? { notice: page.notice } : {}),
    content: html`<nav class="subnav" aria-label="Developers"><ul class="subnav-list">${VIEWS.filter(
      ([name, , uses]) => name === view || viewOffered(request.signedIn.caller.scopes, uses),
    ).map(
      ([name, label]) =>
        html`<li><a class="subnav-link" href="${developersPath(name)}"${name === view ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>
${banner}${page.content}`,
  })
}

/**
 * Answers with a page of `view` inside the Developers shell (its subnavigation): for a view registered by a module
 * of its own (the Webhooks view), which the dashboard plugin hands this to, so that pages do not import each other.
 */
export function developerPageSender(dashboard: Dashboard, view: View) {
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    page: { title: string; content: Html; status?: number; notice?: Notice },
  ) => sendDeveloperPage(dashboard, request, reply, view, page)
}

export function registerDeveloperPages(pages: FastifyInstance, dashboard: Dashboard): void {
  // The first view the session's key may use (the callbacks log, for a key with every scope).
  pages.get('/developers', (request, reply) => {
    const first = VIEWS.find(([, , uses]) => viewOffered(request.signedIn.caller.scopes, uses))
    return reply.redirect(developersPath(first?.[0] ?? 'callbacks'))
  })
  registerCallbacksLog(pages, dashboard)
  registerEventsFeed(pages, dashboard)
  registerSettings(pages, dashboard)
  registerKeys(pages, dashboard)
  registerActivity(pages, dashboard)
}

/** The account's recent activity: the last entries of its audit trail, both environments (docs/audit.md). */
function registerActivity(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get('/developers/activity', async (request, reply) => {
    if (!mayUse(request.signedIn.caller.scopes, 'readActivity')) {
      return sendDeveloperPage(dashboard, request, reply, 'activity', {
        title: 'Activity',
        content: html`<h1>Activity</h1>${scopeMissing('readActivity')}`,
      })
    }
    const answer = await request.signedIn.api.get<{ entries: AuditEntry[]; hasMore: boolean }>('/account/audit', {
      top: ACTIVITY_ENTRIES,
    })
    const entries = answer.ok ? answer.body.entries : []
    return sendDeveloperPage(dashboard, request, reply, 'activity', {
      title: 'Activity',
      notice: errorNotice(answer),
      content: html`<h1>Activity</h1>
<p>The last ${ACTIVITY_ENTRIES} changes to the account, Sandbox and Live, newest first: keys created and revoked,
settings changed, top-ups, and who made each. The whole trail: <code>GET /v4.0/account/audit</code>.</p>
${
  entries.length === 0
    ? html`<div class="empty card"><p>No changes recorded yet.</p></div>`
    : // Focusable, so that a keyboard can scroll the wide table on a phone.
      html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="activity-caption"><table class="phone-cards"><caption id="activity-caption" class="visually-hidden">Recent changes, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Environment</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
<tbody>${entries.map(
        (entry) => html`<tr>
<td data-label="When">${formatTime(entry.at)}</td>
<td data-label="Who">${entry.actor.description}</td>
<td data-label="Action"><code>${entry.action}</code></td>
<td data-label="Environment">${entry.environment ? environmentName(entry.environment) : html`<span class="muted">—</span>`}</td>
<td data-label="Target">${entry.target ?? html`<span class="muted">—</span>`}</td>
<td data-label="Change">${auditChangeCell(entry)}</td>
</tr>`,
      )}</tbody></table></div>`
}`,
    })
  })
}

function registerCallbacksLog(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get<{ Querystring: { status?: string; skip?: string } }>('/developers/callbacks', async (request, reply) => {
    const scopes = request.signedIn.caller.scopes
    if (!mayUse(scopes, 'readCallbacks')) {
      return sendDeveloperPage(dashboard, request, reply, 'callbacks', {
        title: 'Callbacks',
        content: html`<h1>Callbacks</h1>${scopeMissing('readCallbacks')}`,
      })
    }
    const status = DELIVERY_STATUSES.find((candidate) => candidate === request.query.status)
    const skip = skipOf(request.query.skip)
    const {
      answer,
      entries: callbacks,
      pages,
    } = await listPage<CallbackDelivery>(
      request.signedIn.api,
      { path: '/callbacks', key: 'callbacks', query: { status }, skip, pageSize: CALLBACKS_PAGE_SIZE },
      {
        noun: 'callbacks',
        urlOf: (offset) => developersPath('callbacks', { status, skip: offset }),
        labels: ['Newer', 'Older'],
      },
    )
    const here = developersPath('callbacks', { status, skip })
    const pending = callbacks.some((delivery) => delivery.status === 'pending')
    const table =
      callbacks.length === 0 && status !== undefined
        ? html`<p class="muted">No ${status} callbacks.</p>`
        : callbacksTable(callbacks, request.signedIn.csrfToken, here, true, mayUse(scopes, 'redeliverCallbacks'))
    return sendDeveloperPage(dashboard, request, reply, 'callbacks', {
      title: 'Callbacks',
      notice: errorNotice(answer),
      content: html`<h1>Callbacks</h1>
<p>Every delivery of an order event to a callback URL, newest first, with each attempt. Redeliver sends the same
event (same id) again as a new delivery, to the order's callback URL as it is now.</p>
<form class="filters" method="get" action="${developersPath('callbacks')}" aria-label="Filter callbacks">
<div class="field"><label for="filter-status">Status</label>
<select id="filter-status" name="status"><option value="">Any status</option>${DELIVERY_STATUSES.map(
        (name) => html`<option value="${name}"${name === status ? html` selected` : ''}>${statusLabel(name)}</option>`,
      )}</select></div>
<div class="field field-buttons"><button type="submit">Filter</button>${status ? html` <a href="${developersPath('callbacks')}">Clear</a>` : ''}</div>
</form>
<section${refreshing('callbacks-log', here, pending)}>
${pending ? html`<p class="muted refresh-note">Deliveries pending: this list updates every few seconds.</p>` : ''}
${table}
${pages}
</section>`,
    })
  })
}

function statusLabel(status: DeliveryStatus): string {
  return `${status.charAt(0).toUpperCase()}${status.slice(1)}`
}

function eventNumber(cursor: string | null | undefined): number {
  const match = /(\d+)$/.exec(cursor ?? '')
  return match ? Number(match[1]) : 0
}

/**
 * The cursor after which exactly the newest page of events follows, given that a full page follows cursor 0.
 * The feed reads only forward (oldest first, after a cursor), but any number is a valid cursor and the events
 * after it only become fewer as it grows; so the largest cursor with a full page after it is found by doubling
 * from `start`, then halving: about 2·log2(newest event number) reads. `fullPageAfter` must not throw.
 */
export async function newestPageCursor(
  fullPageAfter: (cursor: number) => Promise<boolean>,
  start: number,
): Promise<number> {
  let full = 0
  let short = Math.max(1, start)
  // Cursors are at most 15 digits; past that the feed refuses them, which reads as "not full".
  while (short < 1e15 && (await fullPageAfter(short))) {
    full = short
    short *= 2
  }
  while (short - full > 1) {
    const middle = Math.floor((full + short) / 2)
    if (await fullPageAfter(middle)) full = middle
    else short = middle
  }
  return full
}

function readFeed(api: ApiClient, query: { after?: string; orderId?: string }): Promise<ApiAnswer<FeedPage>> {
  return api.get<FeedPage>('/events', { ...query, top: EVENTS_PAGE_SIZE })
}

function eventEntry(event: FeedEvent): Html {
  const orderId = event.data?.order?.id ?? event.subject
  return html`<li class="card event">
<div class="event-head"><strong>${eventWords(event.type)}</strong>
${orderId ? html`<a href="${DASHBOARD_PATH}/orders/${orderId}">${orderId}</a>` : ''}
<span class="muted">${formatTime(event.time)}</span>
<code>${event.id}</code>${event.sequence !== undefined ? html` <span class="muted small">sequence ${Number(event.sequence)}</span>` : ''}</div>
<div class="muted small"><code class="event-type">${event.type}</code></div>
<details><summary>Event JSON<span class="visually-hidden"> of ${event.id}</span></summary><pre class="event-json" tabindex="0">${JSON.stringify(event, null, 2)}</pre></details>
</li>`
}

function registerEventsFeed(pages: FastifyInstance, dashboard: Dashboard): void {
  type EventsRequest = FastifyRequest<{ Querystring: { after?: string; orderId?: string } }>

  const render = (
    request: EventsRequest,
    reply: FastifyReply,
    answer: ApiAnswer<FeedPage>,
    newest: boolean,
  ): Promise<FastifyReply> => {
    const after = request.query.after?.trim() || undefined
    const orderId = request.query.orderId?.trim() || undefined
    const events = answer.ok ? answer.body.events : []
    const nextCursor = answer.ok ? answer.body.nextCursor : null
    const position = newest ? 'Newest events' : after ? html`Events after <code>${after}</code>` : 'Oldest events'
    const list = !answer.ok
      ? ''
      : events.length === 0
        ? html`<p class="muted">${after ? 'No events after this one yet.' : orderId ? 'This order has no events (yet).' : 'No events yet: they are written when orders change (submitted, downloaded, shipped, completed, cancelled).'}</p>`
        : html`<ol class="event-feed">${events.map(eventEntry)}</ol>`
    const forward =
      answer.ok && answer.body.hasMore && nextCursor
        ? html`<a href="${developersPath('events', { after: nextCursor, orderId })}" rel="next">Newer events</a>`
        : events.length > 0
          ? html`<span class="muted">These are the newest events.</span>`
          : ''
    return sendDeveloperPage(dashboard, request, reply, 'events', {
      title: 'Events',
      notice: errorNotice(answer),
      content: html`<h1>Events</h1>
<p>The feed of order events (<code>GET /v4.0/events</code>): the same CloudEvents that are sent as callbacks,
whether or not a callback URL is set, oldest first. A poller passes the last event's id as <code>after</code>.</p>
<form class="filters" method="get" action="${developersPath('events')}" aria-label="Filter events">
<div class="field field-wide"><label for="filter-order">Order ID <span class="muted">(optional)</span></label>
<input id="filter-order" name="orderId" value="${orderId ?? ''}" placeholder="ord_123" spellcheck="false"></div>
<div class="field field-buttons"><button type="submit">Show</button>${orderId ? html` <a href="${developersPath('events')}">All orders</a>` : ''}</div>
</form>
<nav class="feed-jump" aria-label="Where in the feed">
${newest || after ? html`<a class="button button-quiet button-small" href="${developersPath('events', { orderId })}">Oldest</a>` : ''}
${newest ? '' : html`<a class="button button-quiet button-small" href="${developersPath('events/newest', { orderId })}">Newest</a>`}
</nav>
<h2>${position}${orderId ? html` of order ${orderId}` : ''}</h2>
${list}
<nav class="pager" aria-label="Later events">${forward}</nav>`,
    })
  }

  /** The feed holds orders' events: a key that cannot read orders is told so instead. */
  const refuseUnreadable = async (request: EventsRequest, reply: FastifyReply): Promise<FastifyReply | undefined> =>
    mayUse(request.signedIn.caller.scopes, 'readOrders')
      ? undefined
      : sendDeveloperPage(dashboard, request, reply, 'events', {
          title: 'Events',
          content: html`<h1>Events</h1>${scopeMissing('readOrders')}`,
        })

  pages.get<{ Querystring: { after?: string; orderId?: string } }>('/developers/events', async (request, reply) => {
    const refused = await refuseUnreadable(request, reply)
    if (refused) return refused
    const answer = await readFeed(request.signedIn.api, {
      after: request.query.after?.trim(),
      orderId: request.query.orderId?.trim(),
    })
    return render(request, reply, answer, false)
  })

  pages.get<{ Querystring: { after?: string; orderId?: string } }>(
    '/developers/events/newest',
    async (request, reply) => {
      const refused = await refuseUnreadable(request, reply)
      if (refused) return refused
      const { api } = request.signedIn
      const orderId = request.query.orderId?.trim()
      const first = await readFeed(api, { orderId })
      if (!first.ok || !first.body.hasMore) return render(request, reply, first, true)
      const cursor = await newestPageCursor(async (after) => {
        const page = await readFeed(api, { after: String(after), orderId })
        return page.ok && page.body.events.length === EVENTS_PAGE_SIZE
      }, eventNumber(first.body.nextCursor))
      return render(request, reply, await readFeed(api, { after: String(cursor), orderId }), true)
    },
  )
}

interface SettingsInput {
  callbackUrl?: string
  pauseWindow?: string
  overlap?: string
  testUrl?: string
}

const DEFAULT_OVERLAP = '24h'

function durationWords(seconds: number): string {
  return seconds === 0 ? 'none' : `${formatDurationSeconds(seconds)} (${seconds} seconds)`
}

function registerSettings(pages: FastifyInstance, dashboard: Dashboard): void {
  const live = dashboard.environment === 'live'
  const name = environmentName(dashboard.environment)
  const liveSettingsUrl = () => `${dashboard.publicUrl('live')}${DASHBOARD_PATH}/developers/settings`

  /** `changeable`: the key may change the settings, so the rotation form is offered. */
  function signingSection(settings: AccountSettings, csrfToken: string, entered: SettingsInput, changeable: boolean) {
    const previous = settings.previousSigningSecretExpiresAt
    return html`<section class="card settings-card" aria-labelledby="signing-heading"><h2 id="signing-heading">Signing secret</h2>
<p>Every ${name} callback is signed with ${name}'s own secret (Standard Webhooks), so a receiver can tell that it
comes from printroute and has not been changed. Sandbox and Live have different secrets: a Sandbox key never sees
the one that signs Live callbacks.</p>
<dl class="facts">
<div><dt>Secret</dt><dd><code>${settings.signingSecret.slice(0, 'whsec_'.length)}••••••••</code></dd></div>
<div><dt>Previous secret</dt><dd>${previous ? html`also signs until ${formatTime(previous)}` : 'none'}</dd></div>
</dl>
<details class="secret"><summary>Show the signing secret</summary><p><code class="secret-value">${settings.signingSecret}</code></p></details>
<h3>Verifying a callback</h3>
<p>Each callback carries three headers. The signature is the base64 HMAC-SHA256 of
<code>webhook-id.webhook-timestamp.body</code> (the raw body), keyed with the base64-decoded part of the secret
after <code>whsec_</code>:</p>
<pre class="code-block" tabindex="0">webhook-id: evt_311
webhook-timestamp: 1767225600
webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=</pre>
<p class="muted small">While an old secret still signs, the header holds two signatures separated by a space: accept either.
The Standard Webhooks libraries (npm <code>standardwebhooks</code> and others) check it, and the timestamp, in one call.</p>
${
  changeable
    ? html`<form method="post" action="${DASHBOARD_PATH}/developers/settings/rotate-signing-secret" class="stack">${csrfField(csrfToken)}
<h3>Rotate the secret</h3>
<p>A new secret signs from now on; the current one keeps signing too for the overlap, so receivers can switch at any time within it.</p>
<div class="field setting-field"><label for="overlap">Overlap</label>
<input id="overlap" name="overlap" value="${entered.overlap ?? DEFAULT_OVERLAP}" aria-describedby="overlap-note" spellcheck="false">
<p id="overlap-note" class="muted small">How long the current secret keeps signing: a duration such as 30m, 2h or 1d, or a number of seconds; 0 stops it at once; at most 30 days.</p></div>
<button type="submit">Rotate signing secret</button>
</form>`
    : ''
}
</section>`
  }

  /** The test callback form: Empty sends to `callbackUrl` (undefined: the key cannot read the settings). */
  const testSection = (csrfToken: string, entered: SettingsInput, callbackUrl: string | null | undefined) =>
    html`<form method="post" action="${DASHBOARD_PATH}/developers/settings/test-callback" class="card settings-card stack" aria-labelledby="test-callback-heading">${csrfField(csrfToken)}
<h2 id="test-callback-heading">Test callback</h2>
<p>Sends a signed test event (<code>com.…test</code>, no order) now, once, and shows what the receiver answered.
It is listed with the other callbacks.</p>
<div class="field setting-field"><label for="test-url">Send to <span class="muted">(optional)</span></label>
<input id="test-url" name="url" type="url" value="${entered.testUrl ?? ''}" aria-describedby="test-url-note" placeholder="${callbackUrl ?? 'https://shop.example.com/printroute-events'}" spellcheck="false">
<p id="test-url-note" class="muted small">Empty: the ${name} callback URL${callbackUrl === null ? ' (none is set, so give one here)' : ''}.</p></div>
<button type="submit">Send test callback</button>
</form>`

  /** The settings as facts, for a key that may read them but not change them. */
  const settingsFacts = (
    settings: AccountSettings,
  ) => html`<section class="card settings-card" aria-labelledby="current-settings-heading">
<h2 id="current-settings-heading">Current settings</h2>
<dl class="facts">
<div><dt>${name} callback URL</dt><dd>${settings.callbackUrl ?? 'none'}</dd></div>
<div><dt>Pause window</dt><dd>${durationWords(settings.pauseWindowSeconds)}</dd></div>
<div><dt>Address checks</dt><dd>${ADDRESS_MODE_WORDS[settings.addressValidation]}</dd></div>
<div><dt>Callback events</dt><dd>${CALLBACK_EVENTS_WORDS[settings.callbackEvents]}</dd></div>
${live ? '' : html`<div><dt>Default scenario</dt><dd>${settings.sandboxScenario ?? 'none'}</dd></div>`}
</dl></section>`

  async function sendSettings(
    request: FastifyRequest,
    reply: FastifyReply,
    entered: SettingsInput = {},
    failure?: { status: number; notice: Notice },
  ) {
    const { api, csrfToken, caller } = request.signedIn
    const changeable = mayUse(caller.scopes, 'changeSettings')
    const testable = mayUse(caller.scopes, 'testCallbacks')
    if (!mayUse(caller.scopes, 'readSettings')) {
      return sendDeveloperPage(dashboard, request, reply, 'settings', {
        title: 'Settings',
        ...(failure ?? {}),
        content: html`<h1>Settings</h1>${scopeMissing('readSettings')}${testable ? testSection(csrfToken, entered, undefined) : ''}`,
      })
    }
    const answer = await api.get<{ settings: AccountSettings }>('/account/settings')
    if (!answer.ok) {
      return sendDeveloperPage(dashboard, request, reply, 'settings', {
        title: 'Settings',
        status: answer.status,
        notice: errorNotice(answer),
        content: html`<h1>Settings</h1>`,
      })
    }
    const settings = answer.body.settings
    const pauseWindowField = live
      ? html`<div class="field setting-field"><label for="pause-window">Pause window</label>
<input id="pause-window" name="pauseWindow" value="${entered.pauseWindow ?? formatDurationSeconds(settings.pauseWindowSeconds)}" aria-describedby="pause-window-note" spellcheck="false">
<p id="pause-window-note" class="muted small">How long new orders, Sandbox and Live, wait on hold, when they can still be changed or cancelled, before they are made: a duration such as 30m, 2h or 1d, or a number of seconds; 0 for none; at most 30 days. Applies to orders created from now on.</p></div>`
      : html`<dl class="facts"><div><dt>Pause window</dt><dd>${durationWords(settings.pauseWindowSeconds)}</dd></div></dl>
<p class="muted small">The pause window is the account's and holds Live orders too, so only a Live key changes it: see the
<a href="${liveSettingsUrl()}">Live dashboard's settings</a>.</p>`
    const callbacksSection = html`<form method="post" action="${DASHBOARD_PATH}/developers/settings" class="card settings-card stack" aria-labelledby="callbacks-heading">${csrfField(csrfToken)}
<h2 id="callbacks-heading">Callbacks and pause window</h2>
<div class="field setting-field"><label for="callback-url">${name} callback URL <span class="muted">(optional)</span></label>
<input id="callback-url" name="callbackUrl" type="url" value="${entered.callbackUrl ?? settings.callbackUrl ?? ''}" aria-describedby="callback-url-note" placeholder="https://shop.example.com/printroute-events" spellcheck="false">
<p id="callback-url-note" class="muted small">Events of ${name} orders without a callback URL of their own are POSTed here (${live ? 'Sandbox' : 'Live'} has its own). Empty: none (the events are still in the feed).</p></div>
${pauseWindowField}
<button type="submit">Save settings</button>
</form>`
    const current = settings.sandboxScenario ?? ''
    const scenarioSection = live
      ? ''
      : html`<form method="post" action="${DASHBOARD_PATH}/developers/settings/sandbox-scenario" class="card settings-card stack" aria-labelledby="scenario-heading">${csrfField(csrfToken)}
<h2 id="scenario-heading">Default scenario</h2>
<p>The path new Sandbox orders take when they name no scenario themselves (header <code>X-Sandbox-Scenario</code> or
<code>metadata.sandboxScenario</code>): a download that fails, a lab that rejects, a payment hold, split or partial
shipments, or manual steps. Orders keep the scenario they were created with.</p>
<div class="field setting-field"><label for="sandbox-scenario">Scenario</label>
<select id="sandbox-scenario" name="sandboxScenario"><option value="">None</option>${SANDBOX_SCENARIOS.map((scenario) => html`<option value="${scenario}"${scenario === current ? html` selected` : ''}>${scenario}</option>`)}</select></div>
<button type="submit">Save default scenario</button>
</form>`
    const addressMode = settings.addressValidation
    const addressSection = html`<form method="post" action="${DASHBOARD_PATH}/developers/settings/address-validation" class="card settings-card stack" aria-labelledby="address-heading">${csrfField(csrfToken)}
<h2 id="address-heading">Address checks</h2>
<p>What a new ${name} order gets when its recipient's address has a problem that stops delivery (a postcode in no
valid format, no US or Canadian state). Problems that do not stop it (a phone number an express courier asks for, a line
longer than couriers print) are shown on the order as advisories and never change its outcome. Orders with
<code>acceptUnverifiedAddress: true</code> are accepted as sent.</p>
<fieldset class="setting-field"><legend>When an address cannot be delivered to</legend>
<label class="option-line"><input type="radio" name="addressValidation" value="warn"${addressMode === 'warn' ? html` checked` : ''}> Create the order with a warning (<code>CreatedWithIssues</code>)</label>
<label class="option-line"><input type="radio" name="addressValidation" value="refuse"${addressMode === 'refuse' ? html` checked` : ''}> Refuse the order (400, naming each field and its suggestion)</label>
<label class="option-line"><input type="radio" name="addressValidation" value="off"${addressMode === 'off' ? html` checked` : ''}> Check no addresses (no warnings, no advisories)</label>
</fieldset>
<button type="submit">Save address checks</button>
</form>`
    const eventSet = settings.callbackEvents
    const callbackEventsSection = html`<form method="post" action="${DASHBOARD_PATH}/developers/settings/callback-events" class="card settings-card stack" aria-labelledby="callback-events-heading">${csrfField(csrfToken)}
<h2 id="callback-events-heading">Callback events</h2>
<p>Which events the ${name} callback URLs get (the one above and orders' own). A client library that refuses event
types it does not know needs only the Prodigi Print API's; the feed and webhook endpoints keep every type.</p>
<fieldset class="setting-field"><legend>Send to callback URLs</legend>
<label class="option-line"><input type="radio" name="callbackEvents" value="all"${eventSet === 'all' ? html` checked` : ''}> Every event type (delivery tracking, parcels, payment included)</label>
<label class="option-line"><input type="radio" name="callbackEvents" value="prodigi"${eventSet === 'prodigi' ? html` checked` : ''}> Only the Prodigi Print API's event types</label>
</fieldset>
<button type="submit">Save callback events</button>
</form>`
    return sendDeveloperPage(dashboard, request, reply, 'settings', {
      title: 'Settings',
      ...(failure ?? {}),
      content: html`<h1>Settings</h1>
<p>The ${name} settings: Sandbox and Live each have their own callback URL and signing secret; the pause window is the account's.</p>
${changeable ? html`${callbacksSection}${callbackEventsSection}${addressSection}${scenarioSection}` : html`${scopeMissing('changeSettings')}${settingsFacts(settings)}`}
${testable ? testSection(csrfToken, entered, settings.callbackUrl) : ''}
${signingSection(settings, csrfToken, entered, changeable)}`,
    })
  }

  /** Re-shows the form with what was typed and why it was refused, so nothing typed is lost. */
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    entered: SettingsInput,
    status: number,
    text: string,
  ) => sendSettings(request, reply, entered, { status, notice: { kind: 'error', text } })

  const parseDuration = (text: string): number | Error => {
    try {
      return parseDurationSeconds(text)
    } catch (error) {
      return error as Error
    }
  }

  pages.get('/developers/settings', (request, reply) => sendSettings(request, reply))

  pages.post<{ Body: { callbackUrl?: string; pauseWindow?: string } }>(
    '/developers/settings',
    async (request, reply) => {
      const entered = {
        callbackUrl: String(request.body?.callbackUrl ?? '').trim(),
        ...(live ? { pauseWindow: String(request.body?.pauseWindow ?? '').trim() } : {}),
      }
      // Sandbox's form has no pause window: it is the account's, changed with a Live key.
      const pauseWindowSeconds = entered.pauseWindow === undefined ? undefined : parseDuration(entered.pauseWindow)
      if (pauseWindowSeconds instanceof Error) {
        return refused(request, reply, entered, 400, `pauseWindowSeconds: ${pauseWindowSeconds.message}`)
      }
      const answer = await request.signedIn.api.patch<{ settings: AccountSettings }>('/account/settings', {
        callbackUrl: entered.callbackUrl === '' ? null : entered.callbackUrl,
        ...(pauseWindowSeconds === undefined ? {} : { pauseWindowSeconds }),
      })
      if (!answer.ok) return refused(request, reply, entered, answer.status, describeApiError(answer.body))
      const saved = answer.body.settings
      return dashboard.redirect(reply, '/developers/settings', {
        kind: 'success',
        text: `Settings saved: callback URL ${saved.callbackUrl ?? 'none'}; pause window ${durationWords(saved.pauseWindowSeconds)}.`,
      })
    },
  )

  pages.post<{ Body: { sandboxScenario?: string } }>(
    '/developers/settings/sandbox-scenario',
    async (request, reply) => {
      const chosen = String(request.body?.sandboxScenario ?? '')
      const answer = await request.signedIn.api.patch<{ settings: AccountSettings }>('/account/settings', {
        sandboxScenario: chosen === '' ? null : chosen,
      })
      if (!answer.ok) return refused(request, reply, {}, answer.status, describeApiError(answer.body))
      return dashboard.redirect(reply, '/developers/settings', {
        kind: 'success',
        text: `Default scenario saved: ${answer.body.settings.sandboxScenario ?? 'none'}.`,
      })
    },
  )

  pages.post<{ Body: { addressValidation?: string } }>(
    '/developers/settings/address-validation',
    async (request, reply) => {
      const answer = await request.signedIn.api.patch<{ settings: AccountSettings }>('/account/settings', {
        addressValidation: String(request.body?.addressValidation ?? ''),
      })
      if (!answer.ok) return refused(request, reply, {}, answer.status, describeApiError(answer.body))
      return dashboard.redirect(reply, '/developers/settings', {
        kind: 'success',
        text: `Address checks saved: ${ADDRESS_MODE_WORDS[answer.body.settings.addressValidation]}.`,
      })
    },
  )

  pages.post<{ Body: { callbackEvents?: string } }>('/developers/settings/callback-events', async (request, reply) => {
    const answer = await request.signedIn.api.patch<{ settings: AccountSettings }>('/account/settings', {
      callbackEvents: String(request.body?.callbackEvents ?? ''),
    })
    if (!answer.ok) return refused(request, reply, {}, answer.status, describeApiError(answer.body))
    return dashboard.redirect(reply, '/developers/settings', {
      kind: 'success',
      text: `Callback events saved: the callback URLs get ${CALLBACK_EVENTS_WORDS[answer.body.settings.callbackEvents]}.`,
    })
  })

  registerCallbackSigningForms()

  /** The forms of the Test callback and Signing secret sections: send a test callback, rotate the secret. */
  function registerCallbackSigningForms(): void {
    pages.post<{ Body: { url?: string } }>('/developers/settings/test-callback', async (request, reply) => {
      const entered = { testUrl: String(request.body?.url ?? '').trim() }
      const answer = await request.signedIn.api.post<{ outcome: string; callback: CallbackDelivery }>(
        '/callbacks/test',
        entered.testUrl === '' ? {} : { url: entered.testUrl },
      )
      if (!answer.ok) return refused(request, reply, entered, answer.status, describeApiError(answer.body))
      const { callback } = answer.body
      const attempt = callback.attempts[0]
      const answered =
        attempt?.httpStatus == null ? `no answer (${attempt?.error ?? 'unknown error'})` : `HTTP ${attempt.httpStatus}`
      const snippet = attempt?.responseSnippet ? `; the receiver said: ${attempt.responseSnippet.slice(0, 200)}` : ''
      return dashboard.redirect(reply, '/developers/settings', {
        kind: callback.status === 'delivered' ? 'success' : 'error',
        text: `Test callback ${callback.id} to ${callback.url} ${callback.status}: ${answered} in ${attempt?.latencyMs ?? 0} ms${snippet}.`,
      })
    })

    pages.post<{ Body: { overlap?: string } }>('/developers/settings/rotate-signing-secret', async (request, reply) => {
      const entered = { overlap: String(request.body?.overlap ?? '').trim() }
      const overlap = parseDuration(entered.overlap)
      if (overlap instanceof Error) {
        return refused(request, reply, entered, 400, `signingSecretOverlapSeconds: ${overlap.message}`)
      }
      const answer = await request.signedIn.api.patch<{ settings: AccountSettings }>('/account/settings', {
        rotateSigningSecret: true,
        signingSecretOverlapSeconds: overlap,
      })
      if (!answer.ok) return refused(request, reply, entered, answer.status, describeApiError(answer.body))
      return dashboard.redirect(reply, '/developers/settings', {
        kind: 'success',
        text:
          overlap === 0
            ? 'The signing secret is rotated: the new one alone signs from now on.'
            : `The signing secret is rotated: the new one signs from now on, and the previous one too for ${formatDurationSeconds(overlap)}.`,
      })
    })
  }
}

function registerKeys(pages: FastifyInstance, dashboard: Dashboard): void {
  const environment = dashboard.environment
  const name = environmentName(environment)
  const keysPath = (rest = '') => `${DASHBOARD_PATH}/developers/keys${rest}`
  const otherDashboardKeys = () => `${dashboard.publicUrl('live')}${DASHBOARD_PATH}/developers/keys`
  /** A Sandbox session may revoke only Sandbox keys (the API says so too). */
  const mayRevoke = (key: AccountKey) => environment === 'live' || key.environment === 'sandbox'

  /** A scoped session reaches only keys within its own scopes (the API says so too). */
  const withinScopes = (key: AccountKey, scopes: SessionScopes) =>
    scopesBeyond(scopes, key.scopes as readonly KeyScope[] | null).length === 0

  const keyRow = (key: AccountKey, sessionKeyPrefix: string, scopes: SessionScopes) => html`<tr>
<th scope="row"><code>${key.prefix}…</code>${key.prefix === sessionKeyPrefix ? html` <span class="badge badge-inprogress">This session</span>` : ''}
<div class="muted small key-facts">${environmentName(key.environment)}, created ${formatTime(key.created)}</div>
<div class="muted small key-scopes">${key.scopes ? `Scopes: ${key.scopes.join(', ')}` : 'Every scope'}${key.expiresAt ? `; expires ${formatTime(key.expiresAt)}` : ''}</div></th>
<td>${key.revoked ? html`<span class="badge badge-cancelled">Revoked</span> <div class="muted small">${formatTime(key.revoked)}</div>` : html`<span class="badge badge-ok">Active</span>`}</td>
<td>${
    key.revoked
      ? ''
      : !mayRevoke(key)
        ? html`<span class="muted small">Revoke on the <a href="${otherDashboardKeys()}">Live dashboard</a></span>`
        : withinScopes(key, scopes)
          ? html`<a class="button button-small button-danger" href="${keysPath(`/${encodeURIComponent(key.prefix)}/revoke`)}" aria-label="Revoke ${key.prefix}">Revoke</a>`
          : html`<span class="muted small">Has scopes this session's key lacks</span>`
  }</td>
</tr>`

  const sendKeys = async (request: FastifyRequest, reply: FastifyReply, issued?: IssuedKey) => {
    const { api, csrfToken, caller } = request.signedIn
    // A key without keys:manage can neither list nor create keys: the page says so instead of offering them.
    if (!mayUse(caller.scopes, 'manageKeys')) {
      return sendDeveloperPage(dashboard, request, reply, 'keys', {
        title: 'API keys',
        content: html`<h1>API keys</h1>${scopeMissing('manageKeys')}
<p>Sign in with a key that has it to manage the account's keys.</p>`,
      })
    }
    const answer = await api.get<{ keys: AccountKey[] }>('/account/keys')
    const keys = answer.ok ? answer.body.keys : []
    return sendDeveloperPage(dashboard, request, reply, 'keys', {
      title: 'API keys',
      notice: errorNotice(answer),
      content: html`<h1>API keys</h1>
${
  issued
    ? html`<section class="key-once" aria-labelledby="new-key-heading"><h2 id="new-key-heading">Your new ${environmentName(issued.environment)} key</h2>
<p><strong>Copy it now, it is not shown again.</strong> printroute keeps only a hash of it; the list below shows its prefix.</p>
<p><code id="new-key">${issued.key}</code></p></section>`
    : ''
}
<p>The account's keys, Sandbox and Live, newest first. A key is shown whole once, when it is created; after that only
its prefix. Send it as <code>X-API-Key</code>.</p>
<form method="post" action="${keysPath()}" class="actions">${csrfField(csrfToken)}<button type="submit">Create a ${name} key</button>
<p class="muted small">This dashboard creates ${name} keys; ${environment === 'live' ? 'Sandbox keys are created on the Sandbox dashboard' : 'Live keys are created on the Live dashboard'}.</p></form>
<div class="table-wrap"><table class="keys"><caption class="visually-hidden">API keys, newest first</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${keys.map((key) => keyRow(key, caller.keyPrefix, caller.scopes))}</tbody></table></div>`,
    })
  }

  pages.get('/developers/keys', (request, reply) => sendKeys(request, reply))

  // The new key is in this answer only: never in a redirect, a cookie or a URL.
  pages.post('/developers/keys', async (request, reply) => {
    // A scoped session's key may issue only keys within its own scopes: the new key gets exactly those.
    const scopes = request.signedIn.caller.scopes
    const answer = await request.signedIn.api.post<{ key: IssuedKey }>(
      '/account/keys',
      scopes ? { scopes: [...scopes] } : undefined,
    )
    if (!answer.ok) return dashboard.redirect(reply, '/developers/keys', errorNotice(answer))
    return sendKeys(request, reply, answer.body.key)
  })

  type KeyRequest = FastifyRequest<{ Params: { prefix: string } }>
  const withKey = async (
    request: KeyRequest,
    reply: FastifyReply,
    confirm: (key: AccountKey) => Html,
  ): Promise<FastifyReply> => {
    if (!mayUse(request.signedIn.caller.scopes, 'manageKeys')) return sendKeys(request, reply)
    const answer = await request.signedIn.api.get<{ keys: AccountKey[] }>('/account/keys')
    const key = answer.ok ? answer.body.keys.find((candidate) => candidate.prefix === request.params.prefix) : undefined
    if (!key || key.revoked) {
      return sendDeveloperPage(dashboard, request, reply, 'keys', {
        title: 'Key not found',
        status: answer.ok ? 404 : answer.status,
        notice: errorNotice(answer),
        content: html`<h1>No working key ${request.params.prefix}</h1>
<p>The account has no unrevoked key with this prefix.</p><p><a href="${keysPath()}">Back to the keys</a></p>`,
      })
    }
    return sendDeveloperPage(dashboard, request, reply, 'keys', {
      title: `Revoke ${key.prefix}`,
      content: confirm(key),
    })
  }

  pages.get<{ Params: { prefix: string } }>('/developers/keys/:prefix/revoke', (request, reply) =>
    withKey(request, reply, (key) => {
      if (!mayRevoke(key)) {
        return html`<h1>Revoke key ${key.prefix}…</h1>
<p>This is a Live key, and this is the Sandbox dashboard: a Sandbox key cannot revoke Live keys. Revoke it on the
<a href="${otherDashboardKeys()}">Live dashboard</a>.</p><p><a href="${keysPath()}">Back to the keys</a></p>`
      }
      if (!withinScopes(key, request.signedIn.caller.scopes)) {
        return html`<h1>Revoke key ${key.prefix}…</h1>
<p>This key has scopes the key you signed in with lacks, so this session cannot revoke it. Sign in with a key that
has every scope it has.</p><p><a href="${keysPath()}">Back to the keys</a></p>`
      }
      const own = key.prefix === request.signedIn.caller.keyPrefix
      return html`<h1>Revoke key ${key.prefix}…?</h1>
<form method="post" action="${keysPath(`/${encodeURIComponent(key.prefix)}/revoke`)}" class="card stack">${csrfField(request.signedIn.csrfToken)}
<p>Requests with this ${environmentName(key.environment)} key are refused from now on (by other printroute processes
within 5 seconds), and dashboard sessions made from it end. This cannot be undone: whatever uses the key needs a new one.</p>
${own ? html`<p class="notice notice-error"><strong>This is the key you signed in with.</strong> Revoking it ends this session: you will need another ${name} key to sign in again.</p>` : ''}
<div class="form-buttons"><button type="submit" class="button-danger">Revoke key</button> <a href="${keysPath()}">Keep it</a></div>
</form>`
    }),
  )

  pages.post<{ Params: { prefix: string } }>('/developers/keys/:prefix/revoke', async (request, reply) => {
    const { prefix } = request.params
    const answer = await request.signedIn.api.post(`/account/keys/${encodeURIComponent(prefix)}/revoke`)
    if (!answer.ok) return dashboard.redirect(reply, '/developers/keys', errorNotice(answer))
    if (prefix === request.signedIn.caller.keyPrefix) {
      reply.clearCookie(sessionCookieName(environment), { path: '/' })
      return dashboard.redirect(reply, '/sign-in', {
        kind: 'info',
        text: `Key ${prefix}… is revoked. It was the key of your session, so the session has ended: sign in with another ${name} key.`,
      })
    }
    return dashboard.redirect(reply, '/developers/keys', {
      kind: 'success',
      text: `Key ${prefix}… is revoked: requests with it are refused.`,
    })
  })
}
