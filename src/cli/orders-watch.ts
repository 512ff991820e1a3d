// `printroute orders watch ORDER_ID [--until Complete|Delivered]`: an order's progress as it happens, from any
// printroute the key works on. Prints the order's stage and status details now, then one line per event of the
// order (GET /v4.0/events?orderId=, which carries the order as it was then) until the order is Complete (or, with
// --until Delivered, until its parcels have arrived or come back) or Cancelled, and exits 0. An order in its pause
// window is waited for; an order the key does not have is an error.
import type { Command } from 'commander'
import {
  type ApiConnection,
  ApiRequestError,
  addConnectionOptions,
  connectionOf,
  createApiConnection,
  EVENTS_FEED_PAGE_SIZE,
  intervalMs,
  lastEventIdOfFeed,
  pause,
  stopSignal,
} from './api-connection.ts'
import { print, requireText, UsageError } from './command-support.ts'
import { OperationError } from './operation-error.ts'

/**
 * How far a watch follows the order: until it is Complete (everything shipped), or until every parcel not
 * cancelled has been delivered or returned, which comes after Complete (docs/api.md#delivery-tracking).
 */
export const WATCH_UNTIL = ['Complete', 'Delivered'] as const
export type WatchUntil = (typeof WATCH_UNTIL)[number]

/** Delivery statuses after which a parcel's story is over. */
const FINAL_DELIVERY_STATUSES = new Set(['Delivered', 'Returned'])

interface WatchedOrder {
  id: string
  status: {
    stage: string
    details: Record<string, string>
    issues?: { errorCode?: string; description?: string }[]
  }
  shipments?: {
    id: string
    status?: string
    cancelled?: boolean
    tracking?: { number?: string } | null
    deliveryStatus?: string
  }[]
}

interface OrderEvent {
  id: string
  type: string
  time: string
  data?: { order?: WatchedOrder }
}

/**
 * `InProgress  downloadAssets Complete, allocateProductionLocation InProgress, ...` (states not started left out),
 * then, once a carrier has scanned a parcel, where each is: `; shp_12 Delivered, shp_13 InTransit`.
 */
export function describeOrder(order: WatchedOrder): string {
  const details = Object.entries(order.status.details)
    .filter(([, state]) => state !== 'NotStarted')
    .map(([step, state]) => `${step} ${state}`)
  const issues = (order.status.issues ?? []).map((issue) => `issue ${issue.errorCode ?? '?'}`)
  const line = [order.status.stage, [...details, ...issues].join(', ') || 'nothing started yet'].join('  ')
  const parcels = (order.shipments ?? [])
    .filter((shipment) => shipment.deliveryStatus !== undefined)
    .map((shipment) => `${shipment.id} ${shipment.deliveryStatus}`)
  return parcels.length > 0 ? `${line}; ${parcels.join(', ')}` : line
}

/** Whether the watch is over for `order`: Cancelled, or Complete and, --until Delivered, every parcel arrived or back. */
export function watchEnded(order: WatchedOrder, until: WatchUntil): boolean {
  if (order.status.stage === 'Cancelled') return true
  if (order.status.stage !== 'Complete') return false
  if (until === 'Complete') return true
  const live = (order.shipments ?? []).filter((shipment) => !shipment.cancelled && shipment.status !== 'Cancelled')
  return live.every((shipment) => FINAL_DELIVERY_STATUSES.has(shipment.deliveryStatus ?? ''))
}

/** The --until value, in any letter case. */
function untilOf(value: unknown): WatchUntil {
  if (value === undefined) return 'Complete'
  const until = WATCH_UNTIL.find((candidate) => candidate.toLowerCase() === String(value).toLowerCase())
  if (!until) throw new UsageError(`--until must be one of ${WATCH_UNTIL.join(', ')}, got "${String(value)}"`)
  return until
}

/** The part of an event type after `com.<vendor>.order.` (`status.stage.changed#Complete`). */
function shortType(type: string): string {
  return type.replace(/^com\.[^.]+\.order\./, '')
}

/** Adds `orders` with `watch`; returns the group (`orders advance` joins it). */
export function registerOrderCommands(program: Command): Command {
  const orders = program
    .command('orders')
    .summary(
      "follow an order's progress, advance a Sandbox order, or act on an order as an operator (move a shipment too)",
    )
  const watch = orders
    .command('watch')
    .summary("print an order's progress until it is complete (or delivered) or cancelled")
    .description(
      "Prints the order's stage and status details, then each change as it happens (from the events feed), " +
        'and exits 0 once the order is Complete (with --until Delivered: once every parcel has been delivered ' +
        'or returned) or Cancelled; an order in its pause window is waited for. ' +
        'Talks to a printroute server with an API key (docs/callbacks.md#watching-an-order).',
    )
    .argument('<ORDER_ID>', 'the order (ord_123)')
    .option('--until <STATE>', `how far to follow the order: ${WATCH_UNTIL.join(' or ')} (default: Complete)`)
  addConnectionOptions(watch, '2s').action(async (orderIdArgument: string, values: Record<string, unknown>) => {
    const orderId = requireText(orderIdArgument, 'ORDER_ID')
    if (!/^ord_\d{1,15}$/.test(orderId)) throw new UsageError(`"${orderId}" is not an order ID (ord_123)`)
    const until = untilOf(values.until)
    const connection = connectionOf(values)
    await watchOrder(
      createApiConnection(connection),
      orderId,
      intervalMs(values.pollInterval, '--poll-interval'),
      until,
    )
  })
  return orders
}

/** The order now, or when it is still in its pause window, until when. */
async function readOrder(
  api: ApiConnection,
  orderId: string,
  signal: AbortSignal,
): Promise<{ order: WatchedOrder } | { onHoldUntil: string }> {
  try {
    return { order: (await api.get<{ order: WatchedOrder }>(`/orders/${orderId}`, {}, signal)).order }
  } catch (error) {
    if (error instanceof ApiRequestError && error.status === 404) {
      const onHoldUntil = (error.body?.data as { onHoldUntil?: unknown } | undefined)?.onHoldUntil
      if (typeof onHoldUntil === 'string') return { onHoldUntil }
      throw new OperationError(`no order ${orderId} for this key (${error.message})`, 1)
    }
    throw error
  }
}

/** Stopped (Ctrl-C) before the order ended: not the success a script waiting for the order would expect. */
function stoppedEarly(orderId: string): OperationError {
  return new OperationError(`stopped before ${orderId} was complete or cancelled`, 1)
}

export async function watchOrder(
  api: ApiConnection,
  orderId: string,
  pollMs: number,
  until: WatchUntil = 'Complete',
): Promise<void> {
  const stop = stopSignal()
  const { signal } = stop
  try {
    // The events already written are the past: only what comes after them is printed as a change.
    let cursor = await lastEventIdOfFeed(api, { orderId }, signal)
    let now = await readOrder(api, orderId, signal)
    while ('onHoldUntil' in now && !signal.aborted) {
      print(`${new Date().toISOString()}  ${orderId}  on hold in the pause window until ${now.onHoldUntil}`)
      const wait = Math.max(pollMs, new Date(now.onHoldUntil).getTime() - Date.now())
      await pause(wait, signal)
      now = await readOrder(api, orderId, signal)
    }
    if (!('order' in now)) throw stoppedEarly(orderId)
    let last = describeOrder(now.order)
    print(`${new Date().toISOString()}  ${orderId}  ${last}`)
    if (watchEnded(now.order, until)) return

    while (!signal.aborted) {
      const page = await api.get<{ events: OrderEvent[]; nextCursor: string | null; hasMore: boolean }>(
        '/events',
        { orderId, after: cursor ?? undefined, top: EVENTS_FEED_PAGE_SIZE },
        signal,
      )
      for (const event of page.events) {
        cursor = event.id
        const order = event.data?.order
        if (!order) continue
        const state = describeOrder(order)
        // Events that change nothing shown here (a shipment, a payment) still say what happened.
        print(`${event.time}  ${orderId}  ${state === last ? `${shortType(event.type)}` : state}`)
        last = state
        if (watchEnded(order, until)) return
      }
      if (!page.hasMore) await pause(pollMs, signal)
    }
    throw stoppedEarly(orderId)
  } catch (error) {
    if (signal.aborted) throw stoppedEarly(orderId)
    throw error
  } finally {
    stop.dispose()
  }
}
