// The console's callbacks health: the merchants' callback endpoints (per account and environment) and the labs'
// push endpoints whose newest delivery attempt failed, with since when, how many deliveries failed since the last
// success, the last error and the last success. An endpoint drops off the list with its next successful attempt.
// The merchants' webhook endpoints are listed from their own failure state: failing, or disabled for failing until
// their merchant enables them again.
import type { FastifyInstance } from 'fastify'
import type {
  FailingCallbackEndpoint,
  FailingEndpointFacts,
  FailingLabEndpoint,
  FailingWebhookEndpoint,
} from '../../domain/admin-views.ts'
import type { ConsoleCallbacks } from '../../domain/console-sections.ts'
import { environmentName } from '../../domain/environment.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

/** The most failing endpoints each table lists, the longest failing first. */
export const FAILING_ENDPOINTS_LIMIT = 200

function facts(endpoint: FailingEndpointFacts): Html {
  return html`<td data-label="URL"><code class="small">${endpoint.url}</code></td>
<td data-label="Failing since">${formatTime(endpoint.failingSince)}</td>
<td class="number" data-failed-deliveries data-label="Failed deliveries">${String(endpoint.failedDeliveries)}</td>
<td data-last-error data-label="Last error">${endpoint.lastError} <div class="muted small">${formatTime(endpoint.lastAttemptAt)}</div></td>
<td data-label="Last success">${endpoint.lastSuccessAt ? formatTime(endpoint.lastSuccessAt) : html`<span class="muted">none kept</span>`}</td>`
}

const FACT_HEADINGS = html`<th scope="col">URL</th><th scope="col">Failing since</th><th scope="col" class="number">Failed deliveries</th><th scope="col">Last error</th><th scope="col">Last success</th>`

function callbacksTable(endpoints: FailingCallbackEndpoint[]): Html {
  if (endpoints.length === 0) return html`<p class="muted" data-none>No merchant's callback endpoint is failing.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Failing callback endpoints of accounts"><table class="table failing-callbacks phone-cards">
<caption class="visually-hidden">Failing callback endpoints of accounts</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Environment</th>${FACT_HEADINGS}</tr></thead>
<tbody>${endpoints.map(
    (
      endpoint,
    ) => html`<tr data-account="${endpoint.accountId}" data-environment="${endpoint.environment}"><th scope="row"><a href="${ADMIN_PATH}/accounts/${endpoint.accountId}">${endpoint.accountId}</a> <span class="muted">${endpoint.accountName}</span></th>
<td data-label="Environment">${environmentName(endpoint.environment)}</td>${facts(endpoint)}</tr>`,
  )}</tbody></table></div>`
}

function labsTable(endpoints: FailingLabEndpoint[]): Html {
  if (endpoints.length === 0) return html`<p class="muted" data-none>No lab's push endpoint is failing.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Failing push endpoints of labs"><table class="table failing-lab-pushes phone-cards">
<caption class="visually-hidden">Failing push endpoints of labs</caption>
<thead><tr><th scope="col">Lab</th>${FACT_HEADINGS}</tr></thead>
<tbody>${endpoints.map(
    (endpoint) =>
      html`<tr data-lab="${endpoint.labCode}"><th scope="row"><code>${endpoint.labCode}</code></th>${facts(endpoint)}</tr>`,
  )}</tbody></table></div>`
}

function webhooksTable(endpoints: FailingWebhookEndpoint[]): Html {
  if (endpoints.length === 0) {
    return html`<p class="muted" data-none>No merchant's webhook endpoint is failing or disabled for failing.</p>`
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Failing webhook endpoints of accounts"><table class="table failing-webhooks phone-cards">
<caption class="visually-hidden">Failing webhook endpoints of accounts</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Environment</th><th scope="col">Endpoint</th><th scope="col">URL</th><th scope="col">Failing since</th><th scope="col">Disabled</th><th scope="col">Last error</th></tr></thead>
<tbody>${endpoints.map(
    (
      endpoint,
    ) => html`<tr data-account="${endpoint.accountId}" data-environment="${endpoint.environment}" data-webhook="${endpoint.webhookId}"><th scope="row"><a href="${ADMIN_PATH}/accounts/${endpoint.accountId}">${endpoint.accountId}</a> <span class="muted">${endpoint.accountName}</span></th>
<td data-label="Environment">${environmentName(endpoint.environment)}</td>
<td data-label="Endpoint"><code>${endpoint.webhookId}</code></td>
<td data-label="URL"><code class="small">${endpoint.url}</code></td>
<td data-label="Failing since">${formatTime(endpoint.failingSince)}</td>
<td data-disabled-at data-label="Disabled">${endpoint.disabledAt ? html`<span class="badge badge-error">Disabled</span> <div class="muted small">${formatTime(endpoint.disabledAt)}</div>` : html`<span class="muted">still enabled</span>`}</td>
<td data-last-error data-label="Last error">${endpoint.lastError ?? html`<span class="muted">none kept</span>`}${endpoint.lastAttemptAt ? html` <div class="muted small">${formatTime(endpoint.lastAttemptAt)}</div>` : ''}</td></tr>`,
  )}</tbody></table></div>`
}

export function registerCallbacksPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleCallbacks): void {
  pages.get('/callbacks', async (request, reply) => {
    const failing = await deps.listFailingEndpoints()
    return console.sendPage(request, reply, {
      section: 'callbacks',
      title: 'Callbacks health',
      content: html`<div class="page-head"><h1>Callbacks health</h1></div>
<p class="muted">Endpoints whose newest delivery attempt failed, the longest failing first; one leaves the list with its next delivered attempt. From the deliveries kept (docs/callbacks.md: how long they are kept).</p>
<section aria-labelledby="merchant-callbacks-heading"><h2 id="merchant-callbacks-heading">Merchants' callback endpoints</h2>${callbacksTable(failing.callbacks)}</section>
<section aria-labelledby="merchant-webhooks-heading"><h2 id="merchant-webhooks-heading">Merchants' webhook endpoints</h2>
<p class="muted">Endpoints whose last attempt failed, and those printroute disabled after 3 days of failures (their merchant re-enables them), the longest failing first.</p>${webhooksTable(failing.webhooks)}</section>
<section aria-labelledby="lab-pushes-heading"><h2 id="lab-pushes-heading">Labs' push endpoints</h2>${labsTable(failing.labs)}</section>`,
    })
  })
}
