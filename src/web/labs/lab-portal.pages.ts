// The lab portal's pages (docs/labs.md#the-lab-portal): the job queue with the lab's capacity, and a job's page with its
// items, files and the reports a lab makes (acknowledge, in production, printed, shipped in parcels, rejected).
// Forms are checked here as the lab API's schemas check its bodies, and every refusal, the portal's or the
// service's (ValidationFailed), is shown beside its form: never an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ITEM_REJECTION_REASONS, type ItemRejectionReason } from '../../domain/allocation/model.ts'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import type { LabCapacityView, LabJobView, LabWork } from '../../domain/lab-jobs.ts'
import { LAB_JOB_HISTORY_LIMITS, MAX_LAB_JOBS_PER_DAY } from '../../domain/limits.ts'
import type { Parcel, Recipient } from '../../domain/order.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import type { LabReport } from '../../domain/pipeline/lab-report.ts'
import type { LabItemState } from '../../domain/pipeline/pipeline-order.ts'
import { LAB_PRIORITIES, type LabPriority } from '../../domain/shipping-methods.ts'
import type { ApiBody } from '../kit/api-client.ts'
import { dateWords, formatDate, formatTime } from '../kit/format.ts'
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
import { csrfField, type Notice, pager, skipOf } from '../kit/layout.ts'
import { LAB_PORTAL_PATH, type Portal } from './lab-portal-context.ts'

/** A lab's answer to a cancellation request. */
export type CancellationAnswer = 'cancelled' | 'tooLate'

/**
 * A report the portal makes: the lab API's (`LabReport`); the answer to a cancellation request is offered only on a
 * job whose view carries that request.
 */
export type PortalReport = LabReport

/** The lab operations the portal uses: the labs service's, as the lab API calls them (app.ts fills them). */
export type PortalLabs = LabWork

export const VIEWS = ['all', 'new', 'acknowledged', 'inProduction', 'overdue'] as const
export type View = (typeof VIEWS)[number]
const VIEW_LABELS: Record<View, string> = {
  all: 'All open',
  new: 'New',
  acknowledged: 'Acknowledged',
  inProduction: 'In production',
  overdue: 'Overdue',
}
const STATE_LABELS: Record<string, string> = {
  submitted: 'New',
  acknowledged: 'Acknowledged',
  inProduction: 'In production',
  shipped: 'Shipped',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
}
const STATE_BADGES: Record<string, string> = {
  submitted: 'pending',
  acknowledged: 'processing',
  inProduction: 'inprogress',
  shipped: 'ok',
  rejected: 'error',
  cancelled: 'error',
}
/** The states that end a job: its page is then read-only, and it is found under History. */
const CLOSED_STATES: readonly string[] = ['shipped', 'rejected', 'cancelled']

function isClosed(job: LabJobView): boolean {
  return CLOSED_STATES.includes(job.state)
}
const ITEM_STATE_LABELS: Record<LabItemState, string> = {
  open: 'To make',
  printed: 'Printed',
  shipped: 'Shipped',
  rejected: 'Rejected',
}
const REJECT_REASON_LABELS: Record<ItemRejectionReason, string> = {
  OutOfStock: 'Out of stock (blank or material)',
  FileDefect: 'Print file defect (describe it)',
  CannotProduce: 'Cannot produce',
}

function isOverdue(job: LabJobView, today: string): boolean {
  return job.shipBy !== undefined && job.shipBy < today
}

function inView(job: LabJobView, view: View, today: string): boolean {
  switch (view) {
    case 'all':
      return true
    case 'new':
      return job.state === 'submitted'
    case 'acknowledged':
      return job.state === 'acknowledged'
    case 'inProduction':
      return job.state === 'inProduction'
    case 'overdue':
      return isOverdue(job, today)
  }
}

/** The jobs of a view of the queue, in the order the queue shows them; `today` is the lab's date. */
export function queueOf(jobs: readonly LabJobView[], view: View, today: string): LabJobView[] {
  return jobs.filter((job) => inView(job, view, today)).sort(byShipByThenPriority)
}

/** Earliest ship-by date first (none last), then the most urgent. */
function byShipByThenPriority(a: LabJobView, b: LabJobView): number {
  const byDate = (a.shipBy ?? '9999-12-31').localeCompare(b.shipBy ?? '9999-12-31')
  if (byDate !== 0) return byDate
  return LAB_PRIORITIES.indexOf(b.priority) - LAB_PRIORITIES.indexOf(a.priority)
}

function stateBadge(state: string): Html {
  return html`<span class="badge badge-${STATE_BADGES[state] ?? 'pending'}">${STATE_LABELS[state] ?? state}</span>`
}

function priorityBadge(priority: LabPriority): Html {
  return priority === 'normal'
    ? html`<span class="muted">normal</span>`
    : html`<span class="badge badge-${priority === 'urgent' ? 'error' : 'late'}">${priority}</span>`
}

function shipByCell(job: LabJobView, today: string): Html {
  if (!job.shipBy) return html`<span class="muted">—</span>`
  return html`${formatDate(job.shipBy)}${isOverdue(job, today) ? html` <span class="badge badge-error">Overdue</span>` : job.shipBy === today ? html` <span class="badge badge-late">Today</span>` : ''}`
}

function jobPath(shipmentId: string, rest = ''): string {
  return `${LAB_PORTAL_PATH}/jobs/${encodeURIComponent(shipmentId)}${rest}`
}

/** `3 × GLOBAL-CAN-10x10, 1 × GLOBAL-FAP-16x24`: the copies to make of each product, in the items' order. */
function itemsSummary(job: LabJobView): string {
  const copies = new Map<string, number>()
  for (const item of job.items) copies.set(item.sku, (copies.get(item.sku) ?? 0) + item.copies)
  return [...copies].map(([sku, count]) => `${count} × ${sku}`).join(', ')
}

// ---- Capacity

const CAPACITY_TARGETS: Record<string, FieldTarget> = { jobsToday: { id: 'jobs-today', label: 'Jobs today' } }

function capacityCard(capacity: LabCapacityView, csrfToken: string, refusal: ApiBody | null): Html {
  const errors = fieldErrors(refusal, (path) => CAPACITY_TARGETS[path] ?? null)
  const remaining =
    capacity.jobsRemainingToday === null
      ? 'no limit'
      : `${capacity.jobsRemainingToday} more job${capacity.jobsRemainingToday === 1 ? '' : 's'}`
  return html`<section class="card settings-card" aria-labelledby="capacity-heading">
<h2 id="capacity-heading">Today (${dateWords(capacity.date)})</h2>
${
  capacity.paused
    ? html`<p class="notice notice-error"><strong>Paused:</strong> printroute's operator paused this lab, so it gets no new jobs. Finish the open ones below.</p>`
    : html`<p><strong>Taking new jobs.</strong></p>`
}
<dl class="facts">
<div><dt>Jobs given today</dt><dd>${capacity.jobsGivenToday}</dd></div>
<div><dt>You said you can take</dt><dd>${capacity.jobsToday === null ? html`<span class="muted">nothing said today</span>` : capacity.jobsToday}</dd></div>
<div><dt>Daily limit</dt><dd>${capacity.dailyJobLimit ?? html`<span class="muted">none</span>`}</dd></div>
<div><dt>Can still be given</dt><dd>${remaining}</dd></div>
</dl>
${errorSummary(refusal, errors, 'The capacity was not saved')}
<form method="post" action="${LAB_PORTAL_PATH}/capacity" class="stack">
${csrfField(csrfToken)}
<label for="jobs-today">How many more jobs can you take today?</label>
<input id="jobs-today" name="jobsToday" type="number" min="0" max="${MAX_LAB_JOBS_PER_DAY}" inputmode="numeric" required value="${capacity.jobsToday ?? ''}"${invalidAttributes(errors, 'jobs-today')}>
${fieldMessages(errors, 'jobs-today')}
<button type="submit">Save capacity</button>
</form>
</section>`
}

// ---- Form checks: as the lab API's schemas check its bodies (http/schemas/labs.schema.ts).

function checkText(
  failures: Failures,
  path: string,
  value: string,
  rule: { required: boolean; maxLength: number; singleLine?: boolean },
): void {
  if (value.trim() === '') {
    if (rule.required) addFailure(failures, path, { code: 'Required', providedValue: null })
    return
  }
  if (value.length > rule.maxLength)
    addFailure(failures, path, { code: 'TooLong', providedValue: value, comparisonValue: rule.maxLength })
  else if (rule.singleLine && /[\r\n]/.test(value))
    addFailure(failures, path, { code: 'InvalidCharacter', providedValue: value, comparisonValue: 'line break' })
}

function refusalOf(failures: Failures, statusText: string): ApiBody {
  return { outcome: 'ValidationFailed', statusText, failures }
}

/** A service refusal as the form shows it; other errors go on to the error page. */
function serviceRefusal(error: unknown): ApiBody {
  if (error instanceof ServiceError && error.statusCode < 500) {
    return {
      outcome: error.outcome,
      statusText: error.message,
      ...(error.failures ? { failures: error.failures } : {}),
    }
  }
  throw error
}

/** The values of a repeated form field (checkboxes): always a list. */
function formValues(values: FormValues, name: string): string[] {
  const value = values[name]
  return value === undefined ? [] : typeof value === 'string' ? [value] : value
}

// ---- The job page

type JobForm = 'printed' | 'shipped' | 'rejected'

const SHIP_TARGETS: Record<string, FieldTarget> = {
  'carrier.name': { id: 'ship-carrier', label: 'Carrier' },
  'carrier.service': { id: 'ship-service', label: 'Service' },
  'tracking.number': { id: 'ship-tracking-number', label: 'Tracking number' },
  'tracking.url': { id: 'ship-tracking-url', label: 'Tracking link' },
  itemIds: { id: 'ship-items', label: 'Items in this parcel' },
}
const REJECT_TARGETS: Record<string, FieldTarget> = {
  reason: { id: 'reject-reason', label: 'Reason' },
  description: { id: 'reject-description', label: 'Description' },
  unavailableItemIds: { id: 'reject-items', label: 'Items' },
  items: { id: 'reject-items', label: 'Items' },
}
const PRINTED_TARGETS: Record<string, FieldTarget> = { itemIds: { id: 'printed-items', label: 'Items printed' } }

function targetIn(targets: Record<string, FieldTarget>): (path: string) => FieldTarget | null {
  return (path) => {
    if (targets[path]) return targets[path] ?? null
    // `items[0].description`, `itemIds[2]`: the field the list is chosen in.
    const base = path.replace(/\[\d+\]/g, '')
    if (base === 'items.description') return targets.description ?? null
    return targets[base] ?? targets[base.split('.')[0] ?? ''] ?? null
  }
}

interface JobPageState {
  form?: JobForm
  refusal?: ApiBody
  values?: FormValues
}

function itemChoices(
  job: LabJobView,
  input: { name: string; id: string; legend: string; hint: string; checked: string[]; only: LabItemState[] },
): Html {
  const items = job.items.filter((item) => input.only.includes(item.state))
  if (items.length === 0) return html`<p class="muted">No items left for this.</p>`
  return html`<fieldset id="${input.id}" class="stack">
<legend>${input.legend}</legend>
<p class="muted small">${input.hint}</p>
${items.map(
  (item) =>
    html`<label class="item-choice"><input type="checkbox" name="${input.name}" value="${item.itemId}"${input.checked.includes(item.itemId) ? html` checked` : ''}> ${item.copies} × ${item.sku} <span class="muted">(${item.itemId})</span></label>`,
)}
</fieldset>`
}

function addressLines(recipient: Recipient): Html {
  const address = recipient.address
  const lines = [
    recipient.name,
    address.line1,
    address.line2,
    [address.postalOrZipCode, address.townOrCity].filter(Boolean).join(' '),
    address.stateOrCounty,
    address.countryCode,
  ].filter((line): line is string => Boolean(line))
  return html`<address>${lines.map((line, index) => html`${index > 0 ? html`<br>` : ''}${line}`)}</address>`
}

/** The colour and resolution a print file was made in, as its job says (older files: what they carry, if anything). */
function printFileFacts(file: LabJobView['items'][number]['printFiles'][number]): Html | string {
  const colour = file.manifest?.colour
  const facts = [
    colour?.space === 'cmyk'
      ? `CMYK, ${colour.profile} (${colour.intent}${colour.blackPointCompensation ? ', black-point compensation' : ''})`
      : file.colourSpace?.toUpperCase(),
    file.dpi !== undefined ? `${file.dpi} dpi` : undefined,
    file.sourceDpi !== undefined ? `image ${file.sourceDpi} dpi at print size` : undefined,
  ].filter((fact): fact is string => fact !== undefined)
  return facts.length > 0 ? html`<p class="muted small">${facts.join(' · ')}</p>` : ''
}

function itemCard(item: LabJobView['items'][number]): Html {
  const attributes = Object.entries(item.attributes)
  return html`<li class="card item">
<h3>${item.copies} × ${item.sku} <span class="muted small">${item.itemId}</span> ${item.state ? html`<span class="badge badge-${item.state === 'rejected' ? 'error' : item.state === 'open' ? 'pending' : 'ok'}">${ITEM_STATE_LABELS[item.state]}</span>` : ''}</h3>
${item.description && item.description !== item.sku ? html`<p class="item-description">${item.description}</p>` : ''}
${attributes.length > 0 ? html`<p>${attributes.map(([name, value], index) => html`${index > 0 ? ', ' : ''}${name}: <strong>${value}</strong>`)}</p>` : ''}
<ul class="lab-files">${item.printFiles.map(
    (file) => html`<li class="image-figure">
${file.format === 'pdf' ? html`<p class="image-placeholder">PDF print file</p>` : html`<img src="${file.url}" alt="Print file for ${file.printArea} of ${item.sku}" loading="lazy"${file.pixelSize ? html` width="${file.pixelSize.width}" height="${file.pixelSize.height}"` : ''}>`}
<p><a href="${file.url}" download>Download ${file.printArea} (${file.format.toUpperCase()}${file.pixelSize ? `, ${file.pixelSize.width}×${file.pixelSize.height} px` : ''})</a></p>
${printFileFacts(file)}
</li>`,
  )}</ul>
</li>`
}

/** The merchant's cancel waits a short while for this answer: the card comes first on the page. */
function cancellationCard(job: LabJobView, csrfToken: string): Html {
  const answerButton = (answer: CancellationAnswer, label: string, style: string) =>
    html`<form method="post" action="${jobPath(job.shipmentId, '/cancellation')}">${csrfField(csrfToken)}<input type="hidden" name="answer" value="${answer}"><button type="submit"${style ? html` class="${style}"` : ''}>${label}</button></form>`
  return html`<section class="notice notice-error" aria-labelledby="cancellation-heading">
<h2 id="cancellation-heading">The merchant asks to cancel this job</h2>
<p>Asked at ${formatTime(job.cancellationRequested?.at)}. Answer now: the merchant is waiting for it.</p>
<div class="job-actions">
${answerButton('cancelled', 'Cancelled: we will not make it', 'button-danger')}
${answerButton('tooLate', 'Too late: already made or on its way', '')}
</div>
</section>`
}

/** The merchant's branding files (inserts, stickers...), each by the name the order gave it; nothing without any. */
function brandingLinks(branding: LabJobView['branding']): Html {
  const entries = Object.entries(branding ?? {})
  if (entries.length === 0) return html``
  return html`<div><dt>Branding</dt><dd><ul class="plain">${entries.map(
    ([name, { url }]) => html`<li><a href="${url}">Branding: ${name}</a></li>`,
  )}</ul></dd></div>`
}

function renderJob(job: LabJobView, today: string, csrfToken: string, state: JobPageState): Html {
  const errorsOf = (form: JobForm, targets: Record<string, FieldTarget>): FieldErrors =>
    state.form === form && state.refusal ? fieldErrors(state.refusal, targetIn(targets)) : NO_ERRORS
  const summaryOf = (form: JobForm, errors: FieldErrors, title: string) =>
    state.form === form && state.refusal ? errorSummary(state.refusal, errors, title) : html``
  const values = state.values ?? {}
  const typedValue = (form: JobForm, name: string) => (state.form === form ? formValue(values, name) : '')
  const checkedOf = (form: JobForm, name: string) => (state.form === form ? formValues(values, name) : [])
  const printedErrors = errorsOf('printed', PRINTED_TARGETS)
  const shipErrors = errorsOf('shipped', SHIP_TARGETS)
  const rejectErrors = errorsOf('rejected', REJECT_TARGETS)
  const reason = typedValue('rejected', 'reason')
  const field = (errors: FieldErrors, id: string, label: string, input: Html) =>
    html`<div class="field"><label for="${id}">${label}</label>${input}${fieldMessages(errors, id)}</div>`
  const text = (errors: FieldErrors, id: string, name: string, value: string, extra = html``) =>
    html`<input id="${id}" name="${name}" value="${value}"${extra}${invalidAttributes(errors, id)}>`
  // A closed job's page is its record: what was given and shipped, without the forms.
  const closed = isClosed(job)
  // The ship form starts with the carrier and service the job was priced with; after a refusal, with what was typed.
  const shipValue = (name: 'carrierName' | 'carrierService', priced: string) =>
    state.form === 'shipped' ? formValue(values, name) : priced
  return html`<nav class="breadcrumb" aria-label="Breadcrumb">${closed ? html`<a href="${LAB_PORTAL_PATH}/history">History</a>` : html`<a href="${LAB_PORTAL_PATH}/jobs">Jobs</a>`} › ${job.shipmentId}</nav>
<div class="page-head"><h1>Job ${job.shipmentId} ${stateBadge(job.state)}</h1></div>
${job.cancellationRequested ? cancellationCard(job, csrfToken) : ''}
<div class="two-columns">
<section class="card" aria-labelledby="job-facts">
<h2 id="job-facts">What and when</h2>
<dl class="facts">
<div><dt>Ship by</dt><dd>${shipByCell(job, today)}</dd></div>
<div><dt>Priority</dt><dd>${priorityBadge(job.priority)}</dd></div>
<div><dt>Shipping method</dt><dd>${job.shippingMethod}</dd></div>
<div><dt>Carrier and service</dt><dd>${job.carrier.name} · ${job.carrier.service}</dd></div>
<div><dt>Order</dt><dd><code>${job.orderId}</code></dd></div>
<div><dt>Packing slip</dt><dd>${job.packingSlipPdf ? html`<a href="${job.packingSlipPdf.url}">Packing slip (PDF)</a>` : html`<span class="muted">none</span>`}</dd></div>
${job.packingSlip ? html`<div><dt>Merchant's packing slip</dt><dd><a href="${job.packingSlip.url}">Merchant's packing slip</a></dd></div>` : ''}
${brandingLinks(job.branding)}
${job.customs ? html`<div><dt>Customs</dt><dd>${job.customs.incoterm} to ${job.customs.destinationCountryCode}: <a href="${job.customs.commercialInvoice.url}">Commercial invoice (PDF)</a></dd></div>` : ''}
</dl>
<div class="job-actions">
${job.state === 'submitted' ? html`<form method="post" action="${jobPath(job.shipmentId, '/acknowledge')}">${csrfField(csrfToken)}<button type="submit">Acknowledge</button></form>` : ''}
${job.state === 'submitted' || job.state === 'acknowledged' ? html`<form method="post" action="${jobPath(job.shipmentId, '/in-production')}">${csrfField(csrfToken)}<button type="submit">Mark in production</button></form>` : ''}
</div>
</section>
<section class="card" aria-labelledby="job-recipient">
<h2 id="job-recipient">Ship to</h2>
${addressLines(job.recipient)}
${job.recipient.phoneNumber ? html`<p>Phone: ${job.recipient.phoneNumber}</p>` : ''}
${job.recipient.email ? html`<p>Email: ${job.recipient.email}</p>` : ''}
</section>
</div>
${parcelsCard(job)}
<h2>Items</h2>
<ul class="lab-items">${job.items.map(itemCard)}</ul>
${
  closed
    ? html`<p class="notice">${closedWords(job)}</p>`
    : html`<section class="card" aria-labelledby="printed-heading">
<h2 id="printed-heading">Mark items printed</h2>
${summaryOf('printed', printedErrors, 'The items were not marked printed')}
<form method="post" action="${jobPath(job.shipmentId, '/printed')}" class="stack">
${csrfField(csrfToken)}
${itemChoices(job, { name: 'itemIds', id: 'printed-items', legend: 'Items printed', hint: 'None ticked: every item not yet printed.', checked: checkedOf('printed', 'itemIds'), only: ['open'] })}
${fieldMessages(printedErrors, 'printed-items')}
<button type="submit">Mark printed</button>
</form>
</section>
<section class="card" aria-labelledby="ship-heading">
<h2 id="ship-heading">Ship a parcel</h2>
<p class="muted">One form per parcel: a job may leave in several parcels. The job is shipped once all its items are.</p>
${summaryOf('shipped', shipErrors, 'The parcel was not recorded')}
<form method="post" action="${jobPath(job.shipmentId, '/shipped')}" class="stack">
${csrfField(csrfToken)}
${itemChoices(job, { name: 'itemIds', id: 'ship-items', legend: 'Items in this parcel', hint: 'None ticked: every item not yet shipped.', checked: checkedOf('shipped', 'itemIds'), only: ['open', 'printed'] })}
${fieldMessages(shipErrors, 'ship-items')}
<div class="grid-fields">
${field(shipErrors, 'ship-carrier', 'Carrier', text(shipErrors, 'ship-carrier', 'carrierName', shipValue('carrierName', job.carrier.name), html` required autocomplete="off"`))}
${field(shipErrors, 'ship-service', 'Service', text(shipErrors, 'ship-service', 'carrierService', shipValue('carrierService', job.carrier.service), html` required autocomplete="off"`))}
${field(shipErrors, 'ship-tracking-number', 'Tracking number (optional)', text(shipErrors, 'ship-tracking-number', 'trackingNumber', typedValue('shipped', 'trackingNumber'), html` autocomplete="off"`))}
${field(shipErrors, 'ship-tracking-url', 'Tracking link (optional)', text(shipErrors, 'ship-tracking-url', 'trackingUrl', typedValue('shipped', 'trackingUrl'), html` type="url" autocomplete="off"`))}
</div>
<button type="submit">Record parcel as shipped</button>
</form>
</section>
<section class="card" aria-labelledby="reject-heading">
<h2 id="reject-heading">Reject</h2>
<p class="muted">Rejected items go to another lab. Tick nothing to reject the whole job.</p>
${summaryOf('rejected', rejectErrors, 'The rejection was not recorded')}
<form method="post" action="${jobPath(job.shipmentId, '/reject')}" class="stack">
${csrfField(csrfToken)}
${itemChoices(job, { name: 'itemIds', id: 'reject-items', legend: 'Items to reject', hint: 'None ticked: the whole job.', checked: checkedOf('rejected', 'itemIds'), only: ['open', 'printed'] })}
${fieldMessages(rejectErrors, 'reject-items')}
${field(
  rejectErrors,
  'reject-reason',
  'Reason',
  html`<select id="reject-reason" name="reason"${invalidAttributes(rejectErrors, 'reject-reason')}>${ITEM_REJECTION_REASONS.map(
    (name) =>
      html`<option value="${name}"${name === reason ? html` selected` : ''}>${REJECT_REASON_LABELS[name]}</option>`,
  )}</select>`,
)}
${field(
  rejectErrors,
  'reject-description',
  'Description (required for a file defect)',
  html`<textarea id="reject-description" name="description" rows="3"${invalidAttributes(rejectErrors, 'reject-description')}>${typedValue('rejected', 'description')}</textarea>`,
)}
<button type="submit" class="button-danger">Reject</button>
</form>
</section>`
}`
}

/** What ended a closed job, in words. */
function closedWords(job: LabJobView): string {
  switch (job.state) {
    case 'shipped':
      return 'This job is shipped: nothing more to report here (carrier scans go through the lab API).'
    case 'rejected':
      return 'This job was rejected: its items went to another lab.'
    default:
      return 'This job was cancelled.'
  }
}

/** The tracking number, linked to the carrier's page when the lab gave one. */
function trackingOf(tracking: Parcel['tracking']): Html {
  if (!tracking) return html`<span class="muted">not tracked</span>`
  return tracking.url ? html`<a href="${tracking.url}">${tracking.number}</a>` : html`${tracking.number}`
}

/** The parcels shipped so far, each with its items, carrier and tracking; nothing before the first. */
function parcelsCard(job: LabJobView): Html {
  const parcels = job.parcels ?? []
  if (parcels.length === 0) return html``
  const skuOf = (itemId: string) => job.items.find((item) => item.itemId === itemId)?.sku ?? itemId
  return html`<section class="card" aria-labelledby="parcels-heading">
<h2 id="parcels-heading">Parcels</h2>
<div class="table-wrap"><table class="orders lab-parcels">
<thead><tr><th scope="col">Dispatched</th><th scope="col">Carrier</th><th scope="col">Tracking</th><th scope="col">Items</th></tr></thead>
<tbody>${parcels.map(
    (parcel) => html`<tr>
<td data-label="Dispatched">${formatTime(parcel.dispatchDate)}</td>
<td data-label="Carrier">${parcel.carrier.name} · ${parcel.carrier.service}</td>
<td data-label="Tracking">${trackingOf(parcel.tracking)}</td>
<td data-label="Items">${parcel.items.map((entry, index) => html`${index > 0 ? ', ' : ''}${skuOf(entry.itemId)} <span class="muted small">(${entry.itemId})</span>`)}</td>
</tr>`,
  )}</tbody>
</table></div>
</section>`
}

// ---- Reading the forms into reports

function shippedReport(values: FormValues, job: LabJobView): LabReport | ApiBody {
  const failures: Failures = {}
  const name = formValue(values, 'carrierName').trim()
  const service = formValue(values, 'carrierService').trim()
  const number = formValue(values, 'trackingNumber').trim()
  const url = formValue(values, 'trackingUrl').trim()
  checkText(failures, 'carrier.name', name, { required: true, maxLength: 100, singleLine: true })
  checkText(failures, 'carrier.service', service, { required: true, maxLength: 100, singleLine: true })
  // A tracking link needs its number; a number may come without a link (the lab API's rule).
  const tracked = number !== '' || url !== ''
  if (tracked) {
    checkText(failures, 'tracking.number', number, { required: true, maxLength: 100, singleLine: true })
    if (url !== '' && (!/^https?:\/\/\S+$/.test(url) || url.length > 2048))
      addFailure(failures, 'tracking.url', {
        code: 'InvalidFormat',
        providedValue: url,
        comparisonValue: 'a web address starting with https://',
      })
  }
  const itemIds = formValues(values, 'itemIds')
  checkItemIds(failures, 'itemIds', itemIds, job)
  if (hasFailures(failures)) return refusalOf(failures, 'The parcel could not be recorded')
  return {
    kind: 'shipped',
    carrier: { name, service },
    // No dispatch date: the time the report is recorded, and a form sent twice is one parcel.
    tracking: tracked ? { number, url } : null,
    ...(itemIds.length > 0 ? { itemIds } : {}),
  }
}

function checkItemIds(failures: Failures, path: string, itemIds: string[], job: LabJobView): void {
  const inJob = new Set(job.items.map((item) => item.itemId))
  for (const [index, itemId] of itemIds.entries()) {
    if (!inJob.has(itemId)) addFailure(failures, `${path}[${index}]`, { code: 'InvalidValue', providedValue: itemId })
  }
}

function rejectedReport(values: FormValues, job: LabJobView): LabReport | ApiBody {
  const failures: Failures = {}
  const reason = ITEM_REJECTION_REASONS.find((candidate) => candidate === formValue(values, 'reason'))
  const description = formValue(values, 'description').trim()
  if (reason === undefined)
    addFailure(failures, 'reason', { code: 'InvalidValue', providedValue: formValue(values, 'reason') })
  checkText(failures, 'description', description, { required: reason === 'FileDefect', maxLength: 500 })
  const itemIds = formValues(values, 'itemIds')
  checkItemIds(failures, 'itemIds', itemIds, job)
  if (hasFailures(failures) || reason === undefined) return refusalOf(failures, 'The rejection could not be recorded')
  const words = description === '' ? REJECT_REASON_LABELS[reason] : `${REJECT_REASON_LABELS[reason]}: ${description}`
  if (itemIds.length === 0) {
    // The whole job: out of stock excludes the lab for each of its items, anything else rejects the job as such.
    return {
      kind: 'rejected',
      reason: words,
      unavailableItemIds: reason === 'OutOfStock' ? job.items.map((item) => item.itemId) : [],
    }
  }
  return {
    kind: 'rejected',
    reason: words,
    unavailableItemIds: [],
    items: itemIds.map((itemId) => ({ itemId, reason, ...(description !== '' ? { description } : {}) })),
  }
}

function printedReport(values: FormValues, job: LabJobView): LabReport | ApiBody {
  const failures: Failures = {}
  const itemIds = formValues(values, 'itemIds')
  checkItemIds(failures, 'itemIds', itemIds, job)
  if (hasFailures(failures)) return refusalOf(failures, 'The items could not be marked printed')
  return { kind: 'printed', itemIds }
}

/** The History view's table (or why it is empty). */
function historyTable(jobs: readonly LabJobView[], search: string): Html {
  if (jobs.length === 0) {
    return html`<div class="empty card"><p>${search === '' ? 'No job has been shipped, rejected or cancelled yet.' : html`No closed job matches “${search}”.`}</p></div>`
  }
  const lastParcel = (job: LabJobView) => job.parcels.at(-1)
  return html`<div class="table-wrap"><table class="orders lab-jobs">
<caption class="visually-hidden">Closed jobs, most recently closed first</caption>
<thead><tr><th scope="col">Job</th><th scope="col">State</th><th scope="col">Order</th><th scope="col">Ship to</th><th scope="col">Dispatched</th><th scope="col">Tracking</th><th scope="col">Packing slip</th></tr></thead>
<tbody>${jobs.map((job) => {
    const parcel = lastParcel(job)
    const trackedParcels = (job.parcels ?? []).filter((candidate) => candidate.tracking)
    return html`<tr>
<th scope="row"><a href="${jobPath(job.shipmentId)}">${job.shipmentId}</a></th>
<td data-label="State">${stateBadge(job.state)}</td>
<td data-label="Order"><code>${job.orderId}</code></td>
<td data-label="Ship to">${job.recipient.name}, ${job.recipient.address.countryCode}</td>
<td data-label="Dispatched">${parcel ? formatDate(parcel.dispatchDate.slice(0, 10)) : html`<span class="muted">—</span>`}</td>
<td data-label="Tracking">${trackedParcels.length > 0 ? trackedParcels.map((entry, index) => html`${index > 0 ? ', ' : ''}${trackingOf(entry.tracking)}`) : html`<span class="muted">—</span>`}</td>
<td data-label="Packing slip">${job.packingSlipPdf ? html`<a href="${job.packingSlipPdf.url}">PDF</a>` : html`<span class="muted">none</span>`}</td>
</tr>`
  })}</tbody>
</table></div>`
}

function isRefusal(value: LabReport | ApiBody): value is ApiBody {
  return 'outcome' in value
}

export function registerPortalPages(pages: FastifyInstance, portal: Portal, labs: PortalLabs): void {
  async function sendQueue(
    request: FastifyRequest<{ Querystring: { view?: string } }>,
    reply: FastifyReply,
    capacityRefusal: ApiBody | null = null,
  ) {
    const { lab, csrfToken } = request.signedInLab
    const view = VIEWS.find((candidate) => candidate === request.query.view) ?? 'all'
    const [jobs, capacity] = await Promise.all([labs.listJobs(lab.labCode), labs.capacity(lab.labCode)])
    const today = capacity.date
    const shown = queueOf(jobs, view, today)
    const table =
      shown.length === 0
        ? html`<div class="empty card"><p>${view === 'all' ? 'No open jobs: everything is shipped.' : `No jobs are ${VIEW_LABELS[view].toLowerCase()}.`}</p></div>`
        : html`<div class="table-wrap"><table class="orders lab-jobs">
<caption class="visually-hidden">${VIEW_LABELS[view]} jobs, earliest ship-by date first</caption>
<thead><tr><th scope="col">Job</th><th scope="col">State</th><th scope="col">Ship by</th><th scope="col">Priority</th><th scope="col">Items</th><th scope="col">Ship to</th></tr></thead>
<tbody>${shown.map(
            (job) => html`<tr>
<th scope="row"><a href="${jobPath(job.shipmentId)}">${job.shipmentId}</a></th>
<td data-label="State">${stateBadge(job.state)}${job.cancellationRequested ? html` <span class="badge badge-error">Cancel?</span>` : ''}</td>
<td data-label="Ship by">${shipByCell(job, today)}</td>
<td data-label="Priority">${priorityBadge(job.priority)}</td>
<td data-label="Items">${itemsSummary(job)}</td>
<td data-label="Ship to">${job.recipient.name}, ${job.recipient.address.countryCode}</td>
</tr>`,
          )}</tbody>
</table></div>`
    return portal.sendPage(request, reply, {
      title: 'Jobs',
      status: capacityRefusal ? 400 : 200,
      content: html`<div class="page-head"><h1>Jobs</h1></div>
<nav class="subnav" aria-label="Job views"><ul class="subnav-list">${VIEWS.map(
        (name) =>
          html`<li><a class="subnav-link" href="${LAB_PORTAL_PATH}/jobs${name === 'all' ? '' : `?view=${name}`}"${name === view ? html` aria-current="page"` : ''}>${VIEW_LABELS[name]} <span class="badge badge-${name === 'overdue' && jobs.some((job) => inView(job, 'overdue', today)) ? 'error' : 'pending'}">${jobs.filter((job) => inView(job, name, today)).length}</span></a></li>`,
      )}</ul></nav>
<section aria-label="${VIEW_LABELS[view]} jobs">${table}</section>
${capacityCard(capacity, csrfToken, capacityRefusal)}`,
    })
  }

  pages.get<{ Querystring: { view?: string } }>('/jobs', (request, reply) => sendQueue(request, reply))

  pages.post<{ Body: FormValues; Querystring: { view?: string } }>('/capacity', async (request, reply) => {
    const text = formValue(request.body ?? {}, 'jobsToday').trim()
    const failures: Failures = {}
    const jobsToday = /^\d{1,9}$/.test(text) ? Number(text) : undefined
    if (text === '') addFailure(failures, 'jobsToday', { code: 'Required', providedValue: null })
    else if (jobsToday === undefined)
      addFailure(failures, 'jobsToday', { code: 'InvalidType', providedValue: text, comparisonValue: 'integer' })
    else if (jobsToday > MAX_LAB_JOBS_PER_DAY)
      addFailure(failures, 'jobsToday', {
        code: 'MustBeLessThanOrEqualTo',
        providedValue: jobsToday,
        comparisonValue: MAX_LAB_JOBS_PER_DAY,
      })
    if (hasFailures(failures) || jobsToday === undefined) {
      return sendQueue(request, reply, refusalOf(failures, 'The capacity could not be saved'))
    }
    try {
      const { labCode } = request.signedInLab.lab
      await labs.reportCapacity(labCode, jobsToday, { kind: 'lab', labCode })
    } catch (error) {
      return sendQueue(request, reply, serviceRefusal(error))
    }
    return portal.redirect(reply, '/jobs', {
      kind: 'success',
      text: `Saved: you can take ${jobsToday} more job${jobsToday === 1 ? '' : 's'} today.`,
    })
  })

  /** One of the lab's jobs in any state; undefined when it is not the lab's (or no job at all). */
  async function findJob(labCode: string, shipmentId: string): Promise<LabJobView | undefined> {
    try {
      return await labs.getJob(labCode, shipmentId)
    } catch (error) {
      if (error instanceof ServiceError && error.outcome === 'EntityNotFound') return undefined
      throw error
    }
  }

  /** Whether the job is still open (in the queue): where a report leaves the lab afterwards. */
  async function isOpenJob(labCode: string, shipmentId: string): Promise<boolean> {
    const job = await findJob(labCode, shipmentId)
    return job !== undefined && !isClosed(job)
  }

  function sendGone(request: FastifyRequest, reply: FastifyReply, shipmentId: string) {
    return portal.sendPage(request, reply, {
      title: 'Job not found',
      status: 404,
      content: html`<h1>Job ${shipmentId} is not found</h1>
<p>It is not one of this lab's jobs: it belongs to another lab, or was never given to this one.</p>
<p><a href="${LAB_PORTAL_PATH}/jobs">Back to the jobs</a> · <a href="${LAB_PORTAL_PATH}/history">History</a></p>`,
    })
  }

  pages.get<{ Querystring: { q?: string; skip?: string } }>('/history', async (request, reply) => {
    const { lab } = request.signedInLab
    const search = (request.query.q ?? '').trim().slice(0, LAB_JOB_HISTORY_LIMITS.searchMaxLength)
    const history = await labs.jobHistory(lab.labCode, { search, skip: skipOf(request.query.skip) })
    const urlOf = (skip: number) => {
      const params = new URLSearchParams()
      if (search !== '') params.set('q', search)
      if (skip > 0) params.set('skip', String(skip))
      const query = params.toString()
      return `${LAB_PORTAL_PATH}/history${query ? `?${query}` : ''}`
    }
    return portal.sendPage(request, reply, {
      title: 'History',
      content: html`<div class="page-head"><h1>History</h1></div>
<p class="muted">Shipped, rejected and cancelled jobs, most recently closed first, each with its packing slip and tracking.</p>
<form class="filters" method="get" action="${LAB_PORTAL_PATH}/history" role="search" aria-label="Search the history">
<div class="field field-wide"><label for="history-q">Search</label>
<input id="history-q" name="q" type="search" maxlength="${LAB_JOB_HISTORY_LIMITS.searchMaxLength}" value="${search}" placeholder="Shipment, order, reference, recipient or tracking number"></div>
<div class="field field-buttons"><button type="submit">Search</button>${search !== '' ? html` <a href="${LAB_PORTAL_PATH}/history">Clear</a>` : ''}</div>
</form>
${historyTable(history.jobs, search)}
${pager({
  noun: 'jobs',
  skip: history.skip,
  shown: history.jobs.length,
  pageSize: LAB_JOB_HISTORY_LIMITS.pageSize,
  hasMore: history.hasMore,
  urlOf,
  labels: ['Newer', 'Older'],
})}`,
    })
  })

  async function sendJob(
    request: FastifyRequest<{ Params: { shipmentId: string } }>,
    reply: FastifyReply,
    state: JobPageState = {},
  ) {
    const { lab, csrfToken } = request.signedInLab
    const [job, capacity] = await Promise.all([
      findJob(lab.labCode, request.params.shipmentId),
      labs.capacity(lab.labCode),
    ])
    if (!job) return sendGone(request, reply, request.params.shipmentId)
    return portal.sendPage(request, reply, {
      title: `Job ${job.shipmentId}`,
      status: state.refusal ? 400 : 200,
      content: renderJob(job, capacity.date, csrfToken, state),
    })
  }

  pages.get<{ Params: { shipmentId: string } }>('/jobs/:shipmentId', (request, reply) => sendJob(request, reply))

  /** Applies a report; back to the job (or the queue once the job is no longer open) with what happened. */
  async function applyReport(
    request: FastifyRequest<{ Params: { shipmentId: string }; Body: FormValues }>,
    reply: FastifyReply,
    form: JobForm | null,
    report: PortalReport,
    done: string,
  ) {
    const { lab } = request.signedInLab
    const { shipmentId } = request.params
    let changed: boolean
    try {
      changed = (await labs.report(lab.labCode, shipmentId, report)).changed
    } catch (error) {
      const refusal = serviceRefusal(error)
      if (form === null || refusal.outcome === 'EntityNotFound') {
        const notice: Notice = { kind: 'error', text: refusal.statusText ?? refusal.outcome }
        return (await isOpenJob(lab.labCode, shipmentId))
          ? portal.redirect(reply, `/jobs/${encodeURIComponent(shipmentId)}`, notice)
          : portal.redirect(reply, '/jobs', notice)
      }
      return sendJob(request, reply, { form, refusal, values: request.body ?? {} })
    }
    const notice: Notice = changed
      ? { kind: 'success', text: `${shipmentId}: ${done}.` }
      : { kind: 'info', text: `${shipmentId}: nothing changed (already reported).` }
    return (await isOpenJob(lab.labCode, shipmentId))
      ? portal.redirect(reply, `/jobs/${encodeURIComponent(shipmentId)}`, notice)
      : portal.redirect(reply, '/jobs', notice)
  }

  type JobPost = { Params: { shipmentId: string }; Body: FormValues }
  pages.post<JobPost>('/jobs/:shipmentId/acknowledge', (request, reply) =>
    applyReport(request, reply, null, { kind: 'acknowledged' }, 'acknowledged'),
  )
  pages.post<JobPost>('/jobs/:shipmentId/in-production', (request, reply) =>
    applyReport(request, reply, null, { kind: 'inProduction' }, 'in production'),
  )

  pages.post<JobPost>('/jobs/:shipmentId/cancellation', async (request, reply) => {
    const { shipmentId } = request.params
    const job = await findJob(request.signedInLab.lab.labCode, shipmentId)
    if (!job || isClosed(job)) return sendGone(request, reply, shipmentId)
    const answer = formValue(request.body ?? {}, 'answer')
    // Answered only where the job view carries a request, as the form is shown only there.
    if (!job.cancellationRequested || (answer !== 'cancelled' && answer !== 'tooLate')) {
      return portal.redirect(reply, `/jobs/${encodeURIComponent(shipmentId)}`, {
        kind: 'error',
        text: job.cancellationRequested
          ? 'Choose an answer: cancelled or too late.'
          : 'Nobody asked to cancel this job: there is nothing to answer.',
      })
    }
    return applyReport(
      request,
      reply,
      null,
      { kind: 'cancellation', answer },
      answer === 'cancelled' ? 'cancelled, as the merchant asked' : 'answered too late to cancel',
    )
  })

  const formReports: [string, JobForm, (values: FormValues, job: LabJobView) => LabReport | ApiBody, string][] = [
    ['/printed', 'printed', printedReport, 'items marked printed'],
    ['/shipped', 'shipped', shippedReport, 'parcel recorded as shipped'],
    ['/reject', 'rejected', rejectedReport, 'rejected; the items go to another lab'],
  ]
  for (const [path, form, read, done] of formReports) {
    pages.post<JobPost>(`/jobs/:shipmentId${path}`, async (request, reply) => {
      const job = await findJob(request.signedInLab.lab.labCode, request.params.shipmentId)
      if (!job) return sendGone(request, reply, request.params.shipmentId)
      // A closed job's page has no forms: a form sent from an older copy of the page goes to the service, whose
      // answer (a repeat is Ok, anything else refused) the job's page shows.
      const values = request.body ?? {}
      const report = read(values, job)
      if (isRefusal(report)) return sendJob(request, reply, { form, refusal: report, values })
      return applyReport(request, reply, form, report, done)
    })
  }
}
