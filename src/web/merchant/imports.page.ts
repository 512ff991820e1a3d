// Import orders (docs/dashboard.md#importing-orders): a CSV file of orders sent to POST /v4.0/orders/imports by the
// page's script (assets/order-import.js: the file as it is, with the session), the account's recent imports, and an
// import's page: its progress bar and counts, refreshing themselves (htmx) while it runs, then each row's result.
import type { FastifyInstance } from 'fastify'
import type { Static } from 'typebox'
import type { OrderImportSchema } from '../../http/schemas/order-imports.schema.ts'
import { formatTime, stateBadge } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { DASHBOARD_PATH } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'
import { refreshing } from './refreshing.ts'

export const IMPORTS_PATH = `${DASHBOARD_PATH}/imports`

type OrderImport = Static<typeof OrderImportSchema>

/** Rows of the results table on the page; results.csv has them all. */
const RESULTS_SHOWN = 500

/** The fields of one line of results.csv (RFC 4180: quoted fields, doubled quotes; no line breaks inside). */
export function csvFields(line: string): string[] {
  const fields: string[] = []
  let at = 0
  while (at <= line.length) {
    if (line[at] === '"') {
      let value = ''
      at += 1
      while (at < line.length) {
        if (line[at] === '"' && line[at + 1] === '"') {
          value += '"'
          at += 2
        } else if (line[at] === '"') {
          at += 1
          break
        } else value += line[at++]
      }
      fields.push(value)
      at += 1
    } else {
      const end = line.indexOf(',', at)
      fields.push(line.slice(at, end === -1 ? line.length : end))
      at = end === -1 ? line.length + 1 : end + 1
    }
  }
  return fields
}

function uploadForm(csrfToken: string): Html {
  return html`<form class="card" method="post" action="${IMPORTS_PATH}" data-order-import data-csrf="${csrfToken}" data-pages="${IMPORTS_PATH}">
<div class="field"><label for="import-file">CSV file (one row per line item, at most 20 MiB)</label><input id="import-file" name="file" type="file" accept=".csv,text/csv" required></div>
<div class="field"><label><input name="drafts" type="checkbox" data-import-drafts> Create as drafts (confirm each before production)</label></div>
<p class="muted" data-import-status role="status"></p>
<div class="form-buttons"><button type="submit">Import the orders</button> <a href="/v4.0/orders/imports/template.csv">Download the template</a></div>
</form>
<script src="${DASHBOARD_PATH}/assets/order-import.js" defer></script>`
}

function importRow(entry: OrderImport): Html {
  return html`<tr>
<th scope="row"><a href="${IMPORTS_PATH}/${entry.id}">${entry.id}</a></th>
<td>${entry.fileName ?? html`<span class="muted">—</span>`}</td>
<td>${formatTime(entry.createdAt)}</td>
<td>${stateBadge(entry.status)}</td>
<td class="number">${entry.rowsRead}</td>
<td class="number">${entry.ordersCreated}</td>
<td class="number">${entry.rowsFailed}</td>
<td class="number">${entry.duplicatesSkipped}</td>
</tr>`
}

/** The progress bar and the counts. */
export function importProgress(entry: OrderImport): Html {
  const whole = Math.max(entry.rowsExpected, entry.rowsRead)
  const done = entry.status === 'Completed' ? whole : entry.rowsRead
  const failure = entry.failure
  return html`<p><progress id="import-bar" max="${whole}" value="${done}" aria-label="Rows read">${done} of ${whole}</progress></p>
<p>${stateBadge(entry.status)} <span data-import-counts>${entry.rowsRead} of ${whole} rows read · ${entry.ordersCreated} orders created · ${entry.rowsFailed} rows failed · ${entry.duplicatesSkipped} duplicates skipped</span></p>
${failure ? html`<p class="notice notice-error" role="alert">The file could not be read on: ${failure.field}: ${failure.code} (${String(failure.providedValue)})</p>` : ''}`
}

function resultsTable(lines: string[][]): Html {
  if (lines.length === 0) return html`<p class="muted">No row read yet.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="results-caption"><table class="phone-cards">
<caption id="results-caption">Rows</caption>
<thead><tr><th scope="col">Row</th><th scope="col">Merchant reference</th><th scope="col">Outcome</th><th scope="col">Order</th><th scope="col">Errors</th></tr></thead>
<tbody>${lines.map(
    ([row, reference, outcome, orderId, errors]) =>
      html`<tr><td data-label="Row" class="number">${row ?? ''}</td><td data-label="Merchant reference">${reference ?? ''}</td><td data-label="Outcome">${stateBadge(outcome ?? '')}</td><td data-label="Order">${orderId ? html`<a href="${DASHBOARD_PATH}/orders/${orderId}">${orderId}</a>` : ''}</td><td data-label="Errors">${errors ?? ''}</td></tr>`,
  )}</tbody></table></div>`
}

export function registerImportPages(pages: FastifyInstance, dashboard: Dashboard): void {
  const page = (title: string, content: Html) => ({ title, section: 'orders' as const, content })

  pages.get('/imports', async (request, reply) => {
    const scopes = request.signedIn.caller.scopes
    if (!mayUse(scopes, 'createOrders')) {
      return dashboard.sendPage(
        request,
        reply,
        page('Import orders', html`<h1>Import orders</h1>${scopeMissing('createOrders')}`),
      )
    }
    const listed = await request.signedIn.api.get<{ imports: OrderImport[] }>('/orders/imports', { top: 20 })
    const imports = listed.ok ? listed.body.imports : []
    return dashboard.sendPage(
      request,
      reply,
      page(
        'Import orders',
        html`<p class="breadcrumb"><a href="${DASHBOARD_PATH}/orders">Orders</a> /</p>
<h1>Import orders</h1>
<p class="muted">A CSV file with one row per line item; the rows of one order are consecutive and share its merchant reference. Uploading the same file again creates nothing twice.</p>
${uploadForm(request.signedIn.csrfToken)}
${
  imports.length === 0
    ? ''
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="imports-caption"><table>
<caption id="imports-caption">Recent imports</caption>
<thead><tr><th scope="col">Import</th><th scope="col">File</th><th scope="col">Uploaded</th><th scope="col">Status</th><th scope="col">Rows</th><th scope="col">Created</th><th scope="col">Failed</th><th scope="col">Duplicates</th></tr></thead>
<tbody>${imports.map(importRow)}</tbody></table></div>`
}`,
      ),
    )
  })

  pages.get<{ Params: { id: string } }>('/imports/:id', async (request, reply) => {
    const id = encodeURIComponent(request.params.id)
    const answer = await request.signedIn.api.get<{ import: OrderImport }>(`/orders/imports/${id}`)
    if (!answer.ok) {
      return dashboard.sendPage(request, reply, {
        ...page('Import not found', html`<h1>Import not found</h1><p><a href="${IMPORTS_PATH}">Import orders</a></p>`),
        status: answer.status,
      })
    }
    const entry = answer.body.import
    const working = entry.status === 'Pending' || entry.status === 'Running'
    const results = await request.signedIn.api.getText(`/orders/imports/${id}/results.csv`)
    const lines = results.ok
      ? results.text
          .split('\r\n')
          .slice(1, RESULTS_SHOWN + 1)
          .filter((line) => line !== '')
          .map(csvFields)
      : []
    return dashboard.sendPage(
      request,
      reply,
      page(
        `Import ${entry.id}`,
        html`<p class="breadcrumb"><a href="${DASHBOARD_PATH}/orders">Orders</a> / <a href="${IMPORTS_PATH}">Import orders</a> /</p>
<h1>Import ${entry.id}</h1>
<p class="muted">${entry.fileName ?? 'CSV file'} · uploaded ${formatTime(entry.createdAt)} · <a href="/v4.0/orders/imports/${entry.id}/results.csv">results.csv</a></p>
<section${refreshing('import-progress', `${IMPORTS_PATH}/${entry.id}`, working)}>${importProgress(entry)}
${resultsTable(lines)}</section>`,
      ),
    )
  })
}
