// Claims (docs/claims.md, docs/dashboard.md#claims): the account's claims in this environment, newest first; a
// claim's page with its photos, resolution and the lab's answer, and its retraction while Pending; and the order's
// "Report a problem" form. Everything goes through the public API in process; the photos are uploaded by the page's
// script (assets/claim-photos.js) straight to POST /v4.0/claims/evidence with the session, and the form names them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ClaimCategory, ClaimView } from '../../domain/claims.ts'
import { CLAIM_STATUSES, MAX_EVIDENCE_PER_ITEM } from '../../domain/claims.ts'
import type { OrderDocument } from '../../domain/order.ts'
import { formatMoney, formatTime, stateBadge } from '../kit/format.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH, errorNotice } from '../kit/layout.ts'
import { mayUse, scopeMissing } from '../kit/scopes.ts'
import type { Dashboard } from './page-context.ts'

/** Claims per page of the list. */
export const CLAIMS_PAGE_SIZE = 20

const claimPath = (id: string) => `${DASHBOARD_PATH}/claims/${id}`
const evidenceUrl = (id: string) => `/v4.0/claims/evidence/${id}/image`

function claimRow(claim: ClaimView): Html {
  const categories = [...new Set(claim.items.map((item) => item.category))].join(', ')
  return html`<tr>
<th scope="row"><a href="${claimPath(claim.id)}">${claim.id}</a></th>
<td><a href="${DASHBOARD_PATH}/orders/${claim.orderId}">${claim.orderId}</a></td>
<td>${categories}</td>
<td>${stateBadge(claim.status)}</td>
<td>${formatTime(claim.createdAt)}</td>
</tr>`
}

function resolutionPart(claim: ClaimView): Html {
  if (claim.resolution) {
    const { type, note, resolvedAt, amount, reprintShipmentId, creditNote } = claim.resolution
    return html`<p><strong>${type}</strong> ${formatTime(resolvedAt)}${amount ? html` · ${formatMoney(amount)}` : ''}${reprintShipmentId ? html` · reprint ${reprintShipmentId}` : ''}${creditNote ? html` · credit note ${creditNote}` : ''}</p>${note ? html`<p>${note}</p>` : ''}`
  }
  if (claim.rejection)
    return html`<p><strong>Rejected</strong> ${formatTime(claim.rejection.rejectedAt)}</p><p>${claim.rejection.reason}</p>`
  return html`<p class="muted">${claim.status === 'Retracted' ? 'You withdrew this claim.' : 'Waiting for the operator.'}</p>`
}

function claimContent(claim: ClaimView, retract: Html | string): Html {
  const items = claim.items.map(
    (item) => html`<li><p><strong>${item.itemId}</strong> (${item.shipmentId}) · ${item.category}</p>
${item.description ? html`<p>${item.description}</p>` : ''}
${item.evidence.length > 0 ? html`<p class="claim-photos">${item.evidence.map((id) => html`<a href="${evidenceUrl(id)}"><img src="${evidenceUrl(id)}" alt="Photo ${id}" width="160"></a>`)}</p>` : ''}</li>`,
  )
  const answer = claim.labAnswer
  return html`<div class="page-head"><h1>Claim ${claim.id}</h1>${stateBadge(claim.status)}</div>
<section class="card"><h2>What was reported</h2>
<p>Order <a href="${DASHBOARD_PATH}/orders/${claim.orderId}">${claim.orderId}</a>${claim.shipmentId ? html` · parcel ${claim.shipmentId} never arrived` : ''} · made ${formatTime(claim.createdAt)}${claim.preferredResolution ? html` · you asked for a ${claim.preferredResolution.toLowerCase()}` : ''}</p>
<ul class="claim-items">${items}</ul></section>
<section class="card"><h2>Resolution</h2>${resolutionPart(claim)}</section>
<section class="card"><h2>The lab's answer</h2>${answer ? html`<p><strong>${answer.answer}</strong> ${formatTime(answer.answeredAt)}</p>${answer.comment ? html`<p>${answer.comment}</p>` : ''}` : html`<p class="muted">No answer yet.</p>`}</section>
${retract}`
}

function registerClaimList(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get<{ Querystring: { status?: string; before?: string } }>('/claims', async (request, reply) => {
    if (!mayUse(request.signedIn.caller.scopes, 'readOrders')) {
      return dashboard.sendPage(request, reply, {
        title: 'Claims',
        section: 'claims',
        content: html`<h1>Claims</h1>${scopeMissing('readOrders')}`,
      })
    }
    const status = CLAIM_STATUSES.find((candidate) => candidate === request.query.status)
    const before = /^clm_\d{1,15}$/.test(request.query.before ?? '') ? request.query.before : undefined
    const answer = await request.signedIn.api.get<{ claims: ClaimView[]; hasMore: boolean }>('/claims', {
      top: CLAIMS_PAGE_SIZE,
      status,
      before,
    })
    const claims = answer.ok ? answer.body.claims : []
    const last = claims.at(-1)
    const older =
      answer.ok && answer.body.hasMore && last
        ? html`<nav class="pager" aria-label="Pages of claims"><a href="${DASHBOARD_PATH}/claims?${new URLSearchParams({ ...(status ? { status } : {}), before: last.id }).toString()}">Older</a></nav>`
        : ''
    const table =
      claims.length === 0
        ? html`<div class="empty card"><p>${status ? 'No claims in this status.' : 'No claims yet. Report a problem from a shipped order’s page.'}</p></div>`
        : html`<div class="table-wrap"><table class="claims"><caption class="visually-hidden">Claims, newest first</caption>
<thead><tr><th scope="col">Claim</th><th scope="col">Order</th><th scope="col">Category</th><th scope="col">Status</th><th scope="col">Made</th></tr></thead>
<tbody>${claims.map(claimRow)}</tbody></table></div>`
    return dashboard.sendPage(request, reply, {
      title: 'Claims',
      section: 'claims',
      notice: errorNotice(answer),
      content: html`<div class="page-head"><h1>Claims</h1></div>
<form class="filters" method="get" action="${DASHBOARD_PATH}/claims" aria-label="Filter claims">
<div class="field"><label for="filter-status">Status</label><select id="filter-status" name="status"><option value="">Any status</option>${CLAIM_STATUSES.map(
        (name) => html`<option value="${name}"${name === status ? html` selected` : ''}>${name}</option>`,
      )}</select></div>
<div class="field field-buttons"><button type="submit">Filter</button></div></form>
${table}${older}`,
    })
  })
}

function registerClaimPage(pages: FastifyInstance, dashboard: Dashboard): void {
  pages.get<{ Params: { claimId: string } }>('/claims/:claimId', async (request, reply) => {
    const answer = await request.signedIn.api.get<{ claim: ClaimView }>(
      `/claims/${encodeURIComponent(request.params.claimId)}`,
    )
    if (!answer.ok) {
      return dashboard.sendPage(request, reply, {
        title: 'Claim',
        section: 'claims',
        status: answer.status,
        notice: errorNotice(answer),
        content: html`<h1>Claim not found</h1><p><a href="${DASHBOARD_PATH}/claims">All claims</a></p>`,
      })
    }
    const claim = answer.body.claim
    const retract =
      claim.status === 'Pending' && mayUse(request.signedIn.caller.scopes, 'createOrders')
        ? html`<form method="post" action="${claimPath(claim.id)}/retract">${csrfField(request.signedIn.csrfToken)}<button type="submit" class="button-quiet">Withdraw this claim</button></form>`
        : ''
    return dashboard.sendPage(request, reply, {
      title: `Claim ${claim.id}`,
      section: 'claims',
      content: claimContent(claim, retract),
    })
  })

  pages.post<{ Params: { claimId: string } }>('/claims/:claimId/retract', async (request, reply) => {
    const id = request.params.claimId
    const answer = await request.signedIn.api.post(`/claims/${encodeURIComponent(id)}/retract`)
    return dashboard.redirect(
      reply,
      `/claims/${encodeURIComponent(id)}`,
      answer.ok ? { kind: 'success', text: `Claim ${id} withdrawn.` } : errorNotice(answer),
    )
  })
}

/** The items of the order's shipped (not cancelled) shipments: what may be claimed for. */
function shippedItems(order: OrderDocument): { itemId: string; label: string }[] {
  return order.shipments
    .filter((shipment) => shipment.status === 'Shipped' && !shipment.cancelled)
    .flatMap((shipment) =>
      shipment.items.map(({ itemId }) => {
        const item = order.items.find((candidate) => candidate.id === itemId)
        return { itemId, label: `${itemId} · ${item?.sku ?? ''} (${shipment.id})` }
      }),
    )
}

interface ReportForm {
  itemId?: string
  category?: string
  description?: string
  evidence?: string
  preferredResolution?: string
}

function reportForm(input: {
  orderId: string
  items: { itemId: string; label: string }[]
  categories: readonly ClaimCategory[]
  csrfToken: string
  values: ReportForm
}): Html {
  const { values } = input
  return html`<form class="card claim-form" method="post" action="${DASHBOARD_PATH}/orders/${input.orderId}/report-problem" data-claim-photos data-csrf="${input.csrfToken}">
${csrfField(input.csrfToken)}
<div class="field"><label for="claim-item">Item</label><select id="claim-item" name="itemId">${input.items.map(
    (item) =>
      html`<option value="${item.itemId}"${item.itemId === values.itemId ? html` selected` : ''}>${item.label}</option>`,
  )}</select></div>
<div class="field"><label for="claim-category">What went wrong</label><select id="claim-category" name="category">${input.categories
    .filter((category) => !category.wholeShipment)
    .map(
      (category) =>
        html`<option value="${category.category}"${category.category === values.category ? html` selected` : ''}>${category.category}${category.photosRequired ? ' (photos required)' : ''}: ${category.description}</option>`,
    )}</select></div>
<div class="field field-wide"><label for="claim-description">Description</label><textarea id="claim-description" name="description" rows="4" maxlength="2000" required>${values.description ?? ''}</textarea></div>
<div class="field"><label for="claim-photos">Photos (JPEG or PNG, up to ${MAX_EVIDENCE_PER_ITEM})</label><input id="claim-photos" type="file" accept="image/jpeg,image/png" multiple>
<input type="hidden" name="evidence" value="${values.evidence ?? ''}"><p class="muted" data-photo-status aria-live="polite"></p></div>
<div class="field"><label for="claim-resolution">You would like</label><select id="claim-resolution" name="preferredResolution"><option value="">No preference</option><option value="Reprint"${values.preferredResolution === 'Reprint' ? html` selected` : ''}>A reprint</option><option value="Refund"${values.preferredResolution === 'Refund' ? html` selected` : ''}>A refund</option></select></div>
<div class="field field-buttons"><button type="submit">Report the problem</button></div>
</form>
<script src="${DASHBOARD_PATH}/assets/claim-photos.js" defer></script>`
}

function registerReportForm(pages: FastifyInstance, dashboard: Dashboard): void {
  async function show(
    request: FastifyRequest<{ Params: { orderId: string } }>,
    reply: FastifyReply,
    values: ReportForm,
    notice?: ReturnType<typeof errorNotice>,
  ) {
    const { api, csrfToken, caller } = request.signedIn
    const orderId = request.params.orderId
    const order = await api.get<{ order: OrderDocument }>(`/orders/${encodeURIComponent(orderId)}`)
    const categories = await api.get<{ categories: ClaimCategory[] }>('/claims/categories')
    const items = order.ok ? shippedItems(order.body.order) : []
    const content = !mayUse(caller.scopes, 'createOrders')
      ? scopeMissing('createOrders')
      : items.length === 0
        ? html`<div class="empty card"><p>Nothing of this order has shipped yet: a problem can be reported once it has.</p></div>`
        : reportForm({ orderId, items, categories: categories.ok ? categories.body.categories : [], csrfToken, values })
    return dashboard.sendPage(request, reply, {
      title: `Report a problem · ${orderId}`,
      section: 'claims',
      notice: notice ?? errorNotice(order),
      content: html`<div class="page-head"><h1>Report a problem</h1><a href="${DASHBOARD_PATH}/orders/${orderId}">Order ${orderId}</a></div>${content}`,
    })
  }

  pages.get<{ Params: { orderId: string } }>('/orders/:orderId/report-problem', (request, reply) =>
    show(request, reply, {}),
  )

  pages.post<{ Params: { orderId: string }; Body: ReportForm }>(
    '/orders/:orderId/report-problem',
    async (request, reply) => {
      const form = request.body ?? {}
      const evidence = (form.evidence ?? '').split(',').filter((id) => id.trim() !== '')
      const answer = await request.signedIn.api.post<{ claim: ClaimView }>(
        `/orders/${encodeURIComponent(request.params.orderId)}/claims`,
        {
          items: [
            { itemId: form.itemId ?? '', category: form.category ?? '', description: form.description ?? '', evidence },
          ],
          ...(form.preferredResolution ? { preferredResolution: form.preferredResolution } : {}),
        },
      )
      if (!answer.ok) return show(request, reply, form, errorNotice(answer))
      return dashboard.redirect(reply, `/claims/${answer.body.claim.id}`, {
        kind: 'success',
        text: `Claim ${answer.body.claim.id} made: the operator will look at it.`,
      })
    },
  )
}

export function registerClaimPages(pages: FastifyInstance, dashboard: Dashboard): void {
  registerClaimList(pages, dashboard)
  registerClaimPage(pages, dashboard)
  registerReportForm(pages, dashboard)
}
