// The console's labs: every catalogue lab with its health (its push endpoint, its last report), whether it is
// paused (with the buttons to pause and resume it), its jobs in flight and those overdue against their ship-by
// date, its rejection rate and its median time from submission to dispatch. Live work only: the Sandbox's labs are
// simulated. A lab's own page holds its keys for the lab API and portal: create, rotate with an overlap, revoke
// (after a confirmation); a new key is shown on the page that made it, once. It also lists the lab's payables
// statements (docs/billing.md#lab-payables-statements) with their PDF and CSV, and issues one for a month.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AdminLabPushHealth, AdminLabRow } from '../../domain/admin-views.ts'
import type { ConsoleLabs } from '../../domain/console-sections.ts'
import type { LabKeyView } from '../../domain/lab-keys.ts'
import type { LabStatementSummary } from '../../domain/lab-statements.ts'
import { DEFAULT_SIGNING_OVERLAP_SECONDS } from '../../domain/limits.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'

/** The window the rejection rate is counted over (submissions in the last so many days). */
export const LAB_REJECTION_WINDOW_DAYS = 30

/** The overlaps a rotation offers, in seconds, and their words (24 hours, the default, is preselected). */
export const LAB_KEY_OVERLAP_CHOICES: readonly (readonly [number, string])[] = [
  [0, 'none: the old keys stop now'],
  [3600, '1 hour'],
  [DEFAULT_SIGNING_OVERLAP_SECONDS, '24 hours'],
  [7 * 86_400, '7 days'],
  [30 * 86_400, '30 days'],
]

const labPath = (labCode: string, rest = '') => `${ADMIN_PATH}/labs/${encodeURIComponent(labCode)}${rest}`

/** A duration in words a person reads at a glance: minutes, hours or days. */
export function durationWords(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`
  return `${(seconds / 86400).toFixed(1)} days`
}

function rejectionRate(rejections: AdminLabRow['rejections']): Html {
  if (rejections.submitted === 0) return html`<span class="muted">no jobs</span>`
  const percent = Math.round((rejections.rejected / rejections.submitted) * 1000) / 10
  return html`${String(percent)}% <span class="muted small">(${String(rejections.rejected)} of ${String(rejections.submitted)})</span>`
}

function median(seconds: number | null): Html {
  return seconds === null ? html`<span class="muted">—</span>` : html`${durationWords(seconds)}`
}

function pushHealth(push: AdminLabPushHealth | null): Html {
  if (!push) return html`<span class="muted">no push endpoint (polls the lab API)</span>`
  const state = push.failingSince
    ? html`<span class="badge badge-error">Failing</span> since ${formatTime(push.failingSince)}${push.lastError ? html`<div class="muted small">${push.lastError}</div>` : ''}`
    : push.lastDeliveredAt
      ? html`<span class="badge badge-ok">OK</span> <span class="muted small">last delivered ${formatTime(push.lastDeliveredAt)}</span>`
      : html`<span class="muted">nothing pushed yet</span>`
  return html`<div class="small"><code>${push.url}</code></div>${state}`
}

function pauseForm(lab: AdminLabRow, csrfToken: string): Html {
  const action = lab.paused ? 'resume' : 'pause'
  const label = lab.paused ? 'Resume' : 'Pause'
  return html`<form method="post" action="${ADMIN_PATH}/labs/${lab.code}/${action}">${csrfField(csrfToken)}<button type="submit" class="${lab.paused ? 'button' : 'button-quiet'}" aria-label="${label} ${lab.code}">${label}</button></form>`
}

/** The lab's quality rate, its counts and threshold; a badge while it keeps the lab from new work. */
function qualityCell(quality: AdminLabRow['quality']): Html {
  if (!quality) return html`<span class="muted">-</span>`
  const rate = quality.ratePerThousand === null ? 'none shipped' : quality.ratePerThousand.toFixed(1)
  const threshold = quality.threshold === null ? 'no threshold' : `threshold ${String(quality.threshold)}`
  const badge = quality.belowThreshold ? html` <span class="badge badge-error">Left out of allocation</span>` : ''
  return html`${rate}${badge}<div class="muted small">${String(quality.upheldItems)} upheld of ${String(quality.itemsShipped)} shipped; ${threshold}</div>`
}

function labsTable(labs: AdminLabRow[], csrfToken: string): Html {
  if (labs.length === 0) return html`<p class="muted">The catalogue has no labs.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Labs of the catalogue"><table class="table admin-labs">
<caption class="visually-hidden">Labs of the catalogue</caption>
<thead><tr><th scope="col">Lab</th><th scope="col">Status</th><th scope="col">Push endpoint</th><th scope="col">Last report</th><th scope="col" class="number">In flight</th><th scope="col" class="number">Overdue</th><th scope="col">Rejected, ${String(LAB_REJECTION_WINDOW_DAYS)} days</th><th scope="col">Median to dispatch, 7 days</th><th scope="col">Median to dispatch, 30 days</th><th scope="col">Claims upheld per 1,000 items, 90 days</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${labs.map(
    (
      lab,
    ) => html`<tr data-lab="${lab.code}"><th scope="row"><a href="${labPath(lab.code)}"><code>${lab.code}</code></a> <span class="muted small lab-name">${lab.name}, ${lab.countryCode}</span></th>
<td>${lab.paused ? html`<span class="badge badge-pending">Paused</span>` : html`<span class="badge badge-ok">Taking work</span>`}</td>
<td>${pushHealth(lab.push)}</td>
<td>${lab.lastReportAt ? formatTime(lab.lastReportAt) : html`<span class="muted">none</span>`}</td>
<td class="number" data-jobs-in-flight>${String(lab.jobsInFlight)}</td>
<td class="number" data-overdue>${lab.overdueJobs > 0 ? html`<span class="badge badge-error">${String(lab.overdueJobs)}</span>` : '0'}</td>
<td data-rejections>${rejectionRate(lab.rejections)}</td>
<td data-median-7>${median(lab.medianDispatchSeconds.last7Days)}</td>
<td data-median-30>${median(lab.medianDispatchSeconds.last30Days)}</td>
<td data-quality>${qualityCell(lab.quality)}</td>
<td>${pauseForm(lab, csrfToken)}</td></tr>`,
  )}</tbody></table></div>`
}

function keyState(key: LabKeyView): Html {
  switch (key.state) {
    case 'active':
      return html`<span class="badge badge-ok">Active</span>`
    case 'expiring':
      return html`<span class="badge badge-pending">Expiring</span> <span class="small">works until ${formatTime(key.expiresAt)}</span>`
    case 'expired':
      return html`<span class="badge badge-cancelled">Expired</span> ${formatTime(key.expiresAt)}`
    case 'revoked':
      return html`<span class="badge badge-cancelled">Revoked</span> ${formatTime(key.revoked)}`
  }
}

function keyOnce(labCode: string, key: string | undefined): Html {
  if (key === undefined) return html``
  return html`<section class="key-once card" aria-labelledby="new-key-heading">
<h2 id="new-key-heading">The new key of lab ${labCode}</h2>
<p><strong>Copy it now, it is not shown again.</strong> printroute keeps only a hash; the list shows the prefix. Give it
to the lab for the lab API (<code>X-API-Key</code>) and the lab portal.</p>
<dl class="new-keys"><div><dt>Lab key</dt><dd><code class="new-key">${key}</code></dd></div></dl>
</section>`
}

function labKeysCard(labCode: string, keys: LabKeyView[], csrfToken: string): Html {
  const working = keys.filter((key) => key.state === 'active' || key.state === 'expiring').length
  return html`<section class="card" aria-labelledby="lab-keys-heading">
<h2 id="lab-keys-heading">Lab keys</h2>
<p class="muted">A key lets the lab read its jobs (recipients' addresses included) and report on them, through the lab
API and the lab portal. A revoked key's next call is refused and its portal sessions end at once.</p>
<div class="two-columns">
<form method="post" action="${labPath(labCode, '/keys')}" class="stack">${csrfField(csrfToken)}
<p>Another key beside those the lab has.</p>
<div><button type="submit">Create a key</button></div></form>
<form method="post" action="${labPath(labCode, '/keys/rotate')}" class="stack">${csrfField(csrfToken)}
<p>A new key replacing the lab's ${working === 1 ? 'working key' : `${String(working)} working keys`}, which keep working for the overlap, then stop.</p>
<div class="field"><label for="rotate-overlap">Overlap</label>
<select id="rotate-overlap" name="overlapSeconds">${LAB_KEY_OVERLAP_CHOICES.map(
    ([seconds, words]) =>
      html`<option value="${String(seconds)}"${seconds === DEFAULT_SIGNING_OVERLAP_SECONDS ? html` selected` : ''}>${words}</option>`,
  )}</select></div>
<div><button type="submit" class="button-quiet">Rotate</button></div></form>
</div>
${
  keys.length === 0
    ? html`<p class="empty">No keys: the lab cannot use the lab API or the portal yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="lab-keys-caption"><table class="keys lab-keys"><caption id="lab-keys-caption" class="visually-hidden">Keys of lab ${labCode}, newest first</caption>
<thead><tr><th scope="col">Key</th><th scope="col">ID</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${keys.map(
        (key) => html`<tr data-lab-key="${key.id}">
<th scope="row"><code>${key.prefix}…</code></th>
<td>${key.id}</td>
<td>${formatTime(key.created)}</td>
<td>${key.lastUsed ? formatTime(key.lastUsed) : html`<span class="muted">never</span>`}</td>
<td>${keyState(key)}</td>
<td>${
          key.state === 'revoked'
            ? ''
            : html`<a class="button-quiet button-small" href="${labPath(labCode, `/keys/${encodeURIComponent(key.id)}/revoke`)}" aria-label="Revoke key ${key.prefix}">Revoke</a>`
        }</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>`
}

/** The month before `now`'s (UTC), YYYY-MM: the statement form's suggestion. */
function lastMonth(now: Date): string {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
  return first.toISOString().slice(0, 7)
}

function labStatementsCard(labCode: string, statements: LabStatementSummary[], csrfToken: string): Html {
  const file = (number: string, extension: 'pdf' | 'csv') =>
    labPath(labCode, `/statements/${encodeURIComponent(number)}.${extension}`)
  return html`<section class="card" aria-labelledby="lab-statements-heading">
<h2 id="lab-statements-heading">Statements</h2>
<p class="muted">Self-billing statements of what the lab is owed: the Live jobs it shipped in a month at the costs agreed
when each was handed over, issued on the lab's behalf. The month's statement is issued on the 1st of the next; a month
with nothing shipped, cancelled or rejected has none, and one with only cancelled or rejected work owes nothing.</p>
<form method="post" action="${labPath(labCode, '/statements')}" class="inline-form">${csrfField(csrfToken)}
<div class="field"><label for="statement-month">Month (YYYY-MM, UTC)</label>
<input id="statement-month" name="month" required pattern="[0-9]{4}-[0-9]{2}" value="${lastMonth(new Date())}"></div>
<div><button type="submit" class="button-quiet">Generate for month</button></div></form>
${
  statements.length === 0
    ? html`<p class="empty">No statements yet.</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="lab-statements-caption"><table class="table lab-statements"><caption id="lab-statements-caption" class="visually-hidden">Statements of lab ${labCode}, newest month first</caption>
<thead><tr><th scope="col">Number</th><th scope="col">Month</th><th scope="col">Issued</th><th scope="col" class="number">Jobs</th><th scope="col" class="number">Owed</th><th scope="col">Files</th></tr></thead>
<tbody>${statements.map(
        (statement) => html`<tr data-statement="${statement.number}">
<th scope="row">${statement.number}</th>
<td>${statement.month}</td>
<td>${formatTime(statement.issuedAt.toISOString())}</td>
<td class="number">${String(statement.shipmentCount)}</td>
<td class="number">${statement.totals.map((total) => `${total.total} ${total.currency}`).join(', ')}</td>
<td><a href="${file(statement.number, 'pdf')}">PDF</a> <a href="${file(statement.number, 'csv')}">CSV</a></td>
</tr>`,
      )}</tbody></table></div>`
}
</section>`
}

export function registerLabsPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleLabs): void {
  pages.get('/labs', async (request, reply) => {
    const labs = await deps.listLabs()
    return console.sendPage(request, reply, {
      section: 'labs',
      title: 'Labs',
      content: html`<div class="page-head"><h1>Labs</h1></div>
<p class="muted">Every lab of the active catalogue, from its Live work (the Sandbox's labs are simulated). A paused lab gets no new work; its jobs in flight continue.</p>
${labsTable(labs, request.signedInOperator.csrfToken)}`,
    })
  })

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    pages.post<{ Params: { labCode: string } }>(`/labs/:labCode/${action}`, async (request, reply) => {
      const { labCode } = request.params
      const result = await deps.setPaused(labCode, paused, operatorOf(request))
      if (!result)
        return console.redirect(reply, `${ADMIN_PATH}/labs`, {
          kind: 'error',
          text: `labCode: the catalogue has no lab ${labCode}.`,
        })
      const text =
        result.wasPaused === paused
          ? `Lab ${labCode} was already ${paused ? 'paused' : 'taking work'}: nothing changed.`
          : paused
            ? `Lab ${labCode} is paused: it gets no new work until it is resumed.`
            : `Lab ${labCode} is resumed: it gets new work again.`
      return console.redirect(reply, `${ADMIN_PATH}/labs`, { kind: 'success', text })
    })
  }

  function sendNotFound(request: FastifyRequest, reply: FastifyReply, labCode: string): FastifyReply {
    return console.sendPage(request, reply, {
      section: 'labs',
      title: 'Not found',
      status: 404,
      content: html`<h1>Not found</h1><p>The catalogue has no lab <code>${labCode}</code>.</p>
<p><a href="${ADMIN_PATH}/labs">All labs</a></p>`,
    })
  }

  async function sendLab(
    request: FastifyRequest,
    reply: FastifyReply,
    labCode: string,
    input: { newKey?: string; notice?: Notice; status?: number } = {},
  ): Promise<FastifyReply> {
    const [labs, keys, statements] = await Promise.all([
      deps.listLabs(),
      deps.listKeys(labCode),
      deps.listStatements(labCode),
    ])
    const lab = labs.find((candidate) => candidate.code === labCode)
    if (!lab || !keys) return sendNotFound(request, reply, labCode)
    const { csrfToken } = request.signedInOperator
    return console.sendPage(request, reply, {
      section: 'labs',
      title: `Lab ${lab.code}`,
      status: input.status ?? 200,
      notice: input.notice ?? null,
      content: html`<p class="breadcrumb"><a href="${ADMIN_PATH}/labs">Labs</a></p>
<div class="page-head"><h1>${lab.name} <span class="muted">${lab.code}</span></h1>${lab.paused ? html`<span class="badge badge-pending">Paused</span>` : html`<span class="badge badge-ok">Taking work</span>`}</div>
${keyOnce(lab.code, input.newKey)}
<dl class="facts card">
<div><dt>Country</dt><dd>${lab.countryCode}</dd></div>
<div><dt>Push endpoint</dt><dd>${pushHealth(lab.push)}</dd></div>
<div><dt>Last report</dt><dd>${lab.lastReportAt ? formatTime(lab.lastReportAt) : html`<span class="muted">none</span>`}</dd></div>
<div><dt>Jobs in flight</dt><dd>${String(lab.jobsInFlight)}</dd></div>
<div><dt>New work</dt><dd>${pauseForm(lab, csrfToken)}</dd></div>
</dl>
${labKeysCard(lab.code, keys, csrfToken)}
${labStatementsCard(lab.code, statements, csrfToken)}`,
    })
  }

  registerStatementRoutes()

  /** A lab's statements: one issued for a month, and their files. */
  function registerStatementRoutes(): void {
    pages.post<{ Params: { labCode: string }; Body: Form }>('/labs/:labCode/statements', async (request, reply) => {
      const { labCode } = request.params
      const month = field(request.body, 'month').trim()
      const result = await deps.issueStatement(labCode, month, operatorOf(request))
      if ('refused' in result) {
        return sendLab(request, reply, labCode, { status: 400, notice: { kind: 'error', text: result.refused } })
      }
      const text = result.issued
        ? `Issued statement ${result.number} for ${month}.`
        : `Statement ${result.number} for ${month} had already been issued: nothing changed.`
      return console.redirect(reply, labPath(labCode), { kind: 'success', text })
    })

    pages.get<{ Params: { labCode: string; file: string } }>(
      '/labs/:labCode/statements/:file',
      async (request, reply) => {
        const { labCode, file } = request.params
        const match = /^(.+)\.(pdf|csv)$/.exec(file)
        const found = match
          ? await deps.statementFile(labCode, match[1] as string, match[2] as 'pdf' | 'csv')
          : undefined
        if (!found) {
          return console.sendPage(request, reply, {
            section: 'labs',
            title: 'Not found',
            status: 404,
            content: html`<h1>Not found</h1><p>Lab <code>${labCode}</code> has no statement <code>${file}</code>.</p>
  <p><a href="${labPath(labCode)}">Back to the lab</a></p>`,
          })
        }
        return reply
          .type(found.contentType)
          .header('content-disposition', `attachment; filename="${found.fileName}"`)
          .send(typeof found.body === 'string' ? found.body : Buffer.from(found.body))
      },
    )
  }

  pages.get<{ Params: { labCode: string } }>('/labs/:labCode', (request, reply) =>
    sendLab(request, reply, request.params.labCode),
  )

  pages.post<{ Params: { labCode: string } }>('/labs/:labCode/keys', async (request, reply) => {
    const { labCode } = request.params
    const result = await deps.createKey(labCode, operatorOf(request))
    if ('refused' in result) return console.redirect(reply, labPath(labCode), { kind: 'error', text: result.refused })
    return sendLab(request, reply, labCode, {
      newKey: result.key,
      notice: { kind: 'success', text: `Created the key ${result.created.prefix}… (${result.created.id}).` },
    })
  })

  pages.post<{ Params: { labCode: string }; Body: Form }>('/labs/:labCode/keys/rotate', async (request, reply) => {
    const { labCode } = request.params
    const entered = field(request.body, 'overlapSeconds')
    if (!/^\d{1,9}$/.test(entered)) {
      return sendLab(request, reply, labCode, {
        status: 400,
        notice: { kind: 'error', text: `overlapSeconds: choose one of the overlaps offered, got "${entered}".` },
      })
    }
    const result = await deps.rotateKeys(labCode, Number(entered), operatorOf(request))
    if ('refused' in result) {
      return sendLab(request, reply, labCode, { status: 400, notice: { kind: 'error', text: result.refused } })
    }
    const replaced = result.replaced
    const until = replaced[0]?.expiresAt
    const text =
      replaced.length === 0
        ? `Created the key ${result.created.prefix}… (${result.created.id}); the lab had no other working key.`
        : `Created the key ${result.created.prefix}… (${result.created.id}). ${replaced.map((key) => `${key.prefix}…`).join(', ')} ${
            Number(entered) === 0
              ? 'stopped working now.'
              : `keep${replaced.length === 1 ? 's' : ''} working until ${until?.slice(0, 16).replace('T', ' ')} UTC.`
          }`
    return sendLab(request, reply, labCode, { newKey: result.key, notice: { kind: 'success', text } })
  })

  pages.get<{ Params: { labCode: string; keyId: string } }>(
    '/labs/:labCode/keys/:keyId/revoke',
    async (request, reply) => {
      const { labCode, keyId } = request.params
      const keys = await deps.listKeys(labCode)
      if (!keys) return sendNotFound(request, reply, labCode)
      const key = keys.find((candidate) => candidate.id === keyId)
      if (!key || key.state === 'revoked') {
        return console.sendPage(request, reply, {
          section: 'labs',
          title: 'Key not found',
          status: 404,
          content: html`<h1>No unrevoked key ${keyId}</h1><p>Lab <code>${labCode}</code> has no unrevoked key with this ID.</p>
<p><a href="${labPath(labCode)}">Back to the lab</a></p>`,
        })
      }
      return console.sendPage(request, reply, {
        section: 'labs',
        title: `Revoke ${key.prefix}`,
        content: html`<p class="breadcrumb"><a href="${ADMIN_PATH}/labs">Labs</a> / <a href="${labPath(labCode)}">${labCode}</a></p>
<h1>Revoke key ${key.prefix}… of lab ${labCode}?</h1>
<form method="post" action="${labPath(labCode, `/keys/${encodeURIComponent(key.id)}/revoke`)}" class="card stack">${csrfField(request.signedInOperator.csrfToken)}
<p>The lab's next lab API call with this key is refused (401), and its lab portal sessions made with it end now.
This cannot be undone: the lab needs another key to go on.</p>
<div class="form-buttons"><button type="submit" class="button-danger">Revoke key</button> <a href="${labPath(labCode)}">Keep it</a></div>
</form>`,
      })
    },
  )

  pages.post<{ Params: { labCode: string; keyId: string } }>(
    '/labs/:labCode/keys/:keyId/revoke',
    async (request, reply) => {
      const { labCode, keyId } = request.params
      const result = await deps.revokeKey(labCode, keyId, operatorOf(request))
      if ('refused' in result) return console.redirect(reply, labPath(labCode), { kind: 'error', text: result.refused })
      const sessions = result.sessionsEnded
      const text = result.wasRevoked
        ? `Key ${result.key.prefix}… was already revoked: nothing changed.`
        : `Key ${result.key.prefix}… is revoked: its lab API calls are refused` +
          (sessions > 0 ? ` and ${sessions} portal session${sessions === 1 ? '' : 's'} ended.` : '.')
      return console.redirect(reply, labPath(labCode), { kind: 'success', text })
    },
  )
}
