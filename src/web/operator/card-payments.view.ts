// The console's view of card payments through the payment provider (docs/admin.md#payments), read-only: an account's
// Payments block (its card on file, latest payments, refunds to the card, disputes) and an order's (a banner while it
// has a dispute, then its card payments, refunds and disputes).
import type { ConsoleCardPayments } from '../../domain/console-sections.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { ADMIN_PATH } from './admin-context.ts'

const PURPOSE_WORDS: Record<string, string> = {
  orderPayment: 'Order payment (payment page)',
  orderCharge: 'Order charge (card on file)',
  topUp: 'Top-up',
  cardSetup: 'Card saved',
}

const none = html`<span class="muted">—</span>`

function orderLink(orderId: string | null): Html {
  return orderId ? html`<a href="${ADMIN_PATH}/orders/${orderId}">${orderId}</a>` : none
}

function money(amount: string | null, currency: string | null): Html {
  return amount === null ? none : html`${amount} ${currency ?? ''}`
}

function cardOnFile(card: ConsoleCardPayments['cardOnFile']): Html {
  if (!card) return html`<p data-card-on-file>Card on file: <span class="muted">none saved</span></p>`
  return html`<p data-card-on-file>Card on file: <strong>${card.brand ?? 'card'} ending ${card.last4 ?? '????'}</strong>${
    card.expiry ? html`, expires ${card.expiry}` : ''
  }${card.savedAt ? html` <span class="muted small">(saved ${formatTime(card.savedAt)})</span>` : ''}</p>`
}

function paymentsTable(id: string, payments: ConsoleCardPayments['payments'], showOrder: boolean): Html {
  // On an order's page the block's own heading says "Card payments": its table is the payments.
  const heading = showOrder ? 'Card payments' : 'Payments'
  if (payments.length === 0) return html`<h3>${heading}</h3><p class="muted">No card payments.</p>`
  return html`<h3>${heading}</h3><div class="table-wrap" tabindex="0" role="region" aria-labelledby="${id}-caption"><table>
<caption id="${id}-caption" class="visually-hidden">Card payments</caption>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col" class="number">Amount</th><th scope="col">Status</th><th scope="col" class="number">Refunded</th>${showOrder ? html`<th scope="col">Order</th>` : ''}<th scope="col">Payment</th></tr></thead>
<tbody>${payments.map(
    (payment) => html`<tr>
<td>${formatTime(payment.at)}</td>
<td>${PURPOSE_WORDS[payment.purpose] ?? payment.purpose}</td>
<td class="number">${money(payment.amount, payment.currency)}</td>
<td>${payment.status}</td>
<td class="number">${payment.refunded === '0.00' ? none : html`${payment.refunded} ${payment.currency ?? ''}`}</td>
${showOrder ? html`<td>${orderLink(payment.orderId)}</td>` : ''}
<td>${payment.paymentId ? html`<code>${payment.paymentId}</code>` : none}</td>
</tr>`,
  )}</tbody></table></div>`
}

function refundsTable(id: string, refunds: ConsoleCardPayments['refunds'], showOrder: boolean): Html {
  if (refunds.length === 0) return html`<h3>Refunds to the card</h3><p class="muted">No refunds to a card.</p>`
  return html`<h3>Refunds to the card</h3><div class="table-wrap" tabindex="0" role="region" aria-labelledby="${id}-caption"><table>
<caption id="${id}-caption" class="visually-hidden">Refunds to the card</caption>
<thead><tr><th scope="col">When</th><th scope="col" class="number">Amount</th><th scope="col">Status</th>${showOrder ? html`<th scope="col">Order</th>` : ''}<th scope="col">Why</th></tr></thead>
<tbody>${refunds.map(
    (refund) => html`<tr>
<td>${formatTime(refund.at)}</td>
<td class="number">${refund.amount} ${refund.currency}</td>
<td>${refund.status === 'external' ? 'made outside printroute' : refund.status}</td>
${showOrder ? html`<td>${orderLink(refund.orderId)}</td>` : ''}
<td>${refund.reason ?? ''}${refund.failure ? html`<br><span class="muted small">${refund.failure}: the money stayed on the balance</span>` : ''}</td>
</tr>`,
  )}</tbody></table></div>`
}

function disputesTable(id: string, disputes: ConsoleCardPayments['disputes'], showOrder: boolean): Html {
  if (disputes.length === 0) return html`<h3>Disputes</h3><p class="muted">No disputes.</p>`
  return html`<h3>Disputes</h3><div class="table-wrap" tabindex="0" role="region" aria-labelledby="${id}-caption"><table>
<caption id="${id}-caption" class="visually-hidden">Disputes</caption>
<thead><tr><th scope="col">Opened</th><th scope="col">Closed</th><th scope="col" class="number">Amount</th><th scope="col">Reason</th><th scope="col">Status</th>${showOrder ? html`<th scope="col">Order</th>` : ''}<th scope="col">Dispute</th></tr></thead>
<tbody>${disputes.map(
    (dispute) => html`<tr>
<td>${formatTime(dispute.openedAt)}</td>
<td>${formatTime(dispute.closedAt)}</td>
<td class="number">${dispute.amount} ${dispute.currency}</td>
<td>${dispute.reason}</td>
<td>${dispute.status}</td>
${showOrder ? html`<td>${orderLink(dispute.orderId)}</td>` : ''}
<td><code>${dispute.disputeId}</code></td>
</tr>`,
  )}</tbody></table></div>`
}

/** The account page's Payments block; nothing for an account that never paid through the provider nor saved a card. */
export function accountPaymentsCard(view: ConsoleCardPayments): Html {
  const empty = view.payments.length === 0 && view.refunds.length === 0 && view.disputes.length === 0
  if (empty && !view.cardOnFile) return html``
  return html`<section aria-labelledby="payments-heading" data-payments>
<h2 id="payments-heading">Payments</h2>
${cardOnFile(view.cardOnFile)}
${paymentsTable('account-payments', view.payments, true)}
${refundsTable('account-refunds', view.refunds, true)}
${disputesTable('account-disputes', view.disputes, true)}
</section>`
}

/** A banner for each dispute of the order still open or lost (a won one needs nothing more). */
export function orderDisputeBanner(view: ConsoleCardPayments): Html {
  const disputes = view.disputes.filter((dispute) => dispute.status !== 'won')
  if (disputes.length === 0) return html``
  return html`${disputes.map(
    (dispute) => html`<div class="notice notice-error" role="status" data-dispute-banner>
<strong>Disputed:</strong> the cardholder's bank took back ${dispute.amount} ${dispute.currency} (${dispute.reason}),
status <strong>${dispute.status}</strong>${dispute.closedAt ? html`, closed ${formatTime(dispute.closedAt)}` : ''}. It is recorded as owed by the account.
</div>`,
  )}`
}

/** The order page's card payments, refunds and disputes; nothing when it has none. */
export function orderPaymentsCard(view: ConsoleCardPayments): Html {
  if (view.payments.length === 0 && view.refunds.length === 0 && view.disputes.length === 0) return html``
  return html`<section aria-labelledby="order-payments-heading" data-payments>
<h2 id="order-payments-heading">Card payments</h2>
${paymentsTable('order-payments', view.payments, false)}
${view.refunds.length > 0 ? refundsTable('order-refunds', view.refunds, false) : ''}
${view.disputes.length > 0 ? disputesTable('order-disputes', view.disputes, false) : ''}
</section>`
}
