// The console's operators section (docs/admin.md#operators): who may sign in to the console. Lists every operator
// (token prefixes only), adds one (its token shown once, as `printroute operators create` prints it) and revokes one
// (its token stops working and its sessions end at their next request, in every process), through the same
// functions as `printroute operators`. Each change is recorded in the audit trail with the signed-in operator.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ConsoleOperator, ConsoleOperators } from '../../domain/console-sections.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'

const operatorsPath = `${ADMIN_PATH}/operators`

function operatorsTable(operators: readonly ConsoleOperator[], signedInId: string, csrfToken: string): Html {
  if (operators.length === 0) return html`<p class="empty card">No operators.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="operators-caption"><table class="operators"><caption id="operators-caption" class="visually-hidden">Operators</caption>
<thead><tr><th scope="col">Operator</th><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${operators.map(
    (operator) => html`<tr data-operator="${operator.id}">
<th scope="row"><code>${operator.id}</code></th>
<td>${operator.name}${operator.id === signedInId ? html` <span class="muted">(you)</span>` : ''}</td>
<td><code>${operator.prefix}…</code></td>
<td>${formatTime(operator.created)}</td>
<td>${operator.revoked ? html`<span class="badge badge-cancelled">Revoked</span> ${formatTime(operator.revoked)}` : html`<span class="badge badge-ok">Active</span>`}</td>
<td>${
      operator.revoked
        ? ''
        : html`<form method="post" action="${operatorsPath}/revoke">${csrfField(csrfToken)}<input type="hidden" name="operator" value="${operator.id}"><button type="submit" class="button-quiet button-small" aria-label="Revoke ${operator.id} (${operator.name})">Revoke</button></form>`
    }</td>
</tr>`,
  )}</tbody></table></div>`
}

function tokenOnce(created: { operator: ConsoleOperator; token: string } | undefined): Html {
  if (!created) return html``
  return html`<section class="key-once" aria-labelledby="new-token-heading">
<h2 id="new-token-heading">The token of ${created.operator.id} (${created.operator.name})</h2>
<p><strong>Copy it now and hand it to ${created.operator.name}, it is not shown again.</strong> printroute keeps only a
hash; the list shows the prefix. It signs in at <code>${ADMIN_PATH}/</code>.</p>
<p><code class="new-key" data-operator-token>${created.token}</code></p>
</section>`
}

export function registerOperatorsPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleOperators): void {
  const sendList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: {
      status?: number
      notice?: Notice
      created?: { operator: ConsoleOperator; token: string }
      name?: string
    } = {},
  ) => {
    const { operator, csrfToken } = request.signedInOperator
    const operators = await deps.list()
    return console.sendPage(request, reply, {
      section: 'operators',
      title: 'Operators',
      status: input.status ?? 200,
      notice: input.notice ?? null,
      content: html`<div class="page-head"><h1>Operators</h1></div>
<p>Who may sign in to this console, as <code>printroute operators list</code> shows them. Revoking an operator stops
its token at once and ends its sessions at their next request, in every process.</p>
${tokenOnce(input.created)}
${operatorsTable(operators, operator.id, csrfToken)}
<section class="card" aria-labelledby="add-operator-heading">
<h2 id="add-operator-heading">Add an operator</h2>
<form method="post" action="${operatorsPath}" class="stack">${csrfField(csrfToken)}
<label for="operator-name">Name (shown in the console and the audit trail)</label>
<input id="operator-name" name="name" required maxlength="200" value="${input.name ?? ''}">
<button type="submit">Add the operator</button>
<p class="muted small">Its token is shown once, on the next page.</p>
</form>
</section>`,
    })
  }

  pages.get('/operators', (request, reply) => sendList(request, reply))

  pages.post<{ Body: Form }>('/operators', async (request, reply) => {
    const name = field(request.body, 'name')
    try {
      const created = await deps.create(name, operatorOf(request))
      return sendList(request, reply, {
        created,
        notice: { kind: 'success', text: `Added ${created.operator.id} (${created.operator.name}).` },
      })
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      return sendList(request, reply, { status: 400, name, notice: { kind: 'error', text: error.message } })
    }
  })

  pages.post<{ Body: Form }>('/operators/revoke', async (request, reply) => {
    const operatorId = field(request.body, 'operator')
    let notice: Notice
    try {
      const revoked = await deps.revoke(operatorId, operatorOf(request))
      notice = {
        kind: 'success',
        text: `Revoked ${revoked.id} (${revoked.name}): its token no longer signs in and its sessions have ended.`,
      }
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error
      notice = { kind: 'error', text: error.message }
    }
    return console.redirect(reply, operatorsPath, notice)
  })
}
