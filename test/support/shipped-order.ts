// An order driven by the pipeline's own steps until its lab shipped it (and, when asked, its parcels were
// delivered): what claims, credits, the console's claims pages and the command line's claims are tested on. No
// workers: each step is run by the pipeline driver (pipeline-driver.ts), whose labs dispatch on 2 March 2026.
import assert from 'node:assert/strict'
import type { PipelineOrder } from '../../src/domain/pipeline/pipeline-order.ts'
import { blackCanvasItem, pipelineDriver } from './pipeline-driver.ts'
import { json, sampleOrder, type TestApp } from './test-app.ts'

/** When `delivered` scans the parcels Delivered: a day after dispatch. */
export const DELIVERED_AT = new Date('2026-03-03T12:00:00Z')

export interface ShippedOrder {
  orderId: string
  /** The first item and shipment (the only ones of a one-item order). */
  itemId: string
  shipmentId: string
  itemIds: string[]
  shipmentIds: string[]
  /** The order and its pipeline state once shipped (and delivered, when asked). */
  order: PipelineOrder
}

/** A black canvas to GB by Standard (uk6, the cheaper of the two sample labs that make it, takes it). */
export function blackCanvasOrder(assetUrl: string): Record<string, unknown> {
  return sampleOrder({ items: [blackCanvasItem(assetUrl)] })
}

/**
 * A Live order (a Sandbox one with `environment: 'sandbox'`) of `payload`, created with `key` (the account's own
 * when absent), allocated, rendered, submitted and shipped; `delivered`: each parcel then scanned Delivered at
 * DELIVERED_AT.
 */
export async function shippedOrder(
  t: TestApp,
  payload: Record<string, unknown>,
  options: { delivered?: boolean; key?: string; environment?: 'live' | 'sandbox' } = {},
): Promise<ShippedOrder> {
  const send: TestApp['live'] = (request, key) =>
    options.environment === 'sandbox' ? t.sandbox(request, key) : t.live(request, key)
  const created = await send(
    { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
    options.key,
  )
  assert.equal(created.statusCode, 200, created.body)
  const orderId: string = json(created).order.id
  const drive = pipelineDriver(t)
  await drive.allocate(orderId)
  await drive.render(orderId)
  await drive.submit(orderId)
  let order = await drive.ship(orderId)
  if (options.delivered) {
    for (const shipment of order.document.shipments) {
      await t.app.services.pipeline.reportLab(orderId, shipment.id, {
        kind: 'tracking',
        events: [{ time: DELIVERED_AT.toISOString(), status: 'Delivered', description: 'Delivered, front door' }],
      })
    }
    order = await drive.state(orderId)
  }
  const itemIds = order.document.items.map((item) => item.id)
  const shipmentIds = order.document.shipments.map((shipment) => shipment.id)
  return {
    orderId,
    itemId: itemIds[0] as string,
    shipmentId: shipmentIds[0] as string,
    itemIds,
    shipmentIds,
    order,
  }
}
