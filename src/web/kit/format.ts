// How the dashboard words and formats what the API returns: dates, money, states, issues, event types.
import type { OrderDocument } from '../../domain/order.ts'
import { ISSUE_CODES } from '../../domain/pipeline/pipeline-order.ts'
import { type Html, html } from './html.ts'

export interface Money {
  amount: string
  currency: string
}

/** `2026-11-23 06:40 UTC` inside a <time> element carrying the exact instant. */
export function formatTime(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return html`${iso}`
  const text = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
  return html`<time datetime="${date.toISOString()}">${text}</time>`
}

export function formatMoney(money: Money | null | undefined): string {
  if (!money) return '—'
  return `${money.amount} ${money.currency}`
}

/** Sums amounts per currency (an order's charges may be in one currency; nothing here assumes it). */
export function sumMoney(amounts: readonly Money[]): string {
  if (amounts.length === 0) return '—'
  const totals = new Map<string, bigint>()
  const decimals = new Map<string, number>()
  for (const { amount, currency } of amounts) {
    const negative = amount.startsWith('-')
    const [whole = '0', fraction = ''] = amount.replace('-', '').split('.')
    const known = decimals.get(currency) ?? fraction.length
    const places = Math.max(known, fraction.length)
    // Amounts of one currency share their decimal places in practice; rescale anyway rather than mis-add.
    const previous = (totals.get(currency) ?? 0n) * 10n ** BigInt(places - known)
    const minor = BigInt(whole + fraction.padEnd(places, '0')) * (negative ? -1n : 1n)
    decimals.set(currency, places)
    totals.set(currency, previous + minor)
  }
  return [...totals]
    .map(([currency, minor]) => {
      const places = decimals.get(currency) ?? 0
      const negative = minor < 0n
      const digits = (negative ? -minor : minor).toString().padStart(places + 1, '0')
      const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`
      return `${negative ? '-' : ''}${text} ${currency}`
    })
    .join(' + ')
}

/** An order's total charge: its charges' totals, summed per currency. */
export function orderTotal(order: OrderDocument): string {
  return sumMoney(order.charges.map((charge) => charge.totalCost))
}

const STATE_WORDS: Record<string, string> = {
  NotStarted: 'Not started',
  InProgress: 'In progress',
  Complete: 'Complete',
  Error: 'Error',
  Cancelled: 'Cancelled',
  Processing: 'Processing',
  Shipped: 'Shipped',
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  rendered: 'Rendered',
  InTransit: 'In transit',
  OutForDelivery: 'Out for delivery',
  DeliveryFailed: 'Delivery failed',
  Delivered: 'Delivered',
  Returned: 'Returned',
  Late: 'Late',
}

/** A state in words ("InTransit" -> "In transit"). */
export function stateWords(state: string): string {
  return STATE_WORDS[state] ?? state
}

/** A state as a coloured badge whose text says it (colour is never the only signal). */
export function stateBadge(state: string): Html {
  return html`<span class="badge badge-${state.toLowerCase()}">${STATE_WORDS[state] ?? state}</span>`
}

/** The five detail states of an order, in pipeline order, with the words the dashboard uses for them. */
export const DETAIL_STEPS = [
  ['downloadAssets', 'Download images'],
  ['allocateProductionLocation', 'Choose labs'],
  ['printReadyAssetsPrepared', 'Prepare print files'],
  ['inProduction', 'Production'],
  ['shipping', 'Shipping'],
] as const

/** The five states as a compact row of labelled marks (the orders table). */
export function detailMarks(details: Record<string, string>): Html {
  return html`<ol class="steps" aria-label="Progress">${DETAIL_STEPS.map(([key, label]) => {
    const state = details[key] ?? 'NotStarted'
    return html`<li class="step step-${state.toLowerCase()}" title="${label}: ${STATE_WORDS[state] ?? state}"><span class="visually-hidden">${label}: ${STATE_WORDS[state] ?? state}</span></li>`
  })}</ol>`
}

const ISSUE_HEADLINES: Record<string, string> = {
  [ISSUE_CODES.notDownloaded]: 'An image has not downloaded yet; printroute keeps trying',
  [ISSUE_CODES.failedToDownload]: 'An image could not be downloaded, so its item cannot be made',
  [ISSUE_CODES.itemUnavailable]: 'No lab can make this item for this destination and shipping method',
  [ISSUE_CODES.invalidAsset]: 'An image cannot be made into a print file',
  [ISSUE_CODES.paymentAuthorisation]: 'The order waits for a payment before it is made',
}

/** An order issue in plain words: a headline for its code, and the detail the order carries. */
export function issueHeadline(errorCode: string): string {
  return ISSUE_HEADLINES[errorCode] ?? errorCode
}

const SHIPMENT_EVENT_WORDS: Record<string, string> = {
  InTransit: 'A shipment is on its way',
  DeliveryFailed: 'A delivery attempt failed',
  Delivered: 'A shipment was delivered',
  Returned: 'A shipment was returned to the sender',
}

const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** `Tue 1 Dec 2026` for a "YYYY-MM-DD" date (a civil date: no time zone to convert). */
export function dateWords(date: string): string {
  const parsed = new Date(`${date}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(parsed.getTime())) return date
  const weekday = WEEKDAY_NAMES[(parsed.getUTCDay() + 6) % 7]
  return `${weekday} ${parsed.getUTCDate()} ${MONTH_NAMES[parsed.getUTCMonth()]} ${parsed.getUTCFullYear()}`
}

/** A date inside a <time> element carrying it. */
export function formatDate(date: string | null | undefined): Html {
  if (!date) return html`<span class="muted">—</span>`
  return html`<time datetime="${date}">${dateWords(date)}</time>`
}

/** A delivery window: one date when `from` is `to`, else `from – to`. */
export function formatDeliveryWindow(window: { from: string; to: string } | null | undefined): Html {
  if (!window) return html`<span class="muted">—</span>`
  if (window.from === window.to) return formatDate(window.from)
  return html`${formatDate(window.from)} – ${formatDate(window.to)}`
}

/** The part of an event type after the vendor: `status.stage.changed#Complete`. */
export function eventWords(type: string): string {
  const name = type.replace(/^com\.[^.]+\.order\./, '')
  const [what = '', state = ''] = name.split('#')
  if (what === 'status.stage.changed') return `Stage changed to ${state}`
  if (what === 'shipments.shipment') return SHIPMENT_EVENT_WORDS[state] ?? `A shipment was ${state.toLowerCase()}`
  if (what === 'shipments.parcel') return 'A parcel of a shipment was dispatched'
  if (what === 'status.delivery') return 'Every shipment delivered'
  if (what === 'status.details.downloadAssets') return `Images downloaded`
  if (what === 'status.details.shipping') return `Everything shipped`
  if (what === 'status.issues.paymentAuthorisation') return 'Payment authorised'
  if (what === 'credits.credit') return 'Credit issued'
  if (/^com\.[^.]+\.test$/.test(type)) return 'Test callback'
  return name
}
