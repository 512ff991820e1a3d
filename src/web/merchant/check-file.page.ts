// Check a file: a file (PDF or image) checked against a product before it is ordered, through POST and GET
// /v4.0/files/preflight (docs/api.md#preflight). The form posts, the API answers the preflight Pending, and the
// page of that preflight refreshes itself (htmx) until the report is there; without JavaScript, reloading does.
import type { FastifyInstance } from 'fastify'
import type { Static } from 'typebox'
import type { PreflightSchema } from '../../http/schemas/preflight.schema.ts'
import {
  errorSummary,
  type FieldErrors,
  type FieldTarget,
  type FormValues,
  fieldErrors,
  fieldMessages,
  formValue,
  integerOrText,
  invalidAttributes,
  NO_ERRORS,
} from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH } from '../kit/layout.ts'
import { pageThumbnails } from '../kit/page-thumbnails.ts'
import type { Dashboard } from './page-context.ts'
import { refreshing } from './refreshing.ts'

export const CHECK_FILE_PATH = `${DASHBOARD_PATH}/check-file`

type Preflight = Static<typeof PreflightSchema>

const FIELDS: Record<string, string> = {
  url: 'check-url',
  sku: 'check-sku',
  printArea: 'check-area',
  pageCount: 'check-pages',
}

function targetOf(path: string): FieldTarget | null {
  const id = FIELDS[path]
  return id ? { id, label: path } : null
}

function field(
  id: string,
  name: string,
  label: string,
  value: string,
  errors: FieldErrors,
  extra: Html | string = '',
): Html {
  return html`<div class="field"><label for="${id}">${label}</label>
<input id="${id}" name="${name}" value="${value}"${extra}${invalidAttributes(errors, id)}>${fieldMessages(errors, id)}</div>`
}

function checkForm(csrfToken: string, values: FormValues, errors: FieldErrors): Html {
  return html`<form method="post" action="${CHECK_FILE_PATH}" class="card">
${csrfField(csrfToken)}
${field('check-url', 'url', 'File URL (PDF or image)', formValue(values, 'url'), errors, html` type="url" required`)}
${field('check-sku', 'sku', 'SKU', formValue(values, 'sku'), errors, html` required`)}
${field('check-area', 'printArea', 'Print area (optional)', formValue(values, 'printArea'), errors, html` placeholder="default"`)}
${field('check-pages', 'pageCount', 'Page count (books, optional)', formValue(values, 'pageCount'), errors, html` inputmode="numeric"`)}
<div class="form-buttons"><button type="submit">Check the file</button></div>
</form>`
}

const STATUS_WORDS: Record<string, string> = {
  Pending: 'Waiting to be inspected…',
  Running: 'Being inspected…',
  Passed: 'Passed: nothing to report.',
  PassedWithWarnings: 'Passed with warnings: the file prints.',
  Failed: 'Failed: no lab can print this file as ordered.',
}

/** The report: status, pages, each check (errors and warnings) and fix, and the SKUs the file fits. */
export function preflightReportView(preflight: Preflight): Html {
  const kind = preflight.status === 'Failed' ? 'error' : preflight.status === 'Passed' ? 'success' : 'info'
  return html`<p class="notice notice-${kind}" role="status"><strong>${preflight.status}</strong> · ${STATUS_WORDS[preflight.status] ?? ''}${preflight.pageCount === null ? '' : html` ${preflight.pageCount} page${preflight.pageCount === 1 ? '' : 's'}.`}</p>
${
  preflight.checks.length === 0
    ? ''
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="checks-caption"><table class="phone-cards">
<caption id="checks-caption">Checks</caption>
<thead><tr><th scope="col">Severity</th><th scope="col">Code</th><th scope="col">Page</th><th scope="col">Found</th><th scope="col">Needed</th><th scope="col">Message</th></tr></thead>
<tbody>${preflight.checks.map(
        (check) =>
          html`<tr class="preflight-${check.severity}"><td data-label="Severity">${check.severity}</td><td data-label="Code"><code>${check.code}</code></td><td data-label="Page">${check.page ?? '—'}</td><td data-label="Found">${check.measured}</td><td data-label="Needed">${check.required}</td><td data-label="Message">${check.message}</td></tr>`,
      )}</tbody></table></div>`
}
${preflight.fixes.length === 0 ? '' : html`<h2>Fixes printroute makes to its copy</h2><ul>${preflight.fixes.map((fix) => html`<li><code>${fix.code}</code>: ${fix.message}</li>`)}</ul>`}
${pageThumbnails(preflight.thumbnails ?? [], (page) => `/v4.0/files/preflight/${encodeURIComponent(preflight.id)}/pages/${page}.png`, preflight.pageCount)}
${preflight.validSkus.length === 0 ? '' : html`<details><summary>${preflight.validSkus.length} SKU${preflight.validSkus.length === 1 ? '' : 's'} this file fits</summary><p>${preflight.validSkus.join(', ')}</p></details>`}`
}

export function registerCheckFilePages(pages: FastifyInstance, dashboard: Dashboard): void {
  const page = (title: string, content: Html) => ({ title, section: 'check-file' as const, content })

  pages.get('/check-file', async (request, reply) =>
    dashboard.sendPage(
      request,
      reply,
      page(
        'Check a file',
        html`<h1>Check a file</h1>
<p class="muted">Checks a PDF or an image against a product before you order it (<code>POST /v4.0/files/preflight</code>): errors mean no lab can print it, warnings that it prints but may disappoint.</p>
${checkForm(request.signedIn.csrfToken, {}, NO_ERRORS)}`,
      ),
    ),
  )

  pages.post<{ Body: FormValues }>('/check-file', async (request, reply) => {
    const values = request.body ?? {}
    const pageCount = formValue(values, 'pageCount').trim()
    const printArea = formValue(values, 'printArea').trim()
    const answer = await request.signedIn.api.post<{ preflight: Preflight }>('/files/preflight', {
      url: formValue(values, 'url').trim(),
      sku: formValue(values, 'sku').trim(),
      ...(printArea === '' ? {} : { printArea }),
      ...(pageCount === '' ? {} : { pageCount: integerOrText(pageCount) }),
    })
    if (answer.ok) return dashboard.redirect(reply, `/check-file/${answer.body.preflight.id}`)
    const errors = fieldErrors(answer.body, targetOf)
    return dashboard.sendPage(request, reply, {
      ...page(
        'Check a file',
        html`<h1>Check a file</h1>
${errorSummary(answer.body, errors, 'The file was not checked')}
${checkForm(request.signedIn.csrfToken, values, errors)}`,
      ),
      status: answer.status,
    })
  })

  pages.get<{ Params: { id: string } }>('/check-file/:id', async (request, reply) => {
    const answer = await request.signedIn.api.get<{ preflight: Preflight }>(
      `/files/preflight/${encodeURIComponent(request.params.id)}`,
    )
    if (!answer.ok) {
      return dashboard.sendPage(request, reply, {
        ...page(
          'Preflight not found',
          html`<h1>Preflight not found</h1>${errorSummary(answer.body, NO_ERRORS, 'Not found')}<p><a href="${CHECK_FILE_PATH}">Check a file</a></p>`,
        ),
        status: answer.status,
      })
    }
    const preflight = answer.body.preflight
    const working = preflight.status === 'Pending' || preflight.status === 'Running'
    return dashboard.sendPage(
      request,
      reply,
      page(
        `Preflight ${preflight.id}`,
        html`<p class="breadcrumb"><a href="${CHECK_FILE_PATH}">Check a file</a> /</p>
<h1>Preflight ${preflight.id}</h1>
<p class="muted"><code>${preflight.request.sku}</code> · print area ${preflight.request.printArea}${preflight.request.pageCount === null ? '' : html` · ${preflight.request.pageCount} pages`} · <span class="break-anywhere">${preflight.request.url}</span></p>
<section${refreshing('preflight-report', `${CHECK_FILE_PATH}/${preflight.id}`, working)}>${preflightReportView(preflight)}</section>
<p><a href="${CHECK_FILE_PATH}">Check another file</a></p>`,
      ),
    )
  })
}
