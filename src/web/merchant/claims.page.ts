// Claims (docs/claims.md, docs/dashboard.md#claims): the account's claims in this environment, newest first; a
// claim's page with its photos, resolution and the lab's answer, and its retraction while Pending; and the order's
// "Report a problem" page: one form for several items (each with its category, description and photos) and one per
// parcel not delivered, reported missing. Everything goes through the public API in process; the photos are uploaded
// by the page's script (kit/assets/claim-photos.js) straight to POST /v4.0/claims/evidence with the session, and the
// form names them; the API's refusals are shown next to their fields.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ClaimCategory, ClaimView } from '../../domain/claims.ts'
import { CLAIM_STATUSES, MAX_EVIDENCE_PER_ITEM } from '../../domain/claims.ts'
import type { OrderDocument } from '../../domain/order.ts'
import type { ApiBody } from '../kit/api-client.ts'
import { formatMoney, formatTime, stateBadge } from '../kit/format.ts'
import {
  errorSummary,
  type FieldErrors,
  type FieldTarget,
  type FormValues,
  fieldErrors,
  fieldMessages,
  formValue,
  invalidAttributes,
  NO_ERRORS,
} from '../kit/forms.ts'
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

/** A shipped (not cancelled) shipment: its items may be claimed for, and the parcel itself reported missing. */
interface ShippedParcel {
  shipmentId: string
  delivered: boolean
  items: { itemId: string; label: string }[]
}

function shippedParcels(order: OrderDocument): ShippedParcel[] {
  return order.shipments
    .filter((shipment) => shipment.status === 'Shipped' && !shipment.cancelled)
    .map((shipment) => ({
      shipmentId: shipment.id,
      delivered: shipment.deliveryStatus === 'Delivered',
      items: shipment.items.map(({ itemId }) => {
        const item = order.items.find((candidate) => candidate.id === itemId)
        return { itemId, label: `${itemId} · ${item?.sku ?? ''}` }
      }),
    }))
}

/** The form's field ids, per item and per parcel (the API's failures are shown next to them). */
const itemFieldId = (field: 'category' | 'description' | 'photos', itemId: string) => `claim-${field}-${itemId}`
const parcelFieldId = (shipmentId: string) => `parcel-${shipmentId}`

/** What was sent: the items' claim (kind `items`) or a missing parcel (`PackageMissing`), and the API's refusal. */
interface ReportState {
  values: FormValues
  /** The item ids in the order the items were sent: `items[i]` in a failure is the i-th. */
  sentItems: string[]
  refused: ApiBody | null
  errors: FieldErrors
}

const NO_REPORT: ReportState = { values: {}, sentItems: [], refused: null, errors: NO_ERRORS }

function itemsTargetOf(sentItems: readonly string[], shipmentId: string | null) {
  return (path: string): FieldTarget | null => {
    const item = /^items\[(\d+)\](?:\.(\w+))?/.exec(path)
    if (item) {
      const itemId = sentItems[Number(item[1])]
      if (!itemId) return null
      const field = item[2] === 'description' ? 'description' : item[2] === 'evidence' ? 'photos' : 'category'
      return { id: itemFieldId(field, itemId), label: `${itemId}: ${field === 'photos' ? 'photos' : field}` }
    }
    if (path === 'items') {
      const first = sentItems[0]
      return first ? { id: itemFieldId('category', first), label: 'Items' } : null
    }
    if (path === 'preferredResolution') return { id: 'claim-resolution', label: 'You would like' }
    if (shipmentId && ['shipmentId', 'category', 'description'].includes(path)) {
      return { id: parcelFieldId(shipmentId), label: `Parcel ${shipmentId}` }
    }
    return null
  }
}

function itemFieldset(
  item: { itemId: string; label: string },
  categories: readonly ClaimCategory[],
  state: ReportState,
): Html {
  const { values, errors } = state
  const ids = {
    category: itemFieldId('category', item.itemId),
    description: itemFieldId('description', item.itemId),
    photos: itemFieldId('photos', item.itemId),
  }
  const chosen = formValue(values, `category.${item.itemId}`)
  return html`<fieldset class="claim-item" data-item="${item.itemId}"><legend>${item.label}</legend>
<div class="field"><label for="${ids.category}">What went wrong</label><select id="${ids.category}" name="category.${item.itemId}"${invalidAttributes(errors, ids.category)}>
<option value="">Nothing: not part of this claim</option>${categories
    .filter((category) => !category.wholeShipment)
    .map(
      (category) =>
        html`<option value="${category.category}"${category.category === chosen ? html` selected` : ''}>${category.category}${category.photosRequired ? ' (photos required)' : ''}: ${category.description}</option>`,
    )}</select>${fieldMessages(errors, ids.category)}</div>
<div class="field field-wide"><label for="${ids.description}">Description</label><textarea id="${ids.description}" name="description.${item.itemId}" rows="3" maxlength="2000"${invalidAttributes(errors, ids.description)}>${formValue(values, `description.${item.itemId}`)}</textarea>${fieldMessages(errors, ids.description)}</div>
<div class="field" data-photo-field><label for="${ids.photos}">Photos (JPEG or PNG, up to ${MAX_EVIDENCE_PER_ITEM})</label><input id="${ids.photos}" type="file" accept="image/jpeg,image/png" multiple${invalidAttributes(errors, ids.photos)}>
<input type="hidden" name="evidence.${item.itemId}" value="${formValue(values, `evidence.${item.itemId}`)}"><p class="muted small" data-photo-status aria-live="polite"></p>${fieldMessages(errors, ids.photos)}</div>
</fieldset>`
}

function itemsForm(input: {
  orderId: string
  parcels: readonly ShippedParcel[]
  categories: readonly ClaimCategory[]
  csrfToken: string
  state: ReportState
}): Html {
  const { state } = input
  const preferred = formValue(state.values, 'preferredResolution')
  return html`<form class="card claim-form" method="post" action="${DASHBOARD_PATH}/orders/${input.orderId}/report-problem" data-claim-photos data-csrf="${input.csrfToken}">
<h2>Problems with items</h2>${csrfField(input.csrfToken)}<input type="hidden" name="kind" value="items">
<p class="muted">Choose what went wrong with each item concerned (the others stay out of the claim), describe it, and add
photos where the category needs them. One claim covers the items of one lab: a parcel made by another lab is
reported in a claim of its own.</p>
${input.parcels.map(
  (
    parcel,
  ) => html`<section class="claim-parcel" aria-labelledby="parcel-items-${parcel.shipmentId}"><h3 id="parcel-items-${parcel.shipmentId}">Parcel ${parcel.shipmentId}</h3>
${parcel.items.map((item) => itemFieldset(item, input.categories, state))}</section>`,
)}
<noscript><p class="muted">Photos are sent by the page's script, which is off: claims whose categories need no photos can
still be made.</p></noscript>
<div class="field"><label for="claim-resolution">You would like</label><select id="claim-resolution" name="preferredResolution"${invalidAttributes(state.errors, 'claim-resolution')}><option value="">No preference</option><option value="Reprint"${preferred === 'Reprint' ? html` selected` : ''}>A reprint</option><option value="Refund"${preferred === 'Refund' ? html` selected` : ''}>A refund</option></select>${fieldMessages(state.errors, 'claim-resolution')}</div>
<div class="field field-buttons"><button type="submit">Report the problem</button></div>
</form>
<script src="${DASHBOARD_PATH}/assets/claim-photos.js" defer></script>`
}

function missingParcelForms(input: {
  orderId: string
  parcels: readonly ShippedParcel[]
  csrfToken: string
  state: ReportState
}): Html {
  const waiting = input.parcels.filter((parcel) => !parcel.delivered)
  if (waiting.length === 0) return html``
  return html`<section class="card claim-missing" aria-labelledby="missing-heading"><h2 id="missing-heading">A parcel never arrived</h2>
<p class="muted">For a parcel not tracked as delivered, once its estimated delivery has passed: the whole parcel is claimed,
no photos needed.</p>
${waiting.map((parcel) => {
  const id = parcelFieldId(parcel.shipmentId)
  const mine = formValue(input.state.values, 'shipmentId') === parcel.shipmentId
  return html`<form method="post" action="${DASHBOARD_PATH}/orders/${input.orderId}/report-problem" class="claim-parcel-missing">
${csrfField(input.csrfToken)}<input type="hidden" name="kind" value="PackageMissing"><input type="hidden" name="shipmentId" value="${parcel.shipmentId}">
<div class="field field-wide"><label for="${id}">Parcel ${parcel.shipmentId} (${parcel.items.map((item) => item.itemId).join(', ')}): what you know (optional)</label>
<textarea id="${id}" name="description" rows="2" maxlength="2000"${invalidAttributes(input.state.errors, id)}>${mine ? formValue(input.state.values, 'description') : ''}</textarea>${fieldMessages(input.state.errors, id)}</div>
<div class="field field-buttons"><button type="submit" class="button-quiet">Report parcel ${parcel.shipmentId} missing</button></div>
</form>`
})}</section>`
}

/** The claim the form asks for, in the API's terms; the items in the order sent. */
function claimRequest(form: FormValues, parcels: readonly ShippedParcel[]): { body: object; sentItems: string[] } {
  const preferred = formValue(form, 'preferredResolution')
  const preference = preferred ? { preferredResolution: preferred } : {}
  if (formValue(form, 'kind') === 'PackageMissing') {
    const description = formValue(form, 'description').trim()
    return {
      body: {
        category: 'PackageMissing',
        shipmentId: formValue(form, 'shipmentId'),
        ...(description ? { description } : {}),
        ...preference,
      },
      sentItems: [],
    }
  }
  const items = parcels
    .flatMap((parcel) => parcel.items)
    .filter((item) => formValue(form, `category.${item.itemId}`) !== '')
    .map((item) => ({
      itemId: item.itemId,
      category: formValue(form, `category.${item.itemId}`),
      description: formValue(form, `description.${item.itemId}`),
      evidence: formValue(form, `evidence.${item.itemId}`)
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    }))
  return { body: { items, ...preference }, sentItems: items.map((item) => item.itemId) }
}

function registerReportForm(pages: FastifyInstance, dashboard: Dashboard): void {
  async function readOrder(request: FastifyRequest<{ Params: { orderId: string } }>) {
    const { api } = request.signedIn
    const order = await api.get<{ order: OrderDocument }>(`/orders/${encodeURIComponent(request.params.orderId)}`)
    return { order, parcels: order.ok ? shippedParcels(order.body.order) : [] }
  }

  async function show(
    request: FastifyRequest<{ Params: { orderId: string } }>,
    reply: FastifyReply,
    read: Awaited<ReturnType<typeof readOrder>>,
    state: ReportState,
  ) {
    const { api, csrfToken, caller } = request.signedIn
    const orderId = request.params.orderId
    const categories = await api.get<{ categories: ClaimCategory[] }>('/claims/categories')
    const { parcels } = read
    const content = !mayUse(caller.scopes, 'createOrders')
      ? scopeMissing('createOrders')
      : parcels.length === 0
        ? html`<div class="empty card"><p>Nothing of this order has shipped yet: a problem can be reported once it has.</p></div>`
        : html`${errorSummary(state.refused, state.errors, 'The claim was not made')}
${itemsForm({ orderId, parcels, categories: categories.ok ? categories.body.categories : [], csrfToken, state })}
${missingParcelForms({ orderId, parcels, csrfToken, state })}`
    return dashboard.sendPage(request, reply, {
      title: `Report a problem · ${orderId}`,
      section: 'claims',
      status: state.refused ? 400 : 200,
      notice: errorNotice(read.order),
      content: html`<div class="page-head"><h1>Report a problem</h1><a href="${DASHBOARD_PATH}/orders/${orderId}">Order ${orderId}</a></div>${content}`,
    })
  }

  pages.get<{ Params: { orderId: string } }>('/orders/:orderId/report-problem', async (request, reply) =>
    show(request, reply, await readOrder(request), NO_REPORT),
  )

  pages.post<{ Params: { orderId: string }; Body: FormValues }>(
    '/orders/:orderId/report-problem',
    async (request, reply) => {
      const form = request.body ?? {}
      const read = await readOrder(request)
      const { body, sentItems } = claimRequest(form, read.parcels)
      const answer = await request.signedIn.api.post<{ claim: ClaimView }>(
        `/orders/${encodeURIComponent(request.params.orderId)}/claims`,
        body,
      )
      if (!answer.ok) {
        const shipmentId = formValue(form, 'kind') === 'PackageMissing' ? formValue(form, 'shipmentId') : null
        const errors = fieldErrors(answer.body, itemsTargetOf(sentItems, shipmentId))
        return show(request, reply, read, { values: form, sentItems, refused: answer.body, errors })
      }
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
