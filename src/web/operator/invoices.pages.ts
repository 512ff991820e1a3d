// The console's invoices section (docs/admin.md, docs/billing.md#invoices): every invoice and credit note across
// accounts and both environments, filtered by account, environment and month, each PDF, and an account's
// monthly statement as CSV or PDF. Read-only: documents are issued by charges, never here. PDFs are served by
// the console itself (behind its sign-in) rather than by the merchant's signed links, which live on each
// environment's own address.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ConsoleInvoices, DownloadFile, InvoiceListFilter } from '../../domain/console-sections.ts'
import { ENVIRONMENTS } from '../../domain/environment.ts'
import { parseId } from '../../domain/ids.ts'
import {
  type InvoiceSeller,
  type InvoiceSummary,
  isInvoiceNumber,
  parseStatementMonth,
  SELLER_LIMITS,
} from '../../domain/invoices.ts'
import { formatMinorAsAmount } from '../../domain/money.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'

/** Where the seller is set: the page the start-up line and the console's banner name. */
export const SELLER_PATH = `${ADMIN_PATH}/invoices/seller`

/** The seller's fields as the form names them, in the console's words. */
const SELLER_FIELD_WORDS: Record<string, string> = {
  name: 'Name',
  address: 'Address',
  taxNumber: 'Tax number',
  email: 'Email',
}

function sellerForm(csrfToken: string, seller: InvoiceSeller): Html {
  return html`<form method="post" action="${SELLER_PATH}" class="stack card">${csrfField(csrfToken)}
<label for="seller-name">Business name</label>
<input id="seller-name" name="name" required maxlength="${String(SELLER_LIMITS.name)}" value="${seller.name}">
<label for="seller-address">Address (one line each, at most ${String(SELLER_LIMITS.addressLines)})</label>
<textarea id="seller-address" name="address" rows="${String(SELLER_LIMITS.addressLines)}">${seller.address.join('\n')}</textarea>
<label for="seller-tax-number">VAT or other tax number (optional)</label>
<input id="seller-tax-number" name="taxNumber" maxlength="${String(SELLER_LIMITS.taxNumber)}" value="${seller.taxNumber ?? ''}">
<label for="seller-email">Billing email (optional)</label>
<input id="seller-email" name="email" type="email" maxlength="${String(SELLER_LIMITS.email)}" value="${seller.email ?? ''}">
<button type="submit">Save the seller</button>
</form>`
}

/** Most documents the list shows; narrower filters find the rest. */
export const ADMIN_INVOICE_LIST_LIMIT = 200

interface FilterQuery {
  account?: string
  environment?: string
  month?: string
}

/** The filter as given, or the problems with it (field -> reason) for the page to show. */
function parseFilter(query: FilterQuery): { filter: InvoiceListFilter; problems: Record<string, string> } {
  const filter: InvoiceListFilter = {}
  const problems: Record<string, string> = {}
  const account = query.account?.trim()
  if (account) {
    const number = parseId('acc', account)
    if (number === undefined) problems.account = 'must be an account ID such as acc_3'
    else filter.accountId = number
  }
  const environment = query.environment?.trim()
  if (environment) {
    const known = ENVIRONMENTS.find((candidate) => candidate === environment)
    if (known === undefined) problems.environment = 'must be live or sandbox'
    else filter.environment = known
  }
  const month = query.month?.trim()
  if (month) {
    if (parseStatementMonth(month) === undefined) problems.month = 'must be a month as YYYY-MM'
    else filter.month = month
  }
  return { filter, problems }
}

const money = (minor: bigint, currency: string) => `${formatMinorAsAmount(minor)} ${currency}`

function filterForm(query: FilterQuery): Html {
  const environment = query.environment ?? ''
  return html`<form class="filters" method="get" action="${ADMIN_PATH}/invoices" role="search" aria-label="Filter the invoices">
<div class="field"><label for="invoices-account">Account</label>
<input id="invoices-account" name="account" placeholder="acc_3" value="${query.account ?? ''}"></div>
<div class="field"><label for="invoices-environment">Environment</label>
<select id="invoices-environment" name="environment">
<option value=""${environment === '' ? ' selected' : ''}>Both</option>
<option value="live"${environment === 'live' ? ' selected' : ''}>Live</option>
<option value="sandbox"${environment === 'sandbox' ? ' selected' : ''}>Sandbox</option>
</select></div>
<div class="field"><label for="invoices-month">Month (UTC)</label>
<input id="invoices-month" name="month" placeholder="2026-03" value="${query.month ?? ''}"></div>
<div class="field field-buttons"><button class="button" type="submit">Show</button></div>
</form>`
}

function statementLinks(filter: InvoiceListFilter): Html {
  if (filter.accountId === undefined || filter.month === undefined) {
    return html`<p class="muted">Choose an account and a month for its statement (CSV or PDF).</p>`
  }
  const environment = filter.environment ?? 'live'
  const query = `account=acc_${filter.accountId}&environment=${environment}&month=${filter.month}`
  return html`<p>Statement of acc_${filter.accountId}, ${filter.month} (${environment === 'live' ? 'Live' : 'Sandbox'}):
<a class="button button-quiet" href="${ADMIN_PATH}/invoices/statement.csv?${query}">CSV</a>
<a class="button button-quiet" href="${ADMIN_PATH}/invoices/statement.pdf?${query}">PDF</a></p>`
}

function invoicesTable(documents: readonly InvoiceSummary[]): Html {
  if (documents.length === 0) return html`<p class="muted">No invoices or credit notes match.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Invoices and credit notes"><table class="table admin-invoices"><caption class="visually-hidden">Invoices and credit notes</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Kind</th><th scope="col">Issued</th><th scope="col">Account</th><th scope="col">Order</th><th scope="col" class="number">Total</th><th scope="col" class="number">Tax</th></tr></thead>
<tbody>${documents.map(
    (document) =>
      html`<tr data-invoice="${document.number}"><th scope="row"><a href="${ADMIN_PATH}/invoices/${document.number}.pdf">${document.number}</a>${document.environment === 'sandbox' ? html` <span class="badge">Sandbox</span>` : ''}</th><td>${document.kind === 'Invoice' ? 'Invoice' : 'Credit note'}</td><td>${formatTime(document.issuedAt.toISOString())}</td><td>acc_${document.accountId}</td><td>ord_${document.orderNumber}</td><td class="number">${money(document.totalCostMinor, document.currency)}</td><td class="number">${money(document.totalTaxMinor, document.currency)}</td></tr>`,
  )}</tbody></table></div>`
}

function sendDownload(reply: FastifyReply, file: DownloadFile): FastifyReply {
  return reply
    .type(file.contentType === 'text/csv' ? 'text/csv; charset=utf-8' : 'application/pdf')
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('cache-control', 'no-store')
    .send(typeof file.body === 'string' ? file.body : Buffer.from(file.body))
}

export function registerInvoicesPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleInvoices): void {
  pages.get<{ Querystring: FilterQuery }>('/invoices', async (request, reply) => {
    const { filter, problems } = parseFilter(request.query)
    const refused = Object.keys(problems).length > 0
    const documents = refused ? [] : await deps.list(filter, ADMIN_INVOICE_LIST_LIMIT)
    return console.sendPage(request, reply, {
      section: 'invoices',
      title: 'Invoices',
      status: refused ? 400 : 200,
      notice: refused
        ? {
            kind: 'error',
            text: Object.entries(problems)
              .map(([field, reason]) => `${field}: ${reason}`)
              .join('; '),
          }
        : null,
      content: html`<div class="page-head"><h1>Invoices and credit notes</h1><a class="button button-quiet" href="${SELLER_PATH}">Seller</a></div>
${filterForm(request.query)}
${refused ? '' : statementLinks(filter)}
${invoicesTable(documents)}
${documents.length === ADMIN_INVOICE_LIST_LIMIT ? html`<p class="muted">The newest ${ADMIN_INVOICE_LIST_LIMIT} are shown: narrow the filter for older ones.</p>` : ''}`,
    })
  })

  pages.get<{ Querystring: FilterQuery; Params: { format: string } }>(
    '/invoices/statement.:format',
    async (request, reply) => {
      const { filter, problems } = parseFilter(request.query)
      const format = request.params.format === 'csv' || request.params.format === 'pdf' ? request.params.format : null
      if (!format) problems.format = 'must be csv or pdf'
      if (filter.accountId === undefined && !problems.account) problems.account = 'is required'
      if (filter.month === undefined && !problems.month) problems.month = 'is required'
      const file =
        Object.keys(problems).length === 0 && format && filter.accountId !== undefined && filter.month !== undefined
          ? await deps.statement(filter.accountId, filter.environment ?? 'live', filter.month, format)
          : undefined
      if (file) return sendDownload(reply, file)
      const text =
        Object.keys(problems).length > 0
          ? Object.entries(problems)
              .map(([field, reason]) => `${field}: ${reason}`)
              .join('; ')
          : `No account ${request.query.account}`
      return console.sendPage(request, reply, {
        section: 'invoices',
        title: 'Statement',
        status: Object.keys(problems).length > 0 ? 400 : 404,
        notice: { kind: 'error', text },
        content: html`<h1>Statement</h1>${filterForm(request.query)}`,
      })
    },
  )

  const sendSeller = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: { status?: number; notice?: Notice; values?: InvoiceSeller } = {},
  ) => {
    const current = await deps.seller()
    return console.sendPage(request, reply, {
      section: 'invoices',
      title: 'Seller',
      status: input.status ?? 200,
      notice: input.notice ?? null,
      content: html`<p class="breadcrumb"><a href="${ADMIN_PATH}/invoices">Invoices</a></p>
<h1>Seller</h1>
<p>Who issues the invoices and credit notes: printed on every document issued from now on (documents already issued
keep the seller they were issued with), as <code>printroute invoices seller</code> sets it. Each change is recorded in
the audit trail.</p>
${
  current.configured
    ? ''
    : html`<p class="notice notice-info" data-seller-unset>No seller is set yet: documents name <strong>${current.seller.name}</strong> and <strong>${current.seller.address.join(', ')}</strong>.</p>`
}
${sellerForm(request.signedInOperator.csrfToken, input.values ?? (current.configured ? current.seller : { name: '', address: [], taxNumber: null, email: null }))}`,
    })
  }

  pages.get('/invoices/seller', (request, reply) => sendSeller(request, reply))

  pages.post<{ Body: Form }>('/invoices/seller', async (request, reply) => {
    const address = field(request.body, 'address')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '')
    const values: InvoiceSeller = {
      name: field(request.body, 'name'),
      address,
      taxNumber: field(request.body, 'taxNumber') || null,
      email: field(request.body, 'email') || null,
    }
    const result = await deps.setSeller(values, operatorOf(request))
    if ('problems' in result) {
      const text = Object.entries(result.problems)
        .map(([name, reason]) => `${SELLER_FIELD_WORDS[name] ?? name}: ${reason}`)
        .join('; ')
      return sendSeller(request, reply, { status: 400, values, notice: { kind: 'error', text } })
    }
    return console.redirect(reply, SELLER_PATH, {
      kind: 'success',
      text: `Saved: documents issued from now on name ${result.seller.name}.`,
    })
  })

  pages.get<{ Params: { file: string } }>('/invoices/:file', async (request, reply) => {
    const number = request.params.file.endsWith('.pdf') ? request.params.file.slice(0, -'.pdf'.length) : ''
    const pdf = isInvoiceNumber(number) ? await deps.invoicePdf(number) : undefined
    if (pdf) return sendDownload(reply, { fileName: `${number}.pdf`, contentType: 'application/pdf', body: pdf })
    return console.sendPage(request, reply, {
      section: 'invoices',
      title: 'Invoice not found',
      status: 404,
      notice: { kind: 'error', text: `No invoice or credit note ${request.params.file}` },
      content: html`<h1>Invoice not found</h1><p><a href="${ADMIN_PATH}/invoices">All invoices</a></p>`,
    })
  })
}
