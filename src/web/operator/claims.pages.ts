// The console's claims section (docs/admin.md#claims): the queue of merchants' claims about shipped work, Pending
// first and oldest first, filtered by status, category and lab, a page at a time (a cursor, the filters kept); a claim's page with its items and photos (served from the blob store
// by a console route), the order and the lab, the lab's answer, and the four decisions - Reprint, Refund, Credit,
// Reject - each with a note, through the same functions as `printroute claims resolve`. Each form carries the
// claim's version as the page showed it: a decision reaching a claim another decided first is refused in words.
import type { FastifyInstance } from 'fastify'
import type { ClaimDetail, ClaimSummary } from '../../domain/claim-resolution.ts'
import { CLAIM_CATEGORY_NAMES, CLAIM_STATUSES, type ClaimStatus } from '../../domain/claims.ts'
import type { ConsoleClaims, ConsoleClaimsQuery } from '../../domain/console-sections.ts'
import { OperatorRefusal } from '../../domain/operator-refusal.ts'
import { formatTime } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, type Notice } from '../kit/layout.ts'
import { ADMIN_PATH, type AdminConsole, type Form, field, operatorOf } from './admin-context.ts'
import { refusalInConsoleWords } from './refusal-words.ts'

const claimsPath = `${ADMIN_PATH}/claims`
const claimPath = (claimId: string) => `${claimsPath}/${encodeURIComponent(claimId)}`
/** Claims a page of the queue. */
export const CLAIMS_PAGE_SIZE = 50
/** The longest lab code the filter takes (longer is refused, not cut). */
const MAX_LAB_FILTER_LENGTH = 64

const photoPath = (claimId: string, evidenceId: string) =>
  `${claimPath(claimId)}/photos/${encodeURIComponent(evidenceId)}`

const STATUS_BADGES: Record<ClaimStatus, string> = {
  Pending: 'badge-pending',
  Resolved: 'badge-ok',
  Rejected: 'badge-cancelled',
  Retracted: 'badge-cancelled',
}

function statusBadge(status: ClaimStatus): Html {
  return html`<span class="badge ${STATUS_BADGES[status]}">${status}</span>`
}

function queueTable(claims: readonly ClaimSummary[], filtered: boolean): Html {
  if (claims.length === 0) {
    return html`<div class="empty card"><p>${filtered ? 'No claims match these filters.' : 'No claims.'}</p></div>`
  }
  return html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="claims-caption"><table class="table admin-claims phone-cards">
<caption id="claims-caption" class="visually-hidden">Claims, Pending first, oldest first</caption>
<thead><tr><th scope="col">Claim</th><th scope="col">Status</th><th scope="col">Order</th><th scope="col">Account</th><th scope="col">Lab</th><th scope="col">What</th><th scope="col">Prefers</th><th scope="col">Made</th></tr></thead>
<tbody>${claims.map(
    (claim) => html`<tr data-claim="${claim.id}">
<th scope="row"><a href="${claimPath(claim.id)}">${claim.id}</a></th>
<td data-label="Status">${statusBadge(claim.status)}${claim.environment === 'sandbox' ? html` <span class="badge">Sandbox</span>` : ''}</td>
<td data-label="Order"><a href="${ADMIN_PATH}/orders/${claim.orderId}">${claim.orderId}</a></td>
<td data-label="Account"><a href="${ADMIN_PATH}/accounts/${claim.accountId}">${claim.accountId}</a></td>
<td data-label="Lab"><a href="${ADMIN_PATH}/labs/${claim.labCode}">${claim.labCode}</a></td>
<td data-label="What">${claim.categories.join(', ')}</td>
<td data-label="Prefers">${claim.preferredResolution ?? html`<span class="muted">—</span>`}</td>
<td data-label="Made">${formatTime(claim.createdAt)}</td></tr>`,
  )}</tbody></table></div>`
}

/** The queue's address with these filters (and cursor): the filters are kept on every page. */
function queueUrl(query: ConsoleClaimsQuery, after?: ClaimSummary): string {
  const params = new URLSearchParams()
  if (query.status) params.set('status', query.status)
  if (query.category) params.set('category', query.category)
  if (query.labCode) params.set('lab', query.labCode)
  if (after) params.set('after', `${after.status === 'Pending' ? 'pending' : 'other'}.${after.id}`)
  const search = params.toString()
  return `${claimsPath}${search ? `?${search}` : ''}`
}

interface QueueParams {
  status?: string
  category?: string
  lab?: string
  after?: string
}

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '')

/** The queue's filters and cursor from the address, or what is wrong with them (a 400 page saying so). */
function parseQueueQuery(params: QueueParams): { query: ConsoleClaimsQuery } | { problems: string[] } {
  const problems: string[] = []
  const statusText = text(params.status)
  const status = CLAIM_STATUSES.find((candidate) => candidate === statusText) ?? null
  if (statusText !== '' && status === null) problems.push(`status: must be one of ${CLAIM_STATUSES.join(', ')}`)
  const categoryText = text(params.category)
  const category = CLAIM_CATEGORY_NAMES.find((candidate) => candidate === categoryText) ?? null
  if (categoryText !== '' && category === null) {
    problems.push(`category: must be one of ${CLAIM_CATEGORY_NAMES.join(', ')}`)
  }
  const labCode = text(params.lab)
  if (labCode.length > MAX_LAB_FILTER_LENGTH) problems.push(`lab: at most ${MAX_LAB_FILTER_LENGTH} characters`)
  const afterText = text(params.after)
  const cursor = /^(pending|other)\.(clm_\d{1,15})$/.exec(afterText)
  if (afterText !== '' && !cursor) problems.push('after: not a page of this queue (follow the Next link)')
  if (problems.length > 0) return { problems }
  return {
    query: {
      status,
      category,
      labCode: labCode === '' ? null : labCode,
      after: cursor ? { claimId: cursor[2] as string, pending: cursor[1] === 'pending' } : null,
    },
  }
}

function option(value: string, label: string, selected: string | null): Html {
  return html`<option value="${value}"${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`
}

function queueFilters(query: ConsoleClaimsQuery | null): Html {
  const filtered = query !== null && Boolean(query.status || query.category || query.labCode)
  return html`<form class="filters" method="get" action="${claimsPath}" role="search" aria-label="Filter the claims">
<div class="field"><label for="claims-status">Status</label>
<select id="claims-status" name="status">${option('', 'Any status', query?.status ?? null)}${CLAIM_STATUSES.map((status) => option(status, status, query?.status ?? null))}</select></div>
<div class="field"><label for="claims-category">Category</label>
<select id="claims-category" name="category">${option('', 'Any category', query?.category ?? null)}${CLAIM_CATEGORY_NAMES.map((category) => option(category, category, query?.category ?? null))}</select></div>
<div class="field"><label for="claims-lab">Lab</label>
<input id="claims-lab" name="lab" value="${query?.labCode ?? ''}" maxlength="${String(MAX_LAB_FILTER_LENGTH)}" placeholder="uk6" autocomplete="off" spellcheck="false"></div>
<div class="field field-buttons"><button type="submit">Filter</button>${filtered ? html` <a href="${claimsPath}">Clear</a>` : ''}</div>
</form>`
}

function photos(claimId: string, evidence: readonly string[], who: string): Html {
  if (evidence.length === 0) return html`<p class="muted small">No photos from ${who}.</p>`
  return html`<ul class="claim-photos">${evidence.map(
    (id) =>
      html`<li><a href="${photoPath(claimId, id)}"><img src="${photoPath(claimId, id)}" alt="Photo ${id} from ${who}" width="160" height="160" loading="lazy"></a></li>`,
  )}</ul>`
}

function itemsSection(claim: ClaimDetail): Html {
  return html`<section class="card" aria-labelledby="claim-items-heading"><h2 id="claim-items-heading">Claimed items</h2>
${claim.items.map((item, index) => {
  const evidence = claim.view.items[index]?.evidence ?? []
  return html`<article class="claim-item" data-item="${item.itemId}">
<h3>${item.itemId} <span class="muted">${item.sku ?? ''}</span></h3>
<p><strong>${item.category}</strong> in shipment <code>${item.shipmentId}</code></p>
<blockquote>${item.description}</blockquote>
${photos(claim.id, evidence, 'the merchant')}
</article>`
})}
</section>`
}

function labSection(claim: ClaimDetail): Html {
  const answer = claim.labAnswer
  return html`<section class="card" aria-labelledby="claim-lab-heading"><h2 id="claim-lab-heading">The lab</h2>
<p>Lab <a href="${ADMIN_PATH}/labs/${claim.labCode}">${claim.labCode}</a> made the work.
${
  answer
    ? html`It answered <strong>${answer.answer}</strong>${answer.answeredAt ? html` on ${formatTime(answer.answeredAt)}` : ''}${answer.comment ? html`: “${answer.comment}”` : '.'}`
    : html`<span class="muted">It has not answered.</span>`
}</p>
${claim.labEvidence.length > 0 ? photos(claim.id, claim.labEvidence, 'the lab') : ''}
</section>`
}

function decisionSection(claim: ClaimDetail): Html {
  const resolution = claim.view.resolution
  if (resolution) {
    return html`<section class="card" aria-labelledby="claim-decision-heading"><h2 id="claim-decision-heading">Decision</h2>
<p>Resolved <strong>${resolution.type}</strong> on ${formatTime(resolution.resolvedAt)} by ${claim.resolvedBy ?? '?'}${
      resolution.reprintShipmentId
        ? html`: reprint <a href="${ADMIN_PATH}/orders/${claim.orderId}">${resolution.reprintShipmentId}</a>`
        : ''
    }${resolution.creditNote ? html`: credit note ${resolution.creditNote} of ${resolution.amount?.amount ?? ''} ${resolution.amount?.currency ?? ''}` : ''}.</p>
${resolution.note ? html`<blockquote>${resolution.note}</blockquote>` : ''}
</section>`
  }
  if (claim.view.rejection) {
    return html`<section class="card" aria-labelledby="claim-decision-heading"><h2 id="claim-decision-heading">Decision</h2>
<p>Rejected on ${formatTime(claim.view.rejection.rejectedAt)}: ${claim.view.rejection.reason}</p></section>`
  }
  return html``
}

function decisionForm(claim: ClaimDetail, csrfToken: string): Html {
  if (claim.status !== 'Pending') return html``
  return html`<section class="card" aria-labelledby="claim-decide-heading"><h2 id="claim-decide-heading">Decide</h2>
<form method="post" action="${claimPath(claim.id)}/decide" class="stack">${csrfField(csrfToken)}
<input type="hidden" name="version" value="${String(claim.version)}">
<fieldset><legend>Decision</legend>
<label class="option-line"><input type="radio" name="resolution" value="Reprint" required> Reprint: a new shipment of the claimed items, charged nothing${claim.preferredResolution === 'Reprint' ? ' (the merchant prefers it)' : ''}</label>
<label class="option-line"><input type="radio" name="resolution" value="Refund"> Refund: a credit note, the money back as the charge was paid${claim.preferredResolution === 'Refund' ? ' (the merchant prefers it)' : ''}</label>
<label class="option-line"><input type="radio" name="resolution" value="Credit"> Credit: a credit note on the account</label>
<label class="option-line"><input type="radio" name="resolution" value="Reject"> Reject: the note is the reason, shown to the merchant</label>
</fieldset>
<label for="claim-amount">Amount, tax included (Refund and Credit; empty: what the claimed items were charged)</label>
<input id="claim-amount" name="amount" inputmode="decimal" pattern="\\d{1,10}(\\.\\d{1,2})?" placeholder="5.00">
<label for="claim-note">Note (shown to the merchant; required to reject)</label>
<textarea id="claim-note" name="note" maxlength="2000" rows="3"></textarea>
<button type="submit">Decide</button>
</form></section>`
}

export function registerClaimsPages(pages: FastifyInstance, console: AdminConsole, deps: ConsoleClaims): void {
  pages.get<{ Querystring: QueueParams }>('/claims', async (request, reply) => {
    const parsed = parseQueueQuery(request.query ?? {})
    if ('problems' in parsed) {
      return console.sendPage(request, reply, {
        section: 'claims',
        title: 'Claims',
        status: 400,
        notice: { kind: 'error', text: `The address is not valid: ${parsed.problems.join('; ')}.` },
        content: html`<div class="page-head"><h1>Claims</h1></div>${queueFilters(null)}<p><a href="${claimsPath}">Every claim</a></p>`,
      })
    }
    const { query } = parsed
    const { claims, hasMore } = await deps.list(query, CLAIMS_PAGE_SIZE)
    const last = claims.at(-1)
    const pages =
      query.after || hasMore
        ? html`<nav class="pager" aria-label="Pages of claims">
${query.after ? html`<a href="${queueUrl(query)}">First page</a>` : ''}
${hasMore && last ? html`<a href="${queueUrl(query, last)}" rel="next">Next</a>` : ''}
</nav>`
        : ''
    return console.sendPage(request, reply, {
      section: 'claims',
      title: 'Claims',
      content: html`<div class="page-head"><h1>Claims</h1></div>
<p class="muted">Merchants' claims about shipped work, Pending first and oldest first, ${String(CLAIMS_PAGE_SIZE)} a page,
as <code>printroute claims list</code> shows them. Open one to see its photos and the lab's answer, and decide.</p>
${queueFilters(query)}
${queueTable(claims, Boolean(query.status || query.category || query.labCode))}
${pages}`,
    })
  })

  pages.get<{ Params: { claimId: string } }>('/claims/:claimId', async (request, reply) => {
    const claim = await deps.read(request.params.claimId)
    if (!claim) {
      return console.sendPage(request, reply, {
        section: 'claims',
        title: 'No such claim',
        status: 404,
        content: html`<div class="page-head"><h1>No claim ${request.params.claimId}</h1></div><p><a href="${claimsPath}">Every claim</a></p>`,
      })
    }
    return console.sendPage(request, reply, {
      section: 'claims',
      title: `Claim ${claim.id}`,
      content: html`<div class="page-head"><h1>Claim ${claim.id}</h1>${statusBadge(claim.status)}</div>
<dl class="facts">
<div><dt>Order</dt><dd><a href="${ADMIN_PATH}/orders/${claim.orderId}">${claim.orderId}</a> (${claim.orderStage ?? 'unknown'})</dd></div>
<div><dt>Account</dt><dd><a href="${ADMIN_PATH}/accounts/${claim.accountId}">${claim.accountId}</a> (${claim.environment})</dd></div>
<div><dt>Made</dt><dd>${formatTime(claim.createdAt)}</dd></div>
<div><dt>The merchant prefers</dt><dd>${claim.preferredResolution ?? 'no preference'}</dd></div>
${claim.view.shipmentId ? html`<div><dt>Parcel</dt><dd><code>${claim.view.shipmentId}</code> (the whole parcel is claimed)</dd></div>` : ''}
</dl>
${itemsSection(claim)}
${labSection(claim)}
${decisionSection(claim)}
${decisionForm(claim, request.signedInOperator.csrfToken)}`,
    })
  })

  pages.get<{ Params: { claimId: string; evidenceId: string } }>(
    '/claims/:claimId/photos/:evidenceId',
    async (request, reply) => {
      const claim = await deps.read(request.params.claimId)
      const evidenceId = request.params.evidenceId
      const ofClaim =
        claim !== null &&
        (claim.view.items.some((item) => item.evidence.includes(evidenceId)) || claim.labEvidence.includes(evidenceId))
      const photo = ofClaim ? await deps.photo(evidenceId) : null
      if (!photo) return reply.code(404).type('text/plain; charset=utf-8').send('No such photo')
      return reply.type(photo.contentType).header('cache-control', 'private, max-age=300').send(photo.bytes)
    },
  )

  pages.post<{ Params: { claimId: string }; Body: Form }>('/claims/:claimId/decide', async (request, reply) => {
    const claimId = request.params.claimId
    let notice: Notice
    try {
      const result = await deps.decide(
        claimId,
        {
          resolution: field(request.body, 'resolution'),
          note: field(request.body, 'note'),
          amount: field(request.body, 'amount'),
          version: field(request.body, 'version'),
        },
        operatorOf(request),
      )
      notice = { kind: 'success', text: decidedWords(result) }
    } catch (error) {
      if (!(error instanceof OperatorRefusal)) throw error
      notice = { kind: 'error', text: refusalInConsoleWords(error) }
    }
    return console.redirect(reply, claimPath(claimId), notice)
  })
}

function decidedWords(result: Awaited<ReturnType<ConsoleClaims['decide']>>): string {
  if (result.claim.status === 'Rejected') return `Rejected ${result.claim.id}.`
  const type = result.claim.resolution?.type ?? ''
  if (result.reprint) {
    return `Resolved ${result.claim.id} as ${type}: shipment ${result.reprint.shipmentId} at lab ${result.reprint.labCode}.`
  }
  return `Resolved ${result.claim.id} as ${type}: credit note ${result.creditNote ?? '(none)'} of ${result.amount?.amount ?? ''} ${result.amount?.currency ?? ''}.`
}
