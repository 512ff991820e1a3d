// Billing: the account's billing (mode, currency, the prepaid balance or what an invoice account owes, the price
// list it buys on) and its invoices and credit notes in this environment, newest first, each with its PDF; a month
// narrows the list to what that month's statement holds and shows the statement's totals. Read through
// GET /v4.0/account/billing, /account/invoices and /account/statements/{month} (docs/dashboard.md#billing). A Live
// prepaid account tops up its balance by card: the Top up form asks POST /v4.0/account/top-ups and goes to its link.
import type { FastifyInstance } from 'fastify'
import { parseStatementMonth } from '../../domain/invoices.ts'
import type { ApiAnswer } from '../kit/api-client.ts'
import { formatMoney, formatTime, type Money } from '../kit/format.ts'
import { type FormValues, formValue } from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, environmentName, errorNotice, listPage, skipOf } from '../kit/layout.ts'

import { mayUse, type SessionScopes, scopeMissing } from '../kit/scopes.ts'

import type { Dashboard } from './page-context.ts'

/** Documents per page of the table. */
export const BILLING_PAGE_SIZE = 25

/** The account's billing as GET /v4.0/account/billing answers it. */
interface AccountBilling {
  environment: 'live' | 'sandbox'
  billingMode: 'invoice' | 'prepaid'
  currency: string
  balance: Money | null
  openAmount: Money | null
  priceList: string | null
}

/** A top-up as POST /v4.0/account/top-ups answers it (the parts the page shows). */
interface TopUpAnswer {
  id: string
  amount: string
  currency: string
  expiresAt: string
  url: string
}

/** A document as GET /v4.0/account/invoices lists it (the parts the page shows). */
interface AccountInvoice {
  number: string
  kind: 'Invoice' | 'CreditNote'
  orderId: string
  issuedAt: string
  totalCost: Money
  totalTax: Money
  pdfUrl: string
}

/** A month's statement as GET /v4.0/account/statements/{month} answers it. */
interface AccountStatement {
  month: string
  documentCount: number
  totals: { currency: string; invoiced: string; credited: string; tax: string; net: string }[]
}

/** The chosen month's statement: its totals per currency, as the operator's statement sums them. */
function statementCard(statement: AccountStatement): Html {
  const count = `${statement.documentCount} document${statement.documentCount === 1 ? '' : 's'}`
  return html`<section class="card statement" aria-labelledby="statement-heading" data-statement="${statement.month}">
<h3 id="statement-heading">Statement of ${statement.month}</h3>
${
  statement.totals.length === 0
    ? html`<p class="muted">No documents: nothing invoiced or credited.</p>`
    : html`<dl class="facts">${statement.totals.map(
        (total) => html`<div><dt>Invoiced</dt><dd>${total.invoiced} ${total.currency}</dd></div>
<div><dt>Credited</dt><dd>${total.credited} ${total.currency}</dd></div>
<div><dt>Tax in both</dt><dd>${total.tax} ${total.currency}</dd></div>
<div><dt>Net</dt><dd data-statement-net>${total.net} ${total.currency}</dd></div>`,
      )}</dl>
<p class="muted small">${count}. The operator can send this statement as a CSV or PDF.</p>`
}
</section>`
}

interface BillingQuery {
  month?: string
  skip?: string
  /** Where the payment provider's card setup page sent the cardholder back: `saved` or `cancelled`. */
  card?: string
}

/** The card on file as GET /v4.0/account/payment-method answers it. */
interface SavedCard {
  brand: string | null
  last4: string | null
  expiryMonth: number | null
  expiryYear: number | null
  savedAt: string
}

/** The card on file (docs/dashboard.md#billing): Live prepaid accounts only; the card with Remove, or Save a card. */
function cardOnFileBlock(
  billing: AccountBilling,
  answer: ApiAnswer<{ card: SavedCard | null }> | undefined,
  session: { csrfToken: string; scopes: SessionScopes },
): Html {
  if (billing.environment !== 'live' || billing.billingMode !== 'prepaid' || !answer?.ok) return html``
  const card = answer.body.card
  const manage = mayUse(session.scopes, 'manageCard')
  const brand = card?.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : 'Card'
  const expiry =
    card?.expiryMonth && card.expiryYear ? `${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}` : null
  const body = card
    ? html`<p class="saved-card" data-card><span class="card-brand">${brand}</span> <span class="card-number">···· ${card.last4 ?? '????'}</span>${expiry ? html` <span class="muted">expires ${expiry}</span>` : ''}</p>
<p class="muted small">An order the balance cannot cover is charged to this card for what it costs; if the card is declined or the bank asks for the cardholder, the order waits for a payment (Orders: Awaiting payment). Saved ${formatTime(card.savedAt)}.</p>
${manage ? html`<form method="post" action="${DASHBOARD_PATH}/billing/card/remove" class="actions">${csrfField(session.csrfToken)}<button type="submit" class="button-quiet">Remove</button></form>` : ''}`
    : html`<p class="muted">No card saved. With a card on file, an order the balance cannot cover is charged to it for what it costs, instead of waiting for a payment.</p>
${manage ? html`<form method="post" action="${DASHBOARD_PATH}/billing/card/setup" class="actions">${csrfField(session.csrfToken)}<button type="submit">Save a card</button></form>` : ''}`
  return html`<section class="card card-on-file stack" aria-labelledby="card-heading">
<h2 id="card-heading">Card on file</h2>
${body}
${manage ? '' : scopeMissing('manageCard')}
</section>`
}

/** The card setup page's return, and the two card forms: Save a card (to the provider's page) and Remove. */
function registerCardRoutes(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.post('/billing/card/setup', async (request, reply) => {
    const answer = await request.signedIn.api.post<{ setup: { url: string; expiresAt: string } }>(
      '/account/payment-method/setup',
    )
    if (!answer.ok) return dashboard.redirect(reply, '/billing', errorNotice(answer))
    // A link rather than a redirect: the pages' Content-Security-Policy lets a form lead only to printroute itself.
    // The card is typed on the provider's own page: printroute never sees its number.
    const { setup } = answer.body
    return dashboard.sendPage(request, reply, {
      title: 'Save a card',
      section: 'billing',
      content: html`<div class="page-head"><h1>Save a card</h1></div>
<section class="card stack card-setup">
<p>The card is saved on the payment provider's secure page; printroute keeps only its brand, last four digits and expiry.</p>
<p><a class="button" href="${setup.url}" data-card-setup>Continue to the card page</a> <a href="${DASHBOARD_PATH}/billing">Back to Billing</a></p>
<p class="muted small">The page is open until ${formatTime(setup.expiresAt)}.</p>
</section>`,
    })
  })
  pages.post('/billing/card/remove', async (request, reply) => {
    const answer = await request.signedIn.api.delete('/account/payment-method')
    if (!answer.ok) return dashboard.redirect(reply, '/billing', errorNotice(answer))
    return dashboard.redirect(reply, '/billing', {
      kind: 'success',
      text: 'Card removed: orders the balance cannot cover wait for a payment.',
    })
  })
}

/** What the page says when the provider's setup page sends the cardholder back. */
function cardReturnNotice(card: string | undefined) {
  if (card === 'saved') {
    return { kind: 'success' as const, text: 'Card saved: it shows here as soon as the payment provider confirms it.' }
  }
  if (card === 'cancelled') return { kind: 'error' as const, text: 'No card was saved.' }
  return null
}

function pageUrl(month: string | undefined, skip: number): string {
  const params = new URLSearchParams()
  if (month) params.set('month', month)
  if (skip > 0) params.set('skip', String(skip))
  const search = params.toString()
  return `${DASHBOARD_PATH}/billing${search ? `?${search}` : ''}`
}

/** The first fact: what the account has, or owes, on Live; Sandbox is never billed. */
function moneyFact(billing: AccountBilling): Html {
  if (billing.environment === 'sandbox') {
    return html`<div><dt>Balance or amount owed</dt><dd><span class="muted">Sandbox is never billed: see the Live dashboard.</span></dd></div>`
  }
  if (billing.billingMode === 'prepaid') {
    return html`<div><dt>Balance</dt><dd class="billing-amount" data-balance>${formatMoney(billing.balance)}</dd></div>`
  }
  return html`<div><dt>Owed</dt><dd class="billing-amount" data-owed>${formatMoney(billing.openAmount)}</dd></div>`
}

/** The Top up form of a Live prepaid account: an amount, then the card page (Stripe Checkout or the bundled one). */
function topUpForm(billing: AccountBilling, csrfToken: string): Html {
  return html`<section class="card top-up" aria-labelledby="top-up-heading">
<h2 id="top-up-heading">Top up</h2>
<form method="post" action="${DASHBOARD_PATH}/billing/top-up" class="filters">
${csrfField(csrfToken)}
<div class="field"><label for="top-up-amount">Amount (${billing.currency})</label>
<input id="top-up-amount" name="amount" inputmode="decimal" required placeholder="250.00" pattern="[0-9]{1,6}([.][0-9]{1,2})?" aria-describedby="top-up-help"></div>
<div class="field field-buttons"><button type="submit">Top up</button></div>
</form>
<p id="top-up-help" class="muted small">Pay by card on the next page; the balance shows it once paid, and orders waiting for payment that it covers go to production. At most 999999.99.</p>
</section>`
}

function factsCard(billing: AccountBilling): Html {
  const mode =
    billing.billingMode === 'prepaid'
      ? 'Prepaid: Live orders are paid from the balance'
      : 'Invoice: Live orders are billed afterwards'
  return html`<dl class="facts card billing-facts">
${moneyFact(billing)}
<div><dt>Billing</dt><dd>${mode}</dd></div>
<div><dt>Currency</dt><dd>${billing.currency}</dd></div>
<div><dt>Price list</dt><dd data-price-list>${billing.priceList ?? 'default'}</dd></div>
</dl>
${
  billing.environment === 'live' && billing.billingMode === 'invoice'
    ? html`<p class="muted small">Owed is every Live invoice less every credit note of the account: printroute does not record payments of invoices, so ask the operator for what has been paid.</p>`
    : billing.environment === 'live'
      ? html`<p class="muted small">Top up the balance below, or ask the operator; an order the balance cannot cover waits for a payment (Orders: Awaiting payment).</p>`
      : ''
}`
}

function documentRow(document: AccountInvoice): Html {
  const kind = document.kind === 'CreditNote' ? 'Credit note' : 'Invoice'
  return html`<tr data-invoice="${document.number}">
<th scope="row"><a href="${document.pdfUrl}">${document.number}</a> <span class="muted small">PDF</span></th>
<td>${kind}</td>
<td>${formatTime(document.issuedAt)}</td>
<td><a href="${DASHBOARD_PATH}/orders/${document.orderId}">${document.orderId}</a></td>
<td class="number">${formatMoney(document.totalTax)}</td>
<td class="number">${formatMoney(document.totalCost)}</td>
</tr>`
}

export function registerBillingPage(pages: FastifyInstance, dashboard: Dashboard): void {
  registerCardRoutes(pages, dashboard)
  pages.get<{ Querystring: BillingQuery }>('/billing', async (request, reply) => {
    const { api, caller, csrfToken } = request.signedIn
    if (!mayUse(caller.scopes, 'readBilling')) {
      return dashboard.sendPage(request, reply, {
        title: 'Billing',
        section: 'billing',
        content: html`<div class="page-head"><h1>Billing</h1></div>${scopeMissing('readBilling')}`,
      })
    }
    const wanted = typeof request.query.month === 'string' ? request.query.month.trim() : ''
    // A month that is not YYYY-MM is left out of the call and said so, rather than refused by the API.
    const month = wanted !== '' && parseStatementMonth(wanted) ? wanted : undefined
    const skip = skipOf(request.query.skip)
    const [billing, documents, statement, card] = await Promise.all([
      api.get<{ billing: AccountBilling }>('/account/billing'),
      listPage<AccountInvoice>(
        api,
        { path: '/account/invoices', key: 'invoices', query: { month }, skip, pageSize: BILLING_PAGE_SIZE },
        { noun: 'documents', urlOf: (offset) => pageUrl(month, offset), labels: ['Newer', 'Older'] },
      ),
      month ? api.get<{ statement: AccountStatement }>(`/account/statements/${month}`) : undefined,
      dashboard.environment === 'live' ? api.get<{ card: SavedCard | null }>('/account/payment-method') : undefined,
    ])
    const badMonth = wanted !== '' && month === undefined
    const notice =
      errorNotice(billing) ??
      errorNotice(documents.answer) ??
      (statement ? errorNotice(statement) : undefined) ??
      (badMonth ? { kind: 'error' as const, text: `Month: choose a month such as 2026-03, not "${wanted}".` } : null) ??
      cardReturnNotice(request.query.card)
    const sandbox = dashboard.environment === 'sandbox'
    const table =
      documents.entries.length === 0
        ? html`<p class="empty card">${month ? `No invoices or credit notes in ${month}.` : 'No invoices or credit notes yet: an order gets its invoice when it goes to its labs.'}</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="documents-caption"><table class="invoices">
<caption id="documents-caption" class="visually-hidden">Invoices and credit notes, newest first</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Issued</th><th scope="col">Order</th><th scope="col" class="number">Tax</th><th scope="col" class="number">Total</th></tr></thead>
<tbody>${documents.entries.map(documentRow)}</tbody>
</table></div>`
    return dashboard.sendPage(request, reply, {
      title: 'Billing',
      section: 'billing',
      notice,
      content: html`<div class="page-head"><h1>Billing</h1></div>
${billing.ok ? factsCard(billing.body.billing) : ''}
${billing.ok ? cardOnFileBlock(billing.body.billing, card, { csrfToken: request.signedIn.csrfToken, scopes: caller.scopes }) : ''}
${billing.ok && billing.body.billing.environment === 'live' && billing.body.billing.billingMode === 'prepaid' && mayUse(caller.scopes, 'topUp') ? topUpForm(billing.body.billing, csrfToken) : ''}
<section aria-labelledby="documents-heading">
<h2 id="documents-heading">Invoices and credit notes</h2>
<p class="muted">${environmentName(dashboard.environment)} documents${sandbox ? ' (marked "Sandbox - not a bill")' : ''}. Each number opens its PDF; a month shows what that month's statement holds.</p>
<form class="filters" method="get" action="${DASHBOARD_PATH}/billing" aria-label="Filter invoices by month">
<div class="field"><label for="billing-month">Month</label>
<input id="billing-month" name="month" type="month" value="${wanted}" placeholder="2026-03" pattern="[0-9]{4}-[0-9]{2}"></div>
<div class="field field-buttons"><button type="submit">Show</button>${wanted !== '' ? html` <a href="${DASHBOARD_PATH}/billing">All months</a>` : ''}</div>
</form>
${statement?.ok ? statementCard(statement.body.statement) : ''}
${table}
${documents.pages}
</section>`,
    })
  })

  // The Top up form: the top-up asked of the API, then a link to its payment. A link, not a redirect: the pages'
  // form-action 'self' would stop a form's navigation at the card provider's address.
  pages.post<{ Body: FormValues }>('/billing/top-up', async (request, reply) => {
    const amount = formValue(request.body ?? {}, 'amount').trim()
    const answer = await request.signedIn.api.post<{ topUp: TopUpAnswer }>('/account/top-ups', { amount })
    if (!answer.ok) return dashboard.redirect(reply, '/billing', errorNotice(answer))
    const topUp = answer.body.topUp
    return dashboard.sendPage(request, reply, {
      title: 'Top up',
      section: 'billing',
      content: html`<div class="page-head"><h1>Top up</h1></div>
<section class="card top-up-ready" data-top-up="${topUp.id}">
<p>Top-up ${topUp.id} of <strong>${topUp.amount} ${topUp.currency}</strong> is ready to pay by card until ${formatTime(topUp.expiresAt)}.</p>
<p><a class="button" href="${topUp.url}">Pay ${topUp.amount} ${topUp.currency} by card</a></p>
<p class="muted small">The balance shows it once paid. <a href="${DASHBOARD_PATH}/billing">Back to Billing</a></p>
</section>`,
    })
  })
}
