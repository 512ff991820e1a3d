// The callbacks of an order (its page) or of the account (the developers' callbacks log): each delivery, its
// attempts, and a button to send it again.
import type { Type } from 'typebox'
import type { CallbackSchema } from '../../http/schemas/callbacks.schema.ts'
import { eventWords, formatTime, stateBadge } from './format.ts'
import { type Html, html } from './html.ts'
import { csrfField, DASHBOARD_PATH, orderPath } from './layout.ts'

/** A callback delivery as GET /v4.0/callbacks answers it. */
export type CallbackDelivery = Type.Static<typeof CallbackSchema>

/**
 * The deliveries, in the order given. `back`: the page a redelivery returns to; `showOrder`: a column naming
 * each delivery's order (the account's log); `redeliver`: false for a read-only view (the operator console's),
 * which has no redeliver buttons.
 */
export function callbacksTable(
  callbacks: CallbackDelivery[],
  csrfToken: string,
  back: string,
  showOrder: boolean,
  redeliver = true,
): Html {
  if (callbacks.length === 0)
    return html`<p class="muted">No callbacks: they are sent when the order or the account has a callback URL.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Callbacks"><table class="callbacks phone-cards"><caption class="visually-hidden">Callbacks</caption>
<thead><tr><th scope="col">Callback</th>${showOrder ? html`<th scope="col">Order</th>` : ''}<th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th>${redeliver ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : ''}</tr></thead>
<tbody>${callbacks.map(
    (delivery) => html`<tr>
<th scope="row"><code>${delivery.id}</code>${delivery.redeliveryOf ? html`<div class="muted small">again for ${delivery.redeliveryOf}</div>` : ''}<div class="muted small">${formatTime(delivery.created)}</div></th>
${showOrder ? html`<td data-label="Order">${delivery.orderId ? html`<a href="${orderPath(delivery.orderId)}">${delivery.orderId}</a>` : html`<span class="muted">none (test)</span>`}</td>` : ''}
<td data-label="Event">${eventWords(delivery.type)}<div class="muted small">to ${delivery.url}</div></td>
<td data-label="Status">${stateBadge(delivery.status)}${delivery.nextAttemptAt ? html`<div class="muted small">next ${formatTime(delivery.nextAttemptAt)}</div>` : ''}</td>
<td data-label="Attempts">${
      delivery.attempts.length === 0
        ? html`<span class="muted">none yet</span>`
        : html`<ol class="attempts">${delivery.attempts.map(
            (attempt) =>
              html`<li>${formatTime(attempt.time)}: ${attempt.httpStatus === null ? html`<span class="badge badge-error">no answer</span>` : html`<span class="badge ${attempt.httpStatus < 300 ? 'badge-complete' : 'badge-error'}">HTTP ${attempt.httpStatus}</span>`} ${attempt.latencyMs} ms${attempt.error ? html` <span class="muted">${attempt.error}</span>` : ''}${attempt.responseSnippet ? html`<details><summary>Response</summary><pre tabindex="0">${attempt.responseSnippet}</pre></details>` : ''}</li>`,
          )}</ol>`
    }</td>
${redeliver ? html`<td><form method="post" action="${DASHBOARD_PATH}/callbacks/${delivery.id}/redeliver">${csrfField(csrfToken)}<input type="hidden" name="back" value="${back}"><button type="submit" class="button-small" aria-label="Redeliver ${delivery.id}">Redeliver</button></form></td>` : ''}
</tr>`,
  )}</tbody></table></div>`
}
