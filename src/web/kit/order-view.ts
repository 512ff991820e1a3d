// One order as its page shows it: its facts, progress, issues, items with their images and print files,
// shipments, routing, charges, recipient, metadata, timeline and callbacks. Shared by the merchant's order page
// (pages/order.page.ts, which adds the actions and the Sandbox's controls) and the operator console's read-only
// view of any account's order (admin/orders.pages.ts), so both show the same order the same way.
import type { Type } from 'typebox'
import { formatMinorAsAmount, parseAmountToMinor } from '../../domain/money.ts'
import type { Item, OrderCredit, OrderDocument, Recipient, Shipment } from '../../domain/order.ts'
import type { OrderPreflightResponseSchema } from '../../http/schemas/preflight.schema.ts'
import type { RoutingResponseSchema } from '../../http/schemas/routing.schema.ts'
import type { CallbackDelivery } from './callbacks-table.ts'
import {
  DETAIL_STEPS,
  eventWords,
  formatDate,
  formatDeliveryWindow,
  formatMoney,
  formatTime,
  issueHeadline,
  orderTotal,
  stateBadge,
  stateWords,
} from './format.ts'
import { type Html, html } from './html.ts'
import { pageThumbnails } from './page-thumbnails.ts'

export interface OrderEvent {
  id: string
  type: string
  time: string
  data: { order: OrderDocument }
}

/** GET /v4.0/orders/{id}/routing's `routing`. */
export type Routing = Type.Static<typeof RoutingResponseSchema>['routing']
type RoutingAllocation = Routing['allocations'][number]

/** One asset's preflight as GET /v4.0/orders/{id}/preflight answers it. */
export type AssetPreflight = Type.Static<typeof OrderPreflightResponseSchema>['preflight'][number]
type Guides = NonNullable<AssetPreflight['guides']>

interface Box {
  left: number
  top: number
  width: number
  height: number
}

export interface PrintFile {
  shipmentId: string
  labCode: string | null
  itemId: string
  assetId: string
  printArea: string
  format: string
  status: string
  failureReason: string | null
  /** The print area in pixels; null for PDFs (passed on as sent, so they have no preview either). */
  width: number | null
  height: number | null
  sizing: string
  rotated: boolean | null
  source: { width: number; height: number } | null
  placement: (Box & { margins?: { left: number; top: number; right: number; bottom: number } | null }) | null
  previewUrl: string | null
}

/** What changed between two snapshots of the order that the events carry: details and shipments. */
function changesBetween(before: OrderDocument | null, after: OrderDocument): string[] {
  const changes: string[] = []
  for (const [key, label] of DETAIL_STEPS) {
    const from = before?.status.details[key]
    const to = after.status.details[key]
    if (to !== from && to !== 'NotStarted')
      changes.push(`${label}: ${to === 'InProgress' ? 'in progress' : to.toLowerCase()}`)
  }
  for (const shipment of after.shipments) {
    const previous = before?.shipments.find((candidate) => candidate.id === shipment.id)
    const parcelsBefore = previous?.parcels?.length ?? 0
    const parcels = shipment.parcels ?? []
    // A shipment sent in several parcels: each parcel as it left.
    if (parcels.length > 1 || (parcels.length === 1 && shipment.status !== 'Shipped')) {
      parcels.slice(parcelsBefore).forEach((parcel, index) => {
        changes.push(`Shipment ${shipment.id}: parcel ${parcelsBefore + index + 1} dispatched (${itemList(parcel)})`)
      })
    }
    if (!previous) changes.push(`Shipment ${shipment.id} to be made by ${shipment.fulfillmentLocation.labCode}`)
    else if (previous.status !== shipment.status)
      changes.push(`Shipment ${shipment.id}: ${shipment.status.toLowerCase()}`)
    else if (shipment.deliveryStatus && previous.deliveryStatus !== shipment.deliveryStatus)
      changes.push(`Shipment ${shipment.id}: ${stateWords(shipment.deliveryStatus).toLowerCase()}`)
  }
  return changes
}

/** The item ids of a parcel or shipment, as the page lists them. */
function itemList(holder: { items: { itemId: string }[] }): string {
  return holder.items.map((entry) => entry.itemId).join(', ')
}

/** One line of the timeline: when it happened, and what. */
export interface TimelineEntry {
  /** When it happened (ISO 8601): a carrier's scan or a lab's dispatch, not when printroute heard of it. */
  time: string
  body: Html
}

/** Milliseconds since the epoch; an unreadable time sorts last. */
function instant(time: string): number {
  const parsed = Date.parse(time)
  return Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed
}

/**
 * The entries oldest first by when they happened; entries of the same time keep the order they were given in
 * (the order they were recorded), so a report's events read in the order it caused them.
 */
export function inTimeOrder<T extends { time: string }>(entries: readonly T[]): T[] {
  return entries
    .map((entry, index) => ({ entry, index, at: instant(entry.time) }))
    .sort((a, b) => (a.at === b.at ? a.index - b.index : a.at < b.at ? -1 : 1))
    .map(({ entry }) => entry)
}

/** The dispatches the timeline shows: each parcel of a shipment sent in several, else the shipment. */
function dispatches(order: OrderDocument): TimelineEntry[] {
  return order.shipments.flatMap((shipment) => {
    const parcels = shipment.parcels ?? []
    if (parcels.length > 1 || (parcels.length === 1 && shipment.status !== 'Shipped')) {
      return parcels.map((parcel, index) => ({
        time: parcel.dispatchDate,
        body: html`<strong>Shipment ${shipment.id}: parcel ${String(index + 1)} dispatched</strong> by ${parcel.carrier.name}${parcel.tracking ? html`, tracking ${parcel.tracking.number}` : ''} <span class="muted">(${itemList(parcel)})</span>`,
      }))
    }
    if (!shipment.dispatchDate) return []
    return [
      {
        time: shipment.dispatchDate,
        body: html`<strong>Shipment ${shipment.id} dispatched</strong> by ${shipment.carrier.name}`,
      },
    ]
  })
}

/**
 * When what an event tells happened. A shipment's delivery status comes from the carrier's scan that set it, and
 * the lab may report it long after (a Delivered scan can be recorded before the Dispatched one is): the scan's own
 * time; the whole order delivered: its `deliveredAt`. Anything else happened when printroute recorded it.
 */
function happenedAt(event: OrderEvent, before: OrderDocument | null, after: OrderDocument | undefined): string {
  if (!after) return event.time
  const name = event.type.replace(/^com\.[^.]+\.order\./, '')
  const [what, state] = name.split('#')
  if (what === 'status.delivery') return after.deliveredAt ?? event.time
  if (what !== 'shipments.shipment' || !state || state === 'Shipped') return event.time
  const scanTimes = after.shipments
    .filter((shipment) => {
      const previous = before?.shipments.find((candidate) => candidate.id === shipment.id)
      return shipment.deliveryStatus === state && previous?.deliveryStatus !== state
    })
    .flatMap((shipment) => (shipment.trackingEvents ?? []).filter((scan) => scan.status === state))
    .map((scan) => scan.time)
  return scanTimes.length === 0
    ? event.time
    : scanTimes.reduce((latest, time) => (instant(time) > instant(latest) ? time : latest))
}

/** The order's story: created, its events, its dispatches, its last update, by when each happened. */
export function orderTimeline(order: OrderDocument, events: OrderEvent[], callbacks: CallbackDelivery[]): Html {
  const deliveriesOf = new Map<string, CallbackDelivery[]>()
  for (const delivery of callbacks)
    deliveriesOf.set(delivery.eventId, [...(deliveriesOf.get(delivery.eventId) ?? []), delivery])
  let previous: OrderDocument | null = null
  const eventEntries = events.map((event): TimelineEntry => {
    const snapshot = event.data?.order
    const changes = snapshot ? changesBetween(previous, snapshot) : []
    const time = happenedAt(event, previous, snapshot)
    previous = snapshot ?? previous
    const deliveries = deliveriesOf.get(event.id) ?? []
    return {
      time,
      body: html`<strong>${eventWords(event.type)}</strong> <code class="muted">${event.id}</code>${
        // The time recorded, when it reads differently from the time it happened (the page shows minutes).
        formatTime(time).text === formatTime(event.time).text
          ? ''
          : html` <span class="muted small">recorded ${formatTime(event.time)}</span>`
      }
${changes.length > 0 ? html`<ul class="changes">${changes.map((change) => html`<li>${change}</li>`)}</ul>` : ''}
${deliveries.map((delivery) => html`<div class="muted">Callback ${delivery.id}: ${stateBadge(delivery.status)} after ${delivery.attempts.length} attempt${delivery.attempts.length === 1 ? '' : 's'}</div>`)}`,
    }
  })
  const entries = inTimeOrder([
    { time: order.created, body: html`<strong>Order created</strong>` },
    ...eventEntries,
    ...dispatches(order),
    { time: order.lastUpdated, body: html`<span class="muted">Last update</span>` },
  ])
  return html`<ol class="timeline">${entries.map(
    (entry) =>
      html`<li><div class="timeline-time">${formatTime(entry.time)}</div><div class="timeline-body">${entry.body}</div></li>`,
  )}</ol>`
}

function progress(order: OrderDocument): Html {
  return html`<ol class="stepper">${DETAIL_STEPS.map(([key, label]) => {
    const state = order.status.details[key]
    return html`<li class="stepper-step step-${state.toLowerCase()}"><span class="stepper-label">${label}</span>${stateBadge(state)}</li>`
  })}</ol>`
}

function issues(order: OrderDocument, readOnly: boolean): Html {
  if (order.status.issues.length === 0) return html``
  return html`<section class="card issues" aria-labelledby="issues-heading"><h2 id="issues-heading">Issues</h2><ul>
${order.status.issues.map(
  (issue) => html`<li><strong>${issueHeadline(issue.errorCode)}</strong> <span class="muted">(${issue.objectId})</span>
<p>${issue.description}</p>
${issue.authorisationDetails && !readOnly ? html`<p><a class="button" href="${issue.authorisationDetails.authorisationUrl}">Pay ${formatMoney(issue.authorisationDetails.paymentDetails)}</a></p>` : ''}</li>`,
)}</ul></section>`
}

/** The source thumbnail with the printed part outlined and the rest dimmed. */
function sourceFigure(item: Item, asset: Item['assets'][number], file: PrintFile | undefined): Html {
  const alt = `Source image of ${item.sku}, print area ${asset.printArea}`
  if (!asset.thumbnailUrl) {
    return html`<figure class="image-figure"><div class="image-placeholder">${asset.status === 'Error' ? 'Download failed' : 'Not downloaded yet'}</div><figcaption>Source image</figcaption></figure>`
  }
  const source = file?.source
  const box = file?.placement
  const overlay =
    source && box
      ? html`<svg class="overlay" viewBox="0 0 ${source.width} ${source.height}" preserveAspectRatio="none" aria-hidden="true" focusable="false">
<path class="overlay-dim" fill-rule="evenodd" d="M0 0H${source.width}V${source.height}H0Z M${box.left} ${box.top}h${box.width}v${box.height}h${-box.width}Z"/>
<rect class="overlay-crop" x="${box.left}" y="${box.top}" width="${box.width}" height="${box.height}" vector-effect="non-scaling-stroke"/></svg>`
      : ''
  const caption =
    source && box
      ? box.width < source.width || box.height < source.height
        ? `Source, ${source.width}×${source.height} px; the outlined ${box.width}×${box.height} px are printed, the dimmed part is cut`
        : `Source, ${source.width}×${source.height} px; all of it is printed`
      : 'Source image'
  return html`<figure class="image-figure"><div class="image-frame"><img src="${asset.thumbnailUrl}" alt="${alt}" loading="lazy">${overlay}</div><figcaption>${caption}</figcaption></figure>`
}

/**
 * The print area's lines over its print file's preview (the API's guides, in print-file pixels; the preview is the
 * same picture reduced, so one viewBox fits both): the trim solid, a canvas's face dashed, the safe area dotted.
 */
function guideLines(guides: Guides): Html {
  const box = (name: string, part: Guides['trim']) =>
    html`<rect class="overlay-${name}" x="${part.left}" y="${part.top}" width="${part.width}" height="${part.height}" vector-effect="non-scaling-stroke"/>`
  const face = guides.face
  const faceIsTrim = face.left === guides.trim.left && face.top === guides.trim.top && face.width === guides.trim.width
  return html`<svg class="overlay overlay-guides" viewBox="0 0 ${guides.width} ${guides.height}" preserveAspectRatio="none" aria-hidden="true" focusable="false">${box('trim', guides.trim)}${faceIsTrim ? '' : box('face', face)}${box('safe', guides.safe)}</svg>`
}

/** What the guide lines mean, under the preview that shows them. */
function guidesCaption(guides: Guides): Html {
  const face = guides.face.left !== guides.trim.left
  return html`<span class="guides-key">Lines: <span class="key-trim">trim</span> (outside it the bleed is cut off)${face ? html`, <span class="key-face">face</span> (the front; the band around it wraps)` : ''}, <span class="key-safe">safe area</span>.</span>`
}

function previewFigure(item: Item, file: PrintFile | undefined, guides: Guides | null = null): Html {
  if (!file)
    return html`<figure class="image-figure"><div class="image-placeholder">No print file yet</div><figcaption>Print file</figcaption></figure>`
  if (!file.previewUrl) {
    const words =
      file.status === 'failed'
        ? `Failed: ${file.failureReason ?? 'see the issues'}`
        : file.format === 'pdf'
          ? 'PDF passed on as sent'
          : 'Not rendered yet'
    return html`<figure class="image-figure"><div class="image-placeholder">${words}</div><figcaption>Print file for ${file.labCode ?? 'the lab'}</figcaption></figure>`
  }
  // A file with a preview is an image, so it has pixels.
  const width = file.width ?? 0
  const height = file.height ?? 0
  const margins = file.placement?.margins
  const inner =
    margins && (margins.left || margins.top || margins.right || margins.bottom)
      ? html`<svg class="overlay" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect class="overlay-image" x="${margins.left}" y="${margins.top}" width="${width - margins.left - margins.right}" height="${height - margins.top - margins.bottom}" vector-effect="non-scaling-stroke"/></svg>`
      : ''
  const alt = `Preview of the print file for ${item.sku}, print area ${file.printArea}: ${width}×${height} px ${file.format}${file.rotated ? ', image turned a quarter turn' : ''}`
  // Guides drawn only over a preview of the same shape as the layout they were taken from.
  const lines = guides && guides.width === width && guides.height === height ? guides : null
  return html`<figure class="image-figure"><div class="image-frame print-area"><img src="${file.previewUrl}" alt="${alt}" loading="lazy">${inner}${lines ? guideLines(lines) : ''}</div>
<figcaption>Print file for ${file.labCode ?? 'the lab'}: ${width}×${height} px ${file.format.toUpperCase()}${file.rotated ? ', turned 90°' : ''}; the frame is the print area${lines ? html`. ${guidesCaption(lines)}` : ''}</figcaption></figure>`
}

const PREFLIGHT_WORDS: Record<AssetPreflight['status'], string> = {
  Pending: 'waiting for the download',
  Passed: 'passed',
  PassedWithWarnings: 'passed with warnings: the file prints',
  Failed: 'failed: no lab can print this file as ordered',
  NotChecked: 'not checked (the check could not run); the file went on as sent',
}

/** An asset's preflight: its status, each check (code, severity, page, measured against required), the fixes. */
/** Where a page thumbnail of an asset is served to this page's viewer (the API, or the console's own route). */
export type AssetThumbnailUrl = (assetId: string, page: number) => string

function preflightReport(report: AssetPreflight, thumbnailUrl: AssetThumbnailUrl): Html {
  const kind = report.status === 'Failed' ? 'error' : report.status === 'PassedWithWarnings' ? 'info' : 'success'
  const pages = report.pageCount === null ? '' : ` · ${report.pageCount} page${report.pageCount === 1 ? '' : 's'}`
  const caption = `preflight-checks-${report.assetId}`
  return html`<div class="preflight" data-preflight="${report.status}"><p class="notice notice-${kind} small" role="status">Preflight: <strong>${PREFLIGHT_WORDS[report.status]}</strong>${pages}</p>
${
  report.checks.length === 0
    ? ''
    : html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="${caption}"><table class="phone-cards">
<caption id="${caption}">Preflight checks</caption>
<thead><tr><th scope="col">Severity</th><th scope="col">Code</th><th scope="col">Page</th><th scope="col">Found</th><th scope="col">Needed</th><th scope="col">Message</th></tr></thead>
<tbody>${report.checks.map(
        (check) =>
          html`<tr class="preflight-${check.severity}"><td data-label="Severity">${check.severity}</td><td data-label="Code"><code>${check.code}</code></td><td data-label="Page">${check.page ?? '—'}</td><td data-label="Found">${check.measured}</td><td data-label="Needed">${check.required}</td><td data-label="Message">${check.message}</td></tr>`,
      )}</tbody></table></div>`
}${report.fixes.length === 0 ? '' : html`<p class="small">Fixes printroute makes to its copy:</p><ul class="small">${report.fixes.map((fix) => html`<li><code>${fix.code}</code>: ${fix.message}</li>`)}</ul>`}${pageThumbnails(report.thumbnails ?? [], (page) => thumbnailUrl(report.assetId, page), report.pageCount)}</div>`
}

function itemCard(
  item: Item,
  printFiles: PrintFile[],
  preflight: readonly AssetPreflight[],
  thumbnailUrl: AssetThumbnailUrl,
): Html {
  const attributes = Object.entries(item.attributes)
  return html`<article class="card item" aria-labelledby="item-${item.id}">
<h3 id="item-${item.id}">${item.sku} <span class="muted">× ${item.copies}</span> <code class="muted">${item.id}</code></h3>
<dl class="facts">
<div><dt>Sizing</dt><dd>${item.sizing}</dd></div>
<div><dt>Status</dt><dd>${item.status}</dd></div>
${item.merchantReference ? html`<div><dt>Merchant reference</dt><dd>${item.merchantReference}</dd></div>` : ''}
${attributes.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}
${item.recipientCost ? html`<div><dt>Recipient cost</dt><dd>${formatMoney(item.recipientCost)}</dd></div>` : ''}
</dl>
${item.assets.map((asset) => {
  const files = printFiles.filter((file) => file.assetId === asset.id)
  const file = files.find((candidate) => candidate.status === 'rendered') ?? files[0]
  const report = preflight.find((candidate) => candidate.assetId === asset.id)
  return html`<div class="asset"><h4>Print area <code>${asset.printArea}</code> ${stateBadge(asset.status)}${file?.rotated ? html` <span class="badge">Turned 90°</span>` : ''}</h4>
<div class="image-pair">${sourceFigure(item, asset, file)}${previewFigure(item, file, report?.guides ?? null)}</div>
${report ? preflightReport(report, thumbnailUrl) : ''}<p class="muted small">Source URL: <a href="${asset.url}" rel="noreferrer">${asset.url.length > 80 ? `${asset.url.slice(0, 77)}…` : asset.url}</a></p></div>`
})}
</article>`
}

/** Where the shipment's parcel is: the carrier's status once it reported, else the shipment's own. */
function shipmentState(shipment: Shipment): Html {
  const status = stateBadge(shipment.deliveryStatus ?? shipment.status)
  return shipment.deliveredLate ? html`${status} ${stateBadge('Late')}` : status
}

/** When it leaves and arrives: the current estimate until it happened, then what happened. */
function shipmentDates(shipment: Shipment): Html {
  const dispatch = shipment.dispatchDate
    ? html`Dispatched ${formatTime(shipment.dispatchDate)}`
    : html`Dispatch expected ${formatDate(shipment.estimatedDispatchDate)}`
  const delivery = shipment.deliveredAt
    ? html`Delivered ${formatTime(shipment.deliveredAt)}`
    : shipment.estimatedDelivery
      ? html`Expected ${formatDeliveryWindow(shipment.estimatedDelivery)}`
      : html``
  return html`<div>${dispatch}</div>${delivery ? html`<div>${delivery}</div>` : ''}`
}

/** The carrier's scans, oldest first. */
function trackingEventsList(shipment: Shipment): Html {
  const events = shipment.trackingEvents ?? []
  if (events.length === 0) return html``
  return html`<ol class="tracking-events" aria-label="Tracking of ${shipment.id}">${events.map(
    (event) =>
      html`<li>${formatTime(event.time)} ${stateBadge(event.status)} ${event.description}${event.location ? html` <span class="muted">(${event.location})</span>` : ''}</li>`,
  )}</ol>`
}

/** A tracking number, linked to the carrier's page when the lab gave one (its url is empty otherwise). */
function trackingLink(tracking: { number: string; url: string }): Html {
  return tracking.url
    ? html`<a href="${tracking.url}" rel="noreferrer">${tracking.number}</a>`
    : html`${tracking.number}`
}

/** A shipment sent in several parcels: each with its tracking and items. */
function parcelList(shipment: Shipment): Html {
  const parcels = shipment.parcels ?? []
  if (parcels.length === 0 || (parcels.length === 1 && shipment.status === 'Shipped')) return html``
  return html`<ol class="parcels small" aria-label="Parcels of ${shipment.id}">${parcels.map(
    (parcel) =>
      html`<li>${parcel.tracking ? trackingLink(parcel.tracking) : parcel.carrier.name}: ${itemList(parcel)}</li>`,
  )}</ol>`
}

function shipmentsTable(shipments: Shipment[]): Html {
  if (shipments.length === 0)
    return html`<p class="muted">No shipments yet: labs are chosen after the images download.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Shipments"><table class="shipments phone-cards"><caption class="visually-hidden">Shipments</caption>
<thead><tr><th scope="col">Shipment</th><th scope="col">Lab</th><th scope="col">From</th><th scope="col">Carrier</th><th scope="col">Tracking</th><th scope="col">Items</th><th scope="col">Dates</th><th scope="col">Status</th></tr></thead>
<tbody>${shipments.map(
    (
      shipment,
    ) => html`<tr><th scope="row"><code>${shipment.id}</code></th><td data-label="Lab">${shipment.fulfillmentLocation.labCode}</td><td data-label="From">${shipment.fulfillmentLocation.countryCode}</td>
<td data-label="Carrier">${shipment.carrier.name} ${shipment.carrier.service}</td>
<td data-label="Tracking">${shipment.tracking ? trackingLink(shipment.tracking) : html`<span class="muted">—</span>`}${parcelList(shipment)}${trackingEventsList(shipment)}</td>
<td data-label="Items">${shipment.items.map((entry) => entry.itemId).join(', ')}</td><td data-label="Dates">${shipmentDates(shipment)}</td><td data-label="Status">${shipmentState(shipment)}</td></tr>`,
  )}</tbody></table></div>`
}

/** A delivery estimate: when the parcels leave and when they arrive. */
export interface DeliveryEstimateView {
  estimatedDispatchDate?: string
  estimatedDelivery?: { from: string; to: string }
}

/**
 * What the order was promised when its labs were chosen: each item's dispatch date and delivery window from the
 * chosen plan of the last allocation that planned it (a reallocation re-plans only the items it moves), and the
 * latest of them, as the order's own estimate is the latest of its shipments'; `at` is when the last of those
 * allocations was made. Null before the order is allocated, or when the catalogue gave a shipment no estimate.
 */
export function allocationPromise(routing: Routing | null): (DeliveryEstimateView & { at: string }) | null {
  const planned = new Map<string, { dispatch?: string; delivery?: { from: string; to: string } }>()
  let at: string | null = null
  for (const allocation of routing?.allocations ?? []) {
    if (allocation.basis !== 'Allocation' || !allocation.chosenPlan) continue
    at = allocation.at
    for (const shipment of allocation.chosenPlan.shipments) {
      for (const itemId of shipment.itemIds)
        planned.set(itemId, { dispatch: shipment.estimatedDispatchDate, delivery: shipment.estimatedDelivery })
    }
  }
  const estimates = [...planned.values()]
  if (at === null || estimates.length === 0) return null
  const dispatches: string[] = []
  const froms: string[] = []
  const tos: string[] = []
  for (const { dispatch, delivery } of estimates) {
    if (!dispatch || !delivery) return null
    dispatches.push(dispatch)
    froms.push(delivery.from)
    tos.push(delivery.to)
  }
  const latest = (dates: string[]) => dates.reduce((a, b) => (b > a ? b : a))
  return {
    at,
    estimatedDispatchDate: latest(dispatches),
    estimatedDelivery: { from: latest(froms), to: latest(tos) },
  }
}

/** Every shipment still to be made has left its lab (the order's dispatch date is then the real one). */
function everyShipmentDispatched(order: OrderDocument): boolean {
  const live = order.shipments.filter((shipment) => !shipment.cancelled)
  return live.length > 0 && live.every((shipment) => shipment.dispatchDate !== null)
}

/** Why the current estimate is what it is, against the promise, in a merchant's words. */
function expectedNote(order: OrderDocument, promise: DeliveryEstimateView | null): string {
  const current = order.estimatedDelivery
  const same =
    promise?.estimatedDelivery !== undefined &&
    current !== undefined &&
    promise.estimatedDelivery.from === current.from &&
    promise.estimatedDelivery.to === current.to
  if (order.shipments.some((shipment) => shipment.dispatchDate))
    return same
      ? 'worked out again from the day the lab sent it: unchanged'
      : 'worked out again from the day the lab sent it'
  if (!promise) return 'as the order stands now'
  return same ? 'as promised' : 'changed since the promise (a new lab or shipping method)'
}

/**
 * The order's promise and what became of it; nothing before the order has an estimate or a date. Two estimates,
 * told apart: the promise made when the labs were chosen (the first allocation's, from the routing), and the
 * order's current one, which the labs' dispatch dates and changes to the order move. Once every parcel arrived,
 * the promise and when it came.
 */
export function deliveryFacts(order: OrderDocument, routing: Routing | null): Html {
  if (!order.deliverBy && !order.estimatedDelivery && !order.deliveredAt) return html``
  const promise = allocationPromise(routing)
  const promised = promise
    ? html`<div data-estimate="promised"><dt>Promised delivery</dt><dd>${formatDeliveryWindow(promise.estimatedDelivery)} <div class="muted small">estimated when the labs were chosen, ${formatTime(promise.at)}; dispatch by ${formatDate(promise.estimatedDispatchDate)}</div></dd></div>`
    : ''
  // After delivery the current estimate says nothing the delivery does not.
  const expected =
    order.estimatedDelivery && !order.deliveredAt
      ? html`<div data-estimate="expected"><dt>Expected delivery</dt><dd>${formatDeliveryWindow(order.estimatedDelivery)} <div class="muted small">${expectedNote(order, promise)}</div></dd></div>
${order.estimatedDispatchDate ? html`<div><dt>${everyShipmentDispatched(order) ? 'Dispatched' : 'Expected dispatch'}</dt><dd>${formatDate(order.estimatedDispatchDate)}</dd></div>` : ''}`
      : ''
  return html`<dl class="facts delivery-facts">
${order.deliverBy ? html`<div><dt>Deliver by</dt><dd>${formatDate(order.deliverBy)}</dd></div>` : ''}
${promised}
${expected}
${order.deliveredAt ? html`<div><dt>Delivered</dt><dd>${formatTime(order.deliveredAt)}${order.deliveredLate ? html` ${stateBadge('Late')}` : ''}</dd></div>` : ''}
</dl>`
}

const EXCLUSION_WORDS: Record<string, string> = {
  DoesNotMakeProduct: 'does not make it',
  DoesNotShipThere: 'does not ship it there by this method',
  Rejected: 'refused a shipment of it',
  OutOfStock: 'out of stock',
  FileDefect: 'gave it back: a defect in its file',
  CannotProduce: 'gave it back: cannot make it',
  SandboxScenario: 'kept away by the Sandbox scenario, to split the order',
  TooLate: 'cannot deliver by the date asked for',
  NoDeliveryEstimate: 'gives no delivery estimate, so cannot promise the date',
  LabPaused: 'paused by the operator: takes no new work',
  AtCapacity: 'has had all the jobs it can take today',
  QualityBelowThreshold: 'too many upheld claims: above its quality threshold',
  AtFaultForClaim: 'at fault for the claim this reprint resolves',
}

/** A round planned for a date: whether the plan meets it and what that cost, or the earliest any plan reaches. */
function deliverByFacts(allocation: RoutingAllocation): Html {
  if (!allocation.deliverBy) return html``
  const by = formatDate(allocation.deliverBy)
  if (allocation.deliverByMet) {
    const cost = allocation.deliverByCost
    const dearer = cost && cost.amount !== '0.00' && cost.amount !== '0'
    return html`<div><dt>Deliver by ${by}</dt><dd>met${dearer ? html`, for ${formatMoney(cost)} more than the cheapest plan` : ', by the cheapest plan'}</dd></div>`
  }
  const earliest = allocation.earliestDeliveryDate
  return html`<div><dt>Deliver by ${by}</dt><dd>not met: ${earliest ? html`the earliest any plan reaches is ${formatDate(earliest)}` : 'no lab gives an estimate for every item'}; the cheapest plan was chosen</dd></div>`
}

/** The order's allocation's title: the estimate before the first, else which allocation and when. */
function orderAllocationTitle(allocation: RoutingAllocation, index: number): Html {
  if (allocation.basis === 'Estimate') {
    return html`Estimate: what allocating the order would choose from the catalogue now`
  }
  const which = index === 0 ? 'Allocation' : `Reallocation ${index}`
  const reprint = allocation.claimId ? html` (reprint for claim <code>${allocation.claimId}</code>)` : ''
  return html`${which}${reprint}, ${formatTime(allocation.at)}`
}

/** One allocation: the labs per item with their costs, the chosen plan, and what splitting saved. */
function routingAllocation(allocation: RoutingAllocation, title: Html, className = ''): Html {
  const chosen = allocation.chosenPlan
  const unsplit = allocation.bestUnsplitPlan
  // The estimate the round made: before the first allocation, what allocating now would give.
  const arrivalHeading = allocation.basis === 'Estimate' ? 'Would arrive' : 'Arrival estimated then'
  const plan = (p: NonNullable<RoutingAllocation['chosenPlan']>) =>
    p.shipments.map((shipment) => `${shipment.labCode} (${shipment.itemIds.join(', ')})`).join(' + ')
  return html`<article class="routing-allocation${className ? ` ${className}` : ''}"><h3>${title} <span class="muted small">${allocation.shippingMethod}</span></h3>
${
  // A table without rows says nothing: when no lab was left for any item, the list below says why.
  allocation.items.every((item) => item.labsConsidered.length === 0)
    ? ''
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Labs considered per item"><table class="routing-labs phone-cards"><caption class="visually-hidden">Labs considered per item</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Lab</th><th scope="col" class="number">Production</th><th scope="col" class="number">Shipping alone</th><th scope="col">${arrivalHeading}</th><th scope="col">Chosen</th></tr></thead>
<tbody>${allocation.items.map((item) =>
        item.labsConsidered.map(
          (lab, labIndex) =>
            html`<tr>${labIndex === 0 ? html`<th scope="row" rowspan="${String(item.labsConsidered.length)}"><code>${item.itemId}</code></th>` : ''}<td data-label="Lab">${lab.labCode} <span class="muted small">${lab.labCountryCode}</span></td><td class="number" data-label="Production">${formatMoney(lab.productionCost)}</td><td class="number" data-label="Shipping alone">${formatMoney(lab.shippingCost)}</td><td data-label="${arrivalHeading}">${formatDeliveryWindow(lab.estimatedDelivery)}</td><td>${lab.labCode === item.chosenLabCode ? html`<span class="badge badge-complete">chosen</span>` : ''}</td></tr>`,
        ),
      )}</tbody></table></div>`
}
<ul class="routing-exclusions small">${allocation.items.map((item) => {
    const excluded = item.labsExcluded.filter((lab) => lab.reason !== 'DoesNotMakeProduct')
    const others = item.labsExcluded.length - excluded.length
    return html`<li><code>${item.itemId}</code>: ${
      item.labsConsidered.length === 0 ? 'no lab can take it. ' : ''
    }${excluded.map((lab) => html`${lab.labCode} excluded (${EXCLUSION_WORDS[lab.reason] ?? lab.reason}); `)}${others > 0 ? `${others} other lab${others === 1 ? '' : 's'} do not make it.` : ''}</li>`
  })}</ul>
${reroutedItems(allocation)}
<dl class="facts">
<div><dt>Chosen plan</dt><dd>${chosen ? html`${plan(chosen)}: ${formatMoney(chosen.totalCost)}` : html`none: ${allocation.unavailableItemIds.join(', ')} could not be allocated`}</dd></div>
<div><dt>Best from one lab</dt><dd>${unsplit ? html`${plan(unsplit)}: ${formatMoney(unsplit.totalCost)}` : 'none: no lab can take every item (excluded labs do not count)'}</dd></div>
${allocation.splitSaving && chosen && chosen.shipments.length > 1 ? html`<div><dt>Splitting saved</dt><dd>${formatMoney(allocation.splitSaving)}</dd></div>` : ''}
${deliverByFacts(allocation)}
</dl></article>`
}

const REROUTE_WORDS: Record<string, string> = {
  Rejected: 'refused its shipment',
  OutOfStock: 'out of stock',
  FileDefect: 'a defect in its file',
  CannotProduce: 'cannot make it',
}

/** The items a lab gave back that the round allocated again: from where and why. */
function reroutedItems(allocation: RoutingAllocation): Html {
  const rerouted = allocation.reroutedItems ?? []
  if (rerouted.length === 0) return html``
  return html`<ul class="rerouted-items small" aria-label="Re-routed items">${rerouted.map(
    (item) =>
      html`<li>Re-routed <code>${item.itemId}</code> from ${item.fromLabCode} (<code>${item.fromShipmentId}</code>): ${REROUTE_WORDS[item.reason] ?? item.reason}${item.description ? html`: ${item.description}` : ''}</li>`,
  )}</ul>`
}

/**
 * The quote an order was created with and its routing (GET /v4.0/quotes/{id}/routing's `routing`), or why that
 * could not be read.
 */
export interface QuoteRouting {
  quoteId: string
  routing: Routing | null
  /** Why the routing could not be read; null when it was. */
  error: string | null
}

/** What a routing's figures are: selling prices where a price list applied (docs/api.md#routing), else costs. */
function amountsWords(routing: Routing): string {
  return routing.amounts === 'SellingPrices' ? `Prices on price list ${routing.priceList ?? ''}` : 'Costs'
}

function routingSection(routing: Routing | null, quote: QuoteRouting | null): Html {
  const own =
    !routing || routing.allocations.length === 0
      ? html`<p class="muted">No routing to show.</p>`
      : html`${routing.allocations.map((allocation, index) =>
          routingAllocation(allocation, orderAllocationTitle(allocation, index)),
        )}`
  if (!quote) {
    if (!routing || routing.allocations.length === 0) return own
    return html`<p class="muted small">${amountsWords(routing)} before tax, in ${routing.currency}.</p>${own}`
  }
  if (!quote.routing) {
    return html`<p class="muted">The routing of quote <code>${quote.quoteId}</code>, which the order was created with, could not be read: ${quote.error ?? 'no answer'}</p>${own}`
  }
  const quoted = quote.routing
  const [quoteAllocation] = quoted.allocations
  const quoteRouting = quoteAllocation
    ? routingAllocation(
        quoteAllocation,
        html`Quote <code>${quote.quoteId}</code>: the routing the quote was priced on, ${formatTime(quoteAllocation.at)}`,
        'routing-quote',
      )
    : ''
  return html`<p class="muted small">${amountsWords(quoted)} before tax${routing && routing.currency === quoted.currency ? html`, in ${quoted.currency}` : ''}. The order was created with quote <code>${quote.quoteId}</code>: its routing comes first, then the order's own.</p>
${quoteComparison(quote.quoteId, quoted, routing)}
${quoteRouting}
${own}`
}

/** Plan labs in words: `nl1 and uk6`. */
function labsInWords(plan: RoutingAllocation['chosenPlan']): string {
  const labs = [...new Set((plan?.shipments ?? []).map((shipment) => shipment.labCode))].sort()
  return labs.length <= 1 ? (labs[0] ?? 'no lab') : `${labs.slice(0, -1).join(', ')} and ${labs.at(-1)}`
}

/**
 * The locked total (the quote's plan, which the order is charged when the currencies agree) against what the
 * order's own routing costs at catalogue prices (its first allocation, or the estimate before it), and a note
 * when the order's labs are not the quote's.
 */
function quoteComparison(quoteId: string, quoted: Routing, routing: Routing | null): Html {
  const quotePlan = quoted.allocations[0]?.chosenPlan ?? null
  const first = routing?.allocations[0]
  const orderPlan = first?.chosenPlan ?? null
  const sameCurrency = routing !== null && routing.currency === quoted.currency
  const locked = quotePlan ? formatMoney(quotePlan.totalCost) : '—'
  const lockedNote = sameCurrency
    ? 'the quote’s items and shipping, which the order is charged'
    : routing
      ? `not applied: the quote is in ${quoted.currency}, the order is charged in ${routing.currency} at catalogue prices`
      : ''
  const when = first?.basis === 'Estimate' ? 'if the order were allocated now' : 'as the order was allocated'
  const routed = !first
    ? html`<span class="muted">no routing yet</span>`
    : orderPlan
      ? html`${formatMoney(orderPlan.totalCost)} <span class="muted small">${when}</span>`
      : html`none: ${first.unavailableItemIds.join(', ')} could not be allocated`
  let difference: Html | string = ''
  if (sameCurrency && quotePlan && orderPlan) {
    const quotedMinor = parseAmountToMinor(quotePlan.totalCost.amount) ?? 0n
    const routedMinor = parseAmountToMinor(orderPlan.totalCost.amount) ?? 0n
    const delta = routedMinor - quotedMinor
    const words =
      delta === 0n
        ? 'the same as the locked total'
        : `${formatMinorAsAmount(delta < 0n ? -delta : delta)} ${quoted.currency} ${delta > 0n ? 'more' : 'less'} than the locked total`
    difference = html`<div><dt>Routing against the quote</dt><dd data-routing-difference>${words}</dd></div>`
  }
  const quoteLabs = labsInWords(quotePlan)
  const orderLabs = labsInWords(orderPlan)
  const labsDiffer = first !== undefined && quoteLabs !== orderLabs
  const went = first?.basis === 'Estimate' ? 'would go to' : 'went to'
  return html`<div class="card routing-comparison" role="group" aria-labelledby="quote-comparison-heading">
<h3 id="quote-comparison-heading">Quote <code>${quoteId}</code> and this order</h3>
<dl class="facts">
<div><dt>Locked total (quote)</dt><dd data-locked-total>${locked}${lockedNote ? html` <span class="muted small">${lockedNote}</span>` : ''}</dd></div>
<div><dt>Routing at catalogue prices</dt><dd data-routing-total>${routed}</dd></div>
${difference}
</dl>
${labsDiffer ? html`<p class="notice notice-info routing-note">The order’s labs are not the quote’s: the quote was priced on ${quoteLabs}, the order ${went} ${orderPlan ? orderLabs : 'no lab'}.</p>` : ''}
</div>`
}

/** An invoice or credit note of the order, as GET /orders/{id}/invoices lists it (the parts the page shows). */
export interface OrderInvoice {
  number: string
  kind: 'Invoice' | 'CreditNote'
  pdfUrl: string
}

/** The charge's invoice or credit note number, linked to its PDF when the listing has it. */
function invoiceLink(number: string, invoices: readonly OrderInvoice[]): Html {
  const invoice = invoices.find((candidate) => candidate.number === number)
  const label = invoice?.kind === 'CreditNote' ? 'credit note' : 'invoice'
  return invoice
    ? html` <a class="small" href="${invoice.pdfUrl}" data-invoice="${number}">${label} ${number} (PDF)</a>`
    : html` <span class="muted">${label} ${number}</span>`
}

function chargesTable(order: OrderDocument, invoices: readonly OrderInvoice[]): Html {
  if (order.charges.length === 0) return html`<p class="muted">No charges yet.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Charges and refunds"><table><caption class="visually-hidden">Charges and refunds</caption>
<thead><tr><th scope="col">Charge</th><th scope="col">Type</th><th scope="col">For</th><th scope="col" class="number">Cost</th></tr></thead>
<tbody>${order.charges.map((charge) => [
    html`<tr class="charge-head"><th scope="row"><code>${charge.id}</code>${charge.prodigiInvoiceNumber ? invoiceLink(charge.prodigiInvoiceNumber, invoices) : ''}</th><td>${charge.chargeType === 'Refund' ? 'Refund' : charge.chargeType}</td><td>Total (tax ${formatMoney(charge.totalTax)})</td><td class="number">${formatMoney(charge.totalCost)}</td></tr>`,
    charge.items.map(
      (line) =>
        html`<tr><td></td><td>${line.chargeType}</td><td>${line.itemId ?? line.shipmentId ?? ''}</td><td class="number">${formatMoney(line.cost)}</td></tr>`,
    ),
  ])}</tbody>
<tfoot><tr><th scope="row" colspan="3">Total</th><td class="number">${orderTotal(order)}</td></tr></tfoot></table></div>`
}

const CREDIT_REASON_WORDS: Record<OrderCredit['reason'], string> = {
  LateDelivery: 'Late delivery (guaranteed method)',
  Claim: 'Claim',
}

/**
 * The order's credits (docs/billing.md#late-delivery-credits): why, which shipment, how much and its credit note;
 * nothing for an order without any (most orders).
 */
function creditsTable(order: OrderDocument, invoices: readonly OrderInvoice[]): Html {
  const credits = order.credits ?? []
  if (credits.length === 0) return html``
  return html`<h3 id="credits-heading">Credits</h3><div class="table-wrap" tabindex="0" role="region" aria-labelledby="credits-heading"><table data-credits><caption class="visually-hidden">Credits</caption>
<thead><tr><th scope="col">Credit</th><th scope="col">Reason</th><th scope="col">For</th><th scope="col" class="number">Amount</th></tr></thead>
<tbody>${credits.map(
    (credit) =>
      html`<tr data-credit="${credit.id}"><th scope="row"><code>${credit.id}</code>${credit.creditNote ? invoiceLink(credit.creditNote, invoices) : ''}</th><td>${CREDIT_REASON_WORDS[credit.reason] ?? credit.reason}<div class="muted small">issued ${formatTime(credit.issuedAt)}</div></td><td>${credit.claimId ?? credit.shipmentId ?? 'the order'}</td><td class="number">${formatMoney(credit.amount)}</td></tr>`,
  )}</tbody></table></div>`
}

function recipientFacts(recipient: Recipient): Html {
  const address = recipient.address
  return html`<dl class="facts">
<div><dt>Name</dt><dd>${recipient.name}</dd></div>
<div><dt>Email</dt><dd>${recipient.email ?? '—'}</dd></div>
<div><dt>Phone</dt><dd>${recipient.phoneNumber ?? '—'}</dd></div>
<div><dt>Address</dt><dd>${[address.line1, address.line2, address.townOrCity, address.stateOrCounty, address.postalOrZipCode, address.countryCode].filter(Boolean).join(', ')}</dd></div>
</dl>`
}

/**
 * The order's address advisories (docs/addresses.md#blocking-problems-and-advisories): problems that do not stop
 * delivery, beside the recipient they are about; nothing when there are none.
 */
function addressAdvisories(order: OrderDocument): Html {
  const advisories = order.addressAdvisories ?? []
  if (advisories.length === 0) return html``
  return html`<div class="advisories" role="note" aria-labelledby="advisories-heading"><h3 id="advisories-heading">Address advisories</h3>
<p class="muted small">The order goes ahead; fixing these makes delivery smoother.</p><ul>
${advisories.map((advisory) => html`<li><code>${advisory.field}</code> (${advisory.code}): ${advisory.message}</li>`)}</ul></div>`
}

/** Everything the order's page shows, as the API answers it (GET /v4.0/orders/{id} and the order's lists). */
export interface OrderView {
  order: OrderDocument
  /** The order's events, oldest first (GET /v4.0/events?orderId=). */
  events: OrderEvent[]
  /** The order's callback deliveries (GET /v4.0/callbacks?orderId=). */
  callbacks: CallbackDelivery[]
  printFiles: PrintFile[]
  /** Each asset's preflight (GET /v4.0/orders/{id}/preflight); none shown when absent. */
  preflight?: AssetPreflight[]
  routing: Routing | null
  /** The quote the order was created with and its routing; null for an order made without a quote. */
  quoteRouting: QuoteRouting | null
  /** The order's invoices and credit notes, each with a link to its PDF. */
  invoices: OrderInvoice[]
}

/** The order's metadata (the document carries it only when the merchant sent some). */
export function orderMetadata(order: OrderDocument): unknown {
  return (order as OrderDocument & { metadata?: unknown }).metadata
}

/** The order's key facts, under its title. */
export function orderSummary(order: OrderDocument): Html {
  return html`<dl class="facts summary">
<div><dt>Merchant reference</dt><dd>${order.merchantReference ?? '—'}</dd></div>
<div><dt>Created</dt><dd>${formatTime(order.created)}</dd></div>
<div><dt>Last updated</dt><dd>${formatTime(order.lastUpdated)}</dd></div>
<div><dt>Shipping method</dt><dd>${order.shippingMethod}</dd></div>
<div><dt>Total charge</dt><dd>${orderTotal(order)}</dd></div>
</dl>`
}

/**
 * The order's sections from its progress to its callbacks. `callbacks`: the callbacks table as the viewer may use
 * it (with or without its redeliver buttons); `readOnly`: no link that acts on the order (an issue's payment);
 * `thumbnailUrl`: where the viewer reads an asset's page thumbnails.
 */
export function orderSections(
  view: OrderView,
  options: { callbacks: Html; readOnly: boolean; thumbnailUrl: AssetThumbnailUrl },
): Html {
  const { order, events, callbacks, printFiles, routing, quoteRouting } = view
  const metadata = orderMetadata(order)
  return html`<section aria-labelledby="progress-heading"><h2 id="progress-heading">Progress</h2>${progress(order)}</section>
${issues(order, options.readOnly)}
<section aria-labelledby="items-heading"><h2 id="items-heading">Items</h2>${order.items.map((item) => itemCard(item, printFiles, view.preflight ?? [], options.thumbnailUrl))}</section>
<section aria-labelledby="shipments-heading"><h2 id="shipments-heading">Shipments</h2>${deliveryFacts(order, routing)}${shipmentsTable(order.shipments)}</section>
<section aria-labelledby="routing-heading"><h2 id="routing-heading">Routing</h2>${routingSection(routing, quoteRouting)}</section>
<section aria-labelledby="charges-heading"><h2 id="charges-heading">Charges and refunds</h2>${chargesTable(order, view.invoices)}${creditsTable(order, view.invoices)}</section>
<div class="two-columns">
<section aria-labelledby="recipient-heading"><h2 id="recipient-heading">Recipient</h2>${recipientFacts(order.recipient)}${addressAdvisories(order)}</section>
<section aria-labelledby="metadata-heading"><h2 id="metadata-heading">Metadata</h2>${metadata && Object.keys(metadata).length > 0 ? html`<pre class="code">${JSON.stringify(metadata, null, 2)}</pre>` : html`<p class="muted">None.</p>`}</section>
</div>
<section aria-labelledby="timeline-heading"><h2 id="timeline-heading">Timeline</h2>${orderTimeline(order, events, callbacks)}</section>
<section aria-labelledby="callbacks-heading"><h2 id="callbacks-heading">Callbacks</h2>${options.callbacks}</section>`
}
