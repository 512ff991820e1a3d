// The allocate-order step's transitions (services/pipeline/allocate-order.ts): an allocation round begun, its
// shipments written onto the order with their print-file jobs, and the items a lab gave back taken for the round.
import type { DeliveryEstimate } from '../delivery-promise.ts'
import { type JobRequest, jobRequest } from '../jobs.ts'
import type { OrderDocument, Shipment } from '../order.ts'
import type { ReroutedItem } from '../routing.ts'
import { refreshOrderEstimate, setShipmentEstimate } from './delivery-estimates.ts'
import {
  addIssue,
  ISSUE_CODES,
  NOTHING,
  type PipelineState,
  type PrintFile,
  type ShipmentLabCost,
  setDetail,
  type Transition,
  touch,
} from './pipeline-order.ts'

/** A new allocation round: the order is allocating, and the round's job is asked for. */
export function beginAllocation(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  pipeline.phase = 'allocating'
  pipeline.allocationRound += 1
  setDetail(order, 'allocateProductionLocation', 'InProgress')
  return [jobRequest('allocate-order', { orderId: order.id, round: pipeline.allocationRound })]
}

/** A shipment decided by allocation, ready to be written onto the order. */
export interface AllocatedShipment {
  id: string
  labCode: string
  labCountryCode: string
  carrier: { name: string; service: string }
  itemIds: string[]
  /** Item id -> print file format the lab wants. */
  formats: Record<string, string>
  /** The allocation's delivery estimate for the shipment (null or absent: the catalogue gives none). */
  estimate?: DeliveryEstimate | null
  /** What the lab charges for the shipment (kept on the pipeline shipment until its hand-off). */
  labCost?: ShipmentLabCost
}

export function applyAllocation(
  order: OrderDocument,
  pipeline: PipelineState,
  round: number,
  shipments: AllocatedShipment[],
  unavailableItemIds: string[],
  now: Date,
): Transition {
  if (pipeline.phase !== 'allocating' || round !== pipeline.allocationRound) return NOTHING
  touch(order, now)
  if (unavailableItemIds.length > 0) {
    for (const itemId of unavailableItemIds) {
      const item = order.items.find((candidate) => candidate.id === itemId)
      addIssue(
        order,
        itemId,
        ISSUE_CODES.itemUnavailable,
        `No lab can currently make ${item?.sku ?? 'this item'} and ship it to ${order.recipient.address.countryCode} by ${order.shippingMethod}; please contact customer services`,
      )
    }
    setDetail(order, 'allocateProductionLocation', 'Error')
    pipeline.phase = 'failed'
    refreshOrderEstimate(order, pipeline)
    return { changed: true, jobs: [] }
  }
  const jobs: JobRequest[] = []
  for (const planned of shipments) jobs.push(...addShipment(order, pipeline, planned))
  refreshOrderEstimate(order, pipeline)
  setDetail(order, 'allocateProductionLocation', 'Complete')
  setDetail(order, 'printReadyAssetsPrepared', 'InProgress')
  pipeline.phase = 'rendering'
  return { changed: true, jobs }
}

/**
 * Adds an allocated shipment to the order and the pipeline; its print-file render jobs. The allocation's estimate
 * becomes the shipment's and its `promise` (the order's own estimate is the caller's to refresh).
 */
export function addShipment(order: OrderDocument, pipeline: PipelineState, planned: AllocatedShipment): JobRequest[] {
  const shipment: Shipment = {
    id: planned.id,
    dispatchDate: null,
    carrier: planned.carrier,
    fulfillmentLocation: { countryCode: planned.labCountryCode, labCode: planned.labCode },
    tracking: null,
    items: planned.itemIds.map((itemId) => ({ itemId })),
    status: 'Processing',
    cancelled: false,
  }
  setShipmentEstimate(shipment, planned.estimate ?? null)
  order.shipments.push(shipment)
  const printFiles: Record<string, PrintFile | null> = {}
  const formats: Record<string, string> = {}
  for (const itemId of planned.itemIds) {
    const item = order.items.find((candidate) => candidate.id === itemId)
    for (const asset of item?.assets ?? []) {
      printFiles[asset.id] = null
      formats[asset.id] = planned.formats[itemId] ?? 'jpeg'
    }
  }
  pipeline.shipments[planned.id] = {
    labCode: planned.labCode,
    state: 'allocated',
    printFiles,
    formats,
    ...(planned.estimate ? { promise: planned.estimate } : {}),
    ...(planned.labCost ? { labCost: planned.labCost } : {}),
  }
  return Object.keys(printFiles).map((assetId) =>
    jobRequest('render-print-file', { orderId: order.id, shipmentId: planned.id, assetId }),
  )
}

/**
 * The items of `itemIds` a lab gave back, taken from those waiting (`pipeline.reroutes`): the allocation round
 * that allocates them names them in its routing.
 */
export function takeReroutedItems(pipeline: PipelineState, itemIds: readonly string[]): ReroutedItem[] {
  const waiting = pipeline.reroutes ?? []
  const wanted = new Set(itemIds)
  const taken = waiting.filter((entry) => wanted.has(entry.itemId))
  const left = waiting.filter((entry) => !wanted.has(entry.itemId))
  if (left.length > 0) pipeline.reroutes = left
  else delete pipeline.reroutes
  return taken
}
