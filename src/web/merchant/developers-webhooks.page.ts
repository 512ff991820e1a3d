// Developers -> Webhooks: the environment's webhook endpoints (docs/callbacks.md#webhook-endpoints), each with its
// URL, filters, signing secret and state. The list with a create form; an endpoint's page with its edit form,
// enable/disable, secret rotation, test send, delete, its recent deliveries, and for an endpoint printroute
// disabled for failing, re-enabling it and redelivering what it missed. All through /v4.0/webhooks, as any client.
// The Developers shell (its subnavigation) is handed in by the plugin, so that this page imports no other page.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Type } from 'typebox'
import { knownEventTypes, WEBHOOK_ENDPOINT_LIMITS } from '../../domain/webhook-endpoints.ts'
import type { WebhookSchema } from '../../http/schemas/webhooks.schema.ts'
import { type ApiBody, describeApiError } from '../kit/api-client.ts'
import { type CallbackDelivery, callbacksTable } from '../kit/callbacks-table.ts'
import { eventWords, formatTime } from '../kit/format.ts'
import {
  errorSummary,
  type FieldErrors,
  type FieldTarget,
  type FormValues,
  fieldErrors,
  fieldMessages,
  formValue,
  invalidAttributes,
  NO_ERRORS,
} from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, environmentName, errorNotice, type Notice } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import { refreshing } from './refreshing.ts'

/** A webhook endpoint as GET /v4.0/webhooks answers it. */
type WebhookEndpoint = Type.Static<typeof WebhookSchema>

/** Answers with a page inside the Developers shell, as its Webhooks view. */
export type DeveloperPageSender = (
  request: FastifyRequest,
  reply: FastifyReply,
  page: { title: string; content: Html; status?: number; notice?: Notice },
) => FastifyReply | Promise<FastifyReply>

/** Deliveries an endpoint's page lists, newest first (the whole log: the Callbacks view). */
export const ENDPOINT_DELIVERIES_SHOWN = 20

/** The overlaps a rotation offers: how long the previous secret keeps signing too. */
const OVERLAP_CHOICES = [
  [0, 'no time: it stops at once'],
  [3_600, '1 hour'],
  [86_400, '1 day'],
  [7 * 86_400, '7 days'],
  [30 * 86_400, '30 days'],
] as const
const DEFAULT_OVERLAP_SECONDS = 86_400

const WEBHOOKS_PATH = `${DASHBOARD_PATH}/developers/webhooks`
const endpointPath = (id: string, rest = '') => `${WEBHOOKS_PATH}/${encodeURIComponent(id)}${rest}`

/** The form as typed: what a refused form shows again, so nothing typed is lost. */
interface EndpointForm {
  url: string
  description: string
  /** The known types ticked. */
  checkedTypes: string[]
  /** The free text box: prefixes and any other entries, one a line. */
  otherTypes: string
  /** key=value lines. */
  metadata: string
  enabled: boolean
}

const EMPTY_FORM: EndpointForm = {
  url: '',
  description: '',
  checkedTypes: [],
  otherTypes: '',
  metadata: '',
  enabled: true,
}

function formOfEndpoint(endpoint: WebhookEndpoint, known: readonly string[]): EndpointForm {
  return {
    url: endpoint.url,
    description: endpoint.description ?? '',
    checkedTypes: endpoint.eventTypes.filter((type) => known.includes(type)),
    otherTypes: endpoint.eventTypes.filter((type) => !known.includes(type)).join('\n'),
    metadata: Object.entries(endpoint.metadataFilter)
      .map(
        ([key, value]) =>
          `${key}=${typeof value === 'string' && metadataValue(value) !== value ? JSON.stringify(value) : String(value)}`,
      )
      .join('\n'),
    enabled: endpoint.enabled,
  }
}

function listOf(values: FormValues, name: string): string[] {
  const value = values[name]
  return value === undefined ? [] : typeof value === 'string' ? [value] : value
}

function formOfValues(values: FormValues): EndpointForm {
  return {
    url: formValue(values, 'url').trim(),
    description: formValue(values, 'description').trim(),
    checkedTypes: listOf(values, 'eventTypes'),
    otherTypes: formValue(values, 'otherEventTypes'),
    metadata: formValue(values, 'metadataFilter'),
    enabled: formValue(values, 'enabled') === 'true',
  }
}

/** The filter's entries as sent: the ticked types, then the typed ones (one a line, or separated by spaces or commas). */
function eventTypesOf(form: EndpointForm): string[] {
  const typed = form.otherTypes.split(/[\s,]+/).filter((entry) => entry !== '')
  return [...new Set([...form.checkedTypes, ...typed])]
}

/**
 * A metadata filter line's value: `true`/`false` a boolean, a number a number, a JSON string ("123") that string,
 * anything else the text as typed. An order's metadata value must equal it exactly, type included.
 */
function metadataValue(text: string): string | number | boolean {
  if (text === 'true') return true
  if (text === 'false') return false
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text)
  if (/^".*"$/.test(text)) {
    try {
      return String(JSON.parse(text))
    } catch {
      return text
    }
  }
  return text
}

/** key=value lines as the API's object; a line without `=` is refused here, naming its line. */
function metadataFilterOf(text: string): Record<string, string | number | boolean> | { badLine: number } {
  const filter: Record<string, string | number | boolean> = {}
  const lines = text.split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue
    const equals = line.indexOf('=')
    if (equals === -1) return { badLine: index + 1 }
    filter[line.slice(0, equals).trim()] = metadataValue(line.slice(equals + 1).trim())
  }
  return filter
}

/** The request body of a create or an edit, or a refusal of the form's own (a metadata line it cannot read). */
function bodyOfForm(form: EndpointForm): { body: Record<string, unknown> } | { refused: ApiBody } {
  const metadataFilter = metadataFilterOf(form.metadata)
  if ('badLine' in metadataFilter) {
    return {
      refused: {
        outcome: 'ValidationFailed',
        statusText: 'The metadata filter could not be read.',
        failures: {
          metadataFilter: [
            { code: 'InvalidFormat', comparisonValue: `line ${metadataFilter.badLine} is not key=value` },
          ],
        },
      },
    }
  }
  return {
    body: {
      url: form.url,
      description: form.description === '' ? null : form.description,
      eventTypes: eventTypesOf(form),
      metadataFilter,
    },
  }
}

/** Where each failure of the API's answer shows on the form. */
function targetOf(sentTypes: readonly string[]): (path: string) => FieldTarget | null {
  return (path) => {
    if (path === 'url') return { id: 'webhook-url', label: 'URL' }
    if (path === 'description') return { id: 'webhook-description', label: 'Description' }
    if (path === 'webhooks') return { id: 'webhook-url', label: 'Endpoints of this environment' }
    if (path === 'eventTypes') return { id: 'webhook-other-types', label: 'Event types' }
    const entry = /^eventTypes\[(\d+)\]$/.exec(path)
    if (entry) return { id: 'webhook-other-types', label: `Event type "${sentTypes[Number(entry[1])] ?? entry[1]}"` }
    if (path === 'metadataFilter') return { id: 'webhook-metadata', label: 'Metadata filter' }
    if (path.startsWith('metadataFilter.')) {
      return { id: 'webhook-metadata', label: `Metadata filter "${path.slice('metadataFilter.'.length)}"` }
    }
    if (path === 'enabled') return { id: 'webhook-enabled', label: 'Enabled' }
    return null
  }
}

/** The group a known event type is listed under on the form. */
function groupOf(type: string): string {
  const name = type.replace(/^com\.[^.]+\./, '')
  if (name.startsWith('order.status.stage.changed')) return 'Order stages'
  if (name.startsWith('order.shipments.')) return 'Shipments'
  if (name.startsWith('order.status.delivery')) return 'Delivery'
  if (name.startsWith('order.status.')) return 'Order status details'
  return 'Tests and account'
}

/** An event type (or a prefix) in words: the known words of order events, the name itself otherwise. */
function typeWords(entry: string): string {
  if (entry === '*') return 'every event'
  if (entry.endsWith('*')) return `every event starting ${entry.slice(0, -1)}`
  if (/\.webhook\.endpoint#Disabled$/.test(entry)) return 'A webhook endpoint was disabled'
  return eventWords(entry)
}

function filterWords(endpoint: WebhookEndpoint): Html {
  const types =
    endpoint.eventTypes.length === 0
      ? html`<div>Every event</div>`
      : html`<div>${endpoint.eventTypes.map(typeWords).join('; ')}</div><details><summary>Exactly<span class="visually-hidden"> the event types of ${endpoint.id}</span></summary><ul class="plain small">${endpoint.eventTypes.map((entry) => html`<li><code class="event-type">${entry}</code></li>`)}</ul></details>`
  const metadata = Object.entries(endpoint.metadataFilter)
  return html`${types}${
    metadata.length === 0
      ? ''
      : html`<div class="small">of orders whose metadata has ${metadata.map(([key, value], index) => html`${index > 0 ? ' and ' : ''}<code>${key}</code> = <code>${JSON.stringify(value)}</code>`)}</div>`
  }`
}

function stateWords(endpoint: WebhookEndpoint): Html {
  if (endpoint.enabled) {
    return html`<span class="badge badge-ok">Enabled</span>${endpoint.failingSince ? html`<div class="small failing">failing since ${formatTime(endpoint.failingSince)}</div>` : ''}`
  }
  const why = endpoint.disabledReason === 'failing' ? 'for failing' : 'by hand'
  return html`<span class="badge ${endpoint.disabledReason === 'failing' ? 'badge-error' : 'badge-cancelled'}">Disabled ${why}</span>${endpoint.disabledAt ? html`<div class="muted small">since ${formatTime(endpoint.disabledAt)}</div>` : ''}${endpoint.failingSince ? html`<div class="muted small">failing since ${formatTime(endpoint.failingSince)}</div>` : ''}`
}

function attemptsWords(endpoint: WebhookEndpoint): Html {
  const when = (time: string | null) => (time ? formatTime(time) : html`<span class="muted">never</span>`)
  return html`<div class="small">last success ${when(endpoint.lastSuccessAt)}</div><div class="small muted">last attempt ${when(endpoint.lastAttemptAt)}</div>`
}

function endpointsTable(endpoints: WebhookEndpoint[]): Html {
  if (endpoints.length === 0) {
    return html`<div class="empty card"><p>No webhook endpoints yet: events go to the callback URL only (Settings).</p></div>`
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="webhooks-caption"><table class="webhooks phone-cards"><caption id="webhooks-caption" class="visually-hidden">Webhook endpoints, oldest first</caption>
<thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Deliveries</th></tr></thead>
<tbody>${endpoints.map(
    (endpoint) => html`<tr data-webhook="${endpoint.id}">
<th scope="row"><a href="${endpointPath(endpoint.id)}"><code>${endpoint.id}</code></a><div class="small"><code class="event-type">${endpoint.url}</code></div>${endpoint.description ? html`<div class="muted small">${endpoint.description}</div>` : ''}</th>
<td data-label="Events">${filterWords(endpoint)}</td>
<td data-label="State">${stateWords(endpoint)}</td>
<td data-label="Deliveries">${attemptsWords(endpoint)}</td>
</tr>`,
  )}</tbody></table></div>`
}

/** The create and edit form: the same fields, its errors next to them and summed up at the top. */
function endpointFormFields(input: {
  form: EndpointForm
  known: readonly string[]
  errors: FieldErrors
  /** The create form's enabled box; the endpoint page enables and disables with buttons of their own. */
  withEnabled: boolean
}): Html {
  const { form, known, errors } = input
  const groups = new Map<string, string[]>()
  for (const type of known) groups.set(groupOf(type), [...(groups.get(groupOf(type)) ?? []), type])
  let box = 0
  return html`<div class="field field-wide"><label for="webhook-url">URL</label>
<input id="webhook-url" name="url" type="url" value="${form.url}" required placeholder="https://shop.example/printroute-events" spellcheck="false"${invalidAttributes(errors, 'webhook-url')}>${fieldMessages(errors, 'webhook-url')}</div>
<div class="field field-wide"><label for="webhook-description">Description <span class="muted">(optional)</span></label>
<input id="webhook-description" name="description" value="${form.description}" maxlength="${WEBHOOK_ENDPOINT_LIMITS.descriptionLength}"${invalidAttributes(errors, 'webhook-description')}>${fieldMessages(errors, 'webhook-description')}</div>
<fieldset class="event-types" id="webhook-event-types"><legend>Event types</legend>
<p class="muted small">None ticked and none typed: every event.</p>
${[...groups].map(
  ([group, types]) =>
    html`<fieldset class="event-type-group"><legend>${group}</legend>${types.map((type) => {
      box += 1
      return html`<label class="option-line" for="webhook-type-${box}"><input type="checkbox" id="webhook-type-${box}" name="eventTypes" value="${type}"${form.checkedTypes.includes(type) ? html` checked` : ''}> <span>${typeWords(type)} <code class="muted small event-type">${type.replace(/^com\.[^.]+\./, '')}</code></span></label>`
    })}</fieldset>`,
)}
<div class="field field-wide"><label for="webhook-other-types">Other types and prefixes <span class="muted">(one a line)</span></label>
<textarea id="webhook-other-types" name="otherEventTypes" rows="2" class="code" spellcheck="false" placeholder="com.${vendorOf(known)}.order.shipments.*" aria-describedby="webhook-other-types-hint${errors.of('webhook-other-types').length > 0 ? ' webhook-other-types-error' : ''}"${errors.of('webhook-other-types').length > 0 ? html` aria-invalid="true"` : ''}>${form.otherTypes}</textarea>
<div id="webhook-other-types-hint" class="muted small">An exact type, or a prefix ending in <code>*</code> such as <code>com.${vendorOf(known)}.order.shipments.*</code>.</div>${fieldMessages(errors, 'webhook-other-types')}</div>
</fieldset>
<div class="field field-wide"><label for="webhook-metadata">Metadata filter <span class="muted">(optional, key=value lines)</span></label>
<textarea id="webhook-metadata" name="metadataFilter" rows="2" class="code" spellcheck="false" placeholder="channel=shop-eu" aria-describedby="webhook-metadata-hint${errors.of('webhook-metadata').length > 0 ? ' webhook-metadata-error' : ''}"${errors.of('webhook-metadata').length > 0 ? html` aria-invalid="true"` : ''}>${form.metadata}</textarea>
<div id="webhook-metadata-hint" class="muted small">Only events of orders whose metadata has each key with exactly this value; <code>true</code>, <code>false</code> and numbers are compared as such (<code>"123"</code> for the text). Empty: every order.</div>${fieldMessages(errors, 'webhook-metadata')}</div>
${
  input.withEnabled
    ? html`<label class="option-line" for="webhook-enabled"><input type="checkbox" id="webhook-enabled" name="enabled" value="true"${form.enabled ? html` checked` : ''}> Enabled: send it events from now on</label>`
    : ''
}`
}

/** An instant as the notices say it (they are text, not markup): `2026-11-28 03:10 UTC`. */
function timeText(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

function vendorOf(known: readonly string[]): string {
  return /^com\.([^.]+)\./.exec(known[0] ?? '')?.[1] ?? 'printroute'
}

/** A new signing secret, shown once: after creation and after a rotation. */
function secretOnce(endpointId: string, secret: string, rotated: boolean): Html {
  return html`<section class="key-once secret-once" aria-labelledby="new-secret-heading"><h2 id="new-secret-heading">${rotated ? 'The new' : 'The'} signing secret of ${endpointId}</h2>
<p><strong>Copy it now, it is not shown again.</strong> Check each delivery's <code>webhook-signature</code> header with it
(docs/callbacks.md, signatures); the endpoint shows only its first characters from now on.</p>
<p><code id="new-signing-secret">${secret}</code></p></section>`
}

export function registerWebhookPages(pages: FastifyInstance, dashboard: Dashboard, send: DeveloperPageSender): void {
  const known = knownEventTypes(dashboard.eventVendor)
  const name = environmentName(dashboard.environment)

  const scopeNotice = (request: FastifyRequest, reply: FastifyReply) =>
    send(request, reply, {
      title: 'Webhooks',
      content: html`<h1>Webhooks</h1>${scopeMissing('manageWebhooks')}
<p>Sign in with a key that has it to manage the environment's webhook endpoints.</p>`,
    })

  async function sendList(
    request: FastifyRequest,
    reply: FastifyReply,
    input: { form?: EndpointForm; refused?: ApiBody; status?: number; created?: { id: string; secret: string } } = {},
  ) {
    const { api, csrfToken, caller } = request.signedIn
    if (!mayUse(caller.scopes, 'manageWebhooks')) return scopeNotice(request, reply)
    const answer = await api.get<{ webhooks: WebhookEndpoint[] }>('/webhooks')
    const endpoints = answer.ok ? answer.body.webhooks : []
    const form = input.form ?? EMPTY_FORM
    const errors = input.refused ? fieldErrors(input.refused, targetOf(eventTypesOf(form))) : NO_ERRORS
    const full = endpoints.length >= WEBHOOK_ENDPOINT_LIMITS.perEnvironment
    return send(request, reply, {
      title: 'Webhooks',
      ...(input.status ? { status: input.status } : {}),
      ...(answer.ok ? {} : { notice: errorNotice(answer) }),
      content: html`<h1>Webhooks</h1>
${input.created ? secretOnce(input.created.id, input.created.secret, false) : ''}
<p>The ${name} webhook endpoints, oldest first: each receives, besides the callback URL of Settings, the events its
filters accept, signed with its own secret (<code>GET /v4.0/webhooks</code>). At most
${WEBHOOK_ENDPOINT_LIMITS.perEnvironment} per environment.</p>
${endpointsTable(endpoints)}
<form method="post" action="${WEBHOOKS_PATH}" class="card settings-card stack webhook-form" aria-labelledby="new-webhook-heading" novalidate>${csrfField(csrfToken)}
<h2 id="new-webhook-heading">Add an endpoint</h2>
${errorSummary(input.refused ?? null, errors, 'The endpoint was not added')}
${full ? html`<p class="notice notice-info">This environment has ${endpoints.length} endpoints, the most it may have: delete one to add another.</p>` : ''}
${endpointFormFields({ form, known, errors, withEnabled: true })}
<div class="form-buttons"><button type="submit">Add endpoint</button></div>
</form>`,
    })
  }

  pages.get('/developers/webhooks', (request, reply) => sendList(request, reply))

  // The new secret is in this answer only: never in a redirect, a cookie or a URL.
  pages.post<{ Body: FormValues }>('/developers/webhooks', async (request, reply) => {
    const form = formOfValues(request.body ?? {})
    const made = bodyOfForm(form)
    if ('refused' in made) return sendList(request, reply, { form, refused: made.refused, status: 400 })
    const answer = await request.signedIn.api.post<{ webhook: WebhookEndpoint; signingSecret: string }>('/webhooks', {
      ...made.body,
      enabled: form.enabled,
    })
    if (!answer.ok) return sendList(request, reply, { form, refused: answer.body, status: answer.status })
    return sendList(request, reply, {
      created: { id: answer.body.webhook.id, secret: answer.body.signingSecret },
    })
  })

  type EndpointRequest = FastifyRequest<{ Params: { webhookId: string }; Body: FormValues }>

  async function sendEndpoint(
    request: EndpointRequest,
    reply: FastifyReply,
    input: { form?: EndpointForm; refused?: ApiBody; status?: number; rotatedSecret?: string } = {},
  ) {
    const { api, csrfToken, caller } = request.signedIn
    if (!mayUse(caller.scopes, 'manageWebhooks')) return scopeNotice(request, reply)
    const id = request.params.webhookId
    const answer = await api.get<{ webhook: WebhookEndpoint }>(`/webhooks/${encodeURIComponent(id)}`)
    if (!answer.ok) return notFound(request, reply, answer.status, answer.body)
    const endpoint = answer.body.webhook
    const deliveries = await api.get<{ callbacks: CallbackDelivery[] }>('/callbacks', {
      webhookId: endpoint.id,
      top: ENDPOINT_DELIVERIES_SHOWN,
    })
    const callbacks = deliveries.ok ? deliveries.body.callbacks : []
    const here = endpointPath(endpoint.id)
    const pending = callbacks.some((delivery) => delivery.status === 'pending')
    const form = input.form ?? formOfEndpoint(endpoint, known)
    const errors = input.refused ? fieldErrors(input.refused, targetOf(eventTypesOf(form))) : NO_ERRORS
    const action = (path: string, label: string, fields: Html = html``, danger = false) =>
      html`<form method="post" action="${endpointPath(endpoint.id, path)}" class="inline-form">${csrfField(csrfToken)}${fields}<button type="submit"${danger ? html` class="button-danger"` : ''}>${label}</button></form>`
    return send(request, reply, {
      title: endpoint.id,
      ...(input.status ? { status: input.status } : {}),
      ...(deliveries.ok ? {} : { notice: errorNotice(deliveries) }),
      content: html`<p><a href="${WEBHOOKS_PATH}">All webhook endpoints</a></p>
<h1>Webhook endpoint <code>${endpoint.id}</code></h1>
${input.rotatedSecret ? secretOnce(endpoint.id, input.rotatedSecret, true) : ''}
${
  endpoint.disabledReason === 'failing'
    ? html`<section class="card issues" aria-labelledby="failing-heading"><h2 id="failing-heading">Disabled for failing</h2>
<p>Every delivery to <code>${endpoint.url}</code> failed from ${formatTime(endpoint.failingSince)}, so printroute disabled it on
${formatTime(endpoint.disabledAt)}: it receives nothing now, and the events since then were not sent to it. Fix the receiver
(the deliveries below show what it answered; Send test checks it), then re-enable it: that also sends it again every
event its filters accept that it has not received since it began to fail.</p>
${action('/recover', 'Re-enable and redeliver what it missed')}
</section>`
    : ''
}
<dl class="facts">
<div><dt>URL</dt><dd><code class="event-type">${endpoint.url}</code></dd></div>
<div><dt>Description</dt><dd>${endpoint.description ?? html`<span class="muted">none</span>`}</dd></div>
<div><dt>Events</dt><dd>${filterWords(endpoint)}</dd></div>
<div><dt>State</dt><dd>${stateWords(endpoint)}</dd></div>
<div><dt>Deliveries</dt><dd>${attemptsWords(endpoint)}</dd></div>
<div><dt>Signing secret</dt><dd><code>${endpoint.signingSecretPrefix}…</code>${endpoint.previousSigningSecretExpiresAt ? html` <span class="muted small">the previous one signs too until ${formatTime(endpoint.previousSigningSecretExpiresAt)}</span>` : ''}</dd></div>
<div><dt>Created</dt><dd>${formatTime(endpoint.created)} <span class="muted small">changed ${formatTime(endpoint.lastUpdated)}</span></dd></div>
</dl>
<div class="actions webhook-actions">
${action('/test', 'Send test')}
${
  endpoint.enabled
    ? action('/enabled', 'Disable', html`<input type="hidden" name="enabled" value="false">`)
    : endpoint.disabledReason === 'failing'
      ? ''
      : action('/enabled', 'Enable', html`<input type="hidden" name="enabled" value="true">`)
}
<a class="button button-danger" href="${endpointPath(endpoint.id, '/delete')}">Delete</a>
<p class="muted small">Send test posts a <code>com.${dashboard.eventVendor}.test</code> event to it now, once, signed with its secret, even while it is disabled.</p>
</div>
<form method="post" action="${here}" class="card settings-card stack webhook-form" aria-labelledby="edit-webhook-heading" novalidate>${csrfField(csrfToken)}
<h2 id="edit-webhook-heading">Change the endpoint</h2>
${errorSummary(input.refused ?? null, errors, 'The endpoint was not changed')}
${endpointFormFields({ form, known, errors, withEnabled: false })}
<div class="form-buttons"><button type="submit">Save changes</button></div>
</form>
<form method="post" action="${endpointPath(endpoint.id, '/rotate')}" class="card settings-card stack" aria-labelledby="rotate-heading">${csrfField(csrfToken)}
<h2 id="rotate-heading">Rotate the signing secret</h2>
<p>A new secret signs from now on; the page shows it once. Keep the previous one signing too while the receiver
changes over: each delivery then carries both signatures.</p>
<div class="field"><label for="rotate-overlap">The previous secret keeps signing for</label>
<select id="rotate-overlap" name="overlap">${OVERLAP_CHOICES.map(
        ([seconds, words]) =>
          html`<option value="${String(seconds)}"${seconds === DEFAULT_OVERLAP_SECONDS ? html` selected` : ''}>${words}</option>`,
      )}</select></div>
<div class="form-buttons"><button type="submit">Rotate secret</button></div>
</form>
<section aria-labelledby="deliveries-heading"${refreshing('webhook-deliveries', here, pending)}>
<h2 id="deliveries-heading">Recent deliveries</h2>
<p class="muted">The last ${ENDPOINT_DELIVERIES_SHOWN} deliveries to this endpoint, newest first (<code>GET /v4.0/callbacks?webhookId=${endpoint.id}</code>). Redeliver sends one again to its URL and secret as they are now.</p>
${
  callbacks.length === 0
    ? html`<p class="muted">No deliveries to this endpoint yet.</p>`
    : callbacksTable(callbacks, csrfToken, here, true, mayUse(caller.scopes, 'redeliverCallbacks'))
}
</section>`,
    })
  }

  const notFound = (request: FastifyRequest, reply: FastifyReply, status: number, body: ApiBody) =>
    send(request, reply, {
      title: 'Endpoint not found',
      status,
      notice: { kind: 'error', text: describeApiError(body) },
      content: html`<h1>No webhook endpoint ${(request.params as { webhookId: string }).webhookId}</h1>
<p>This environment has no such endpoint (it may have been deleted).</p><p><a href="${WEBHOOKS_PATH}">All webhook endpoints</a></p>`,
    })

  /** A PATCH of the endpoint; its answer, or a redirect to its page with the refusal as a notice. */
  const patch = (request: EndpointRequest, body: Record<string, unknown>) =>
    request.signedIn.api.patch<{ webhook: WebhookEndpoint; signingSecret?: string }>(
      `/webhooks/${encodeURIComponent(request.params.webhookId)}`,
      body,
    )
  const backTo = (request: EndpointRequest) => `/developers/webhooks/${encodeURIComponent(request.params.webhookId)}`

  pages.get<{ Params: { webhookId: string } }>('/developers/webhooks/:webhookId', (request, reply) =>
    sendEndpoint(request as EndpointRequest, reply),
  )

  pages.post<{ Params: { webhookId: string }; Body: FormValues }>(
    '/developers/webhooks/:webhookId',
    async (request, reply) => {
      const form = formOfValues(request.body ?? {})
      const made = bodyOfForm(form)
      if ('refused' in made) return sendEndpoint(request, reply, { form, refused: made.refused, status: 400 })
      const answer = await patch(request, made.body)
      if (!answer.ok) return sendEndpoint(request, reply, { form, refused: answer.body, status: answer.status })
      return dashboard.redirect(reply, backTo(request), {
        kind: 'success',
        text: `Endpoint ${answer.body.webhook.id} saved.`,
      })
    },
  )

  pages.post<{ Params: { webhookId: string }; Body: FormValues }>(
    '/developers/webhooks/:webhookId/enabled',
    async (request, reply) => {
      const enabled = formValue(request.body ?? {}, 'enabled') === 'true'
      const answer = await patch(request, { enabled })
      if (!answer.ok) return dashboard.redirect(reply, backTo(request), errorNotice(answer))
      return dashboard.redirect(reply, backTo(request), {
        kind: 'success',
        text: enabled
          ? `Endpoint ${answer.body.webhook.id} is enabled: it receives the events its filters accept from now on.`
          : `Endpoint ${answer.body.webhook.id} is disabled: it receives nothing until it is enabled again.`,
      })
    },
  )

  // The new secret is in this answer only.
  pages.post<{ Params: { webhookId: string }; Body: FormValues }>(
    '/developers/webhooks/:webhookId/rotate',
    async (request, reply) => {
      const overlap = formValue(request.body ?? {}, 'overlap')
      const answer = await patch(request, {
        rotateSigningSecret: true,
        signingSecretOverlapSeconds: /^\d{1,9}$/.test(overlap) ? Number(overlap) : overlap,
      })
      if (!answer.ok || answer.body.signingSecret === undefined) {
        return dashboard.redirect(reply, backTo(request), errorNotice(answer))
      }
      return sendEndpoint(request, reply, { rotatedSecret: answer.body.signingSecret })
    },
  )

  registerEndpointActionPages()

  /** The pages of an endpoint's actions: send a test, delete it, re-enable it after failing. */
  function registerEndpointActionPages(): void {
    pages.post<{ Params: { webhookId: string } }>('/developers/webhooks/:webhookId/test', async (request, reply) => {
      const answer = await request.signedIn.api.post<{ callback: CallbackDelivery }>(
        `/webhooks/${encodeURIComponent(request.params.webhookId)}/test`,
      )
      if (!answer.ok) return dashboard.redirect(reply, backTo(request as EndpointRequest), errorNotice(answer))
      const { callback } = answer.body
      const attempt = callback.attempts[0]
      const answered =
        attempt?.httpStatus == null ? `no answer (${attempt?.error ?? 'unknown error'})` : `HTTP ${attempt.httpStatus}`
      const snippet = attempt?.responseSnippet ? `; the receiver said: ${attempt.responseSnippet.slice(0, 200)}` : ''
      return dashboard.redirect(reply, backTo(request as EndpointRequest), {
        kind: callback.status === 'delivered' ? 'success' : 'error',
        text: `Test callback ${callback.id} to ${callback.url} ${callback.status}: ${answered} in ${attempt?.latencyMs ?? 0} ms${snippet}.`,
      })
    })

    pages.get<{ Params: { webhookId: string } }>('/developers/webhooks/:webhookId/delete', async (request, reply) => {
      const { api, csrfToken, caller } = request.signedIn
      if (!mayUse(caller.scopes, 'manageWebhooks')) return scopeNotice(request, reply)
      const answer = await api.get<{ webhook: WebhookEndpoint }>(
        `/webhooks/${encodeURIComponent(request.params.webhookId)}`,
      )
      if (!answer.ok) return notFound(request, reply, answer.status, answer.body)
      const endpoint = answer.body.webhook
      return send(request, reply, {
        title: `Delete ${endpoint.id}`,
        content: html`<h1>Delete webhook endpoint ${endpoint.id}?</h1>
  <form method="post" action="${endpointPath(endpoint.id, '/delete')}" class="card stack">${csrfField(csrfToken)}
  <p><code class="event-type">${endpoint.url}</code> receives no more events from now on, not even the deliveries still
  waiting for a retry. Its deliveries stay listed in the Callbacks view. This cannot be undone: to receive events there
  again, add it again (with a new signing secret).</p>
  <div class="form-buttons"><button type="submit" class="button-danger">Delete endpoint</button> <a href="${endpointPath(endpoint.id)}">Keep it</a></div>
  </form>`,
      })
    })

    pages.post<{ Params: { webhookId: string } }>('/developers/webhooks/:webhookId/delete', async (request, reply) => {
      const answer = await request.signedIn.api.delete<{ webhook: WebhookEndpoint }>(
        `/webhooks/${encodeURIComponent(request.params.webhookId)}`,
      )
      if (!answer.ok) return dashboard.redirect(reply, backTo(request as EndpointRequest), errorNotice(answer))
      return dashboard.redirect(reply, '/developers/webhooks', {
        kind: 'success',
        text: `Endpoint ${answer.body.webhook.id} (${answer.body.webhook.url}) is deleted: it receives nothing more.`,
      })
    })

    // Re-enabling an endpoint printroute disabled for failing, then sending it what it missed: two calls, as a
    // client makes them (PATCH enabled, then redeliver-missed, which wants an enabled endpoint).
    pages.post<{ Params: { webhookId: string } }>('/developers/webhooks/:webhookId/recover', async (request, reply) => {
      const back = backTo(request as EndpointRequest)
      const id = encodeURIComponent(request.params.webhookId)
      const enabled = await patch(request as EndpointRequest, { enabled: true })
      if (!enabled.ok) return dashboard.redirect(reply, back, errorNotice(enabled))
      const missed = await request.signedIn.api.post<{
        redelivered: number
        since: string
        hasMore?: boolean
        nextSince?: string | null
      }>(`/webhooks/${id}/redeliver-missed`, {})
      if (!missed.ok) {
        return dashboard.redirect(reply, back, {
          kind: 'error',
          text: `Endpoint ${enabled.body.webhook.id} is enabled again, but what it missed was not redelivered: ${describeApiError(missed.body)}`,
        })
      }
      const { redelivered, since, hasMore } = missed.body
      return dashboard.redirect(reply, back, {
        kind: 'success',
        text:
          `Endpoint ${enabled.body.webhook.id} is enabled again. ${redelivered === 1 ? '1 event' : `${redelivered} events`} it missed since ${timeText(since)} ${redelivered === 1 ? 'is' : 'are'} being redelivered` +
          (hasMore
            ? '; there are more: use POST /v4.0/webhooks/{id}/redeliver-missed with nextSince for the rest.'
            : '.'),
      })
    })
  }
}
