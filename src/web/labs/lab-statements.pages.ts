// The lab portal's Statements page (docs/labs.md#statements): the lab's payables statements, newest month first,
// each with its PDF and CSV, what the operator owes the lab for the Live work it shipped in a month. Only the
// signed-in lab's own: another lab's number is not found.
import type { FastifyInstance } from 'fastify'
import type { LabStatementsWork } from '../../domain/lab-statements.ts'
import { formatTime } from '../kit/format.ts'
import { html } from '../kit/html.ts'
import { LAB_PORTAL_PATH, type Portal } from './lab-portal-context.ts'

export const STATEMENTS_TITLE = 'Statements'

const filePath = (number: string, extension: 'pdf' | 'csv') =>
  `${LAB_PORTAL_PATH}/statements/${encodeURIComponent(number)}.${extension}`

export function registerPortalStatementPages(
  pages: FastifyInstance,
  portal: Portal,
  statements: LabStatementsWork,
): void {
  pages.get('/statements', async (request, reply) => {
    const { lab } = request.signedInLab
    const list = await statements.list(lab.labCode)
    const table =
      list.length === 0
        ? html`<div class="empty card"><p>No statements yet: the first is issued after a month in which you shipped work.</p></div>`
        : html`<div class="table-wrap"><table class="orders lab-statements">
<caption class="visually-hidden">Statements, newest month first</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Month</th><th scope="col">Issued</th><th scope="col" class="number">Jobs</th><th scope="col" class="number">Owed to you</th><th scope="col">Files</th></tr></thead>
<tbody>${list.map(
            (statement) => html`<tr data-statement="${statement.number}">
<th scope="row">${statement.number}</th>
<td data-label="Month">${statement.month}</td>
<td data-label="Issued">${formatTime(statement.issuedAt.toISOString())}</td>
<td data-label="Jobs" class="number">${String(statement.shipmentCount)}</td>
<td data-label="Owed to you" class="number">${statement.totals.map((total) => `${total.total} ${total.currency}`).join(', ')}</td>
<td data-label="Files"><a href="${filePath(statement.number, 'pdf')}">PDF</a> <a href="${filePath(statement.number, 'csv')}">CSV</a></td>
</tr>`,
          )}</tbody>
</table></div>`
    return portal.sendPage(request, reply, {
      title: STATEMENTS_TITLE,
      content: html`<div class="page-head"><h1>Statements</h1></div>
<p class="muted">Self-billing statements: each month, the operator issues on your behalf a statement of the Live jobs you
shipped, at the costs agreed when each job was handed to you. Cancelled and rejected work is listed as not owed.</p>
${table}`,
    })
  })

  pages.get<{ Params: { file: string } }>('/statements/:file', async (request, reply) => {
    const { lab } = request.signedInLab
    const match = /^(.+)\.(pdf|csv)$/.exec(request.params.file)
    const statement = match ? await statements.read(match[1] as string, lab.labCode) : undefined
    if (!match || !statement) {
      return portal.sendPage(request, reply, {
        title: 'Not found',
        status: 404,
        content: html`<h1>Not found</h1><p>You have no statement <code>${request.params.file}</code>.</p>
<p><a href="${LAB_PORTAL_PATH}/statements">Statements</a></p>`,
      })
    }
    const extension = match[2] as 'pdf' | 'csv'
    return extension === 'pdf'
      ? reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${statement.number}.pdf"`)
          .send(Buffer.from(await statements.pdf(statement)))
      : reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${statement.number}.csv"`)
          .send(statements.csv(statement))
  })
}
