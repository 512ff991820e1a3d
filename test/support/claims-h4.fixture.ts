// What the claims tests share: an order driven through the real pipeline until shipped (and, if asked, delivered),
// evidence photos (a real JPEG, an image bomb), and a claim row written straight into the tables (a Resolved claim,
// until the resolution's own code writes them), following migrations/0036_claims.sql and domain/claims.ts's ClaimView.
import assert from 'node:assert/strict'
import sharp from 'sharp'
import type { ClaimView } from '../../src/domain/claims.ts'
import { parseId } from '../../src/domain/ids.ts'
import { blackCanvasItem, pipelineDriver, twoLabOrder } from './pipeline-driver.ts'
import { json, sampleOrder, type TestApp } from './test-app.ts'

export interface ShippedOrder {
  orderId: string
  itemIds: string[]
  shipmentIds: string[]
}

/** When the driver's labs dispatch (pipeline-driver.ts `ship`). */
export const DISPATCHED_AT = new Date('2026-03-02T10:00:00Z')

/**
 * A Live order made, shipped and (unless `delivered: false`) delivered a day after dispatch. `twoLabs`: a canvas and
 * a phone case to the US, made by two labs. `url` serves the assets (test/support/image-server.ts).
 */
export async function shippedOrder(
  t: TestApp,
  url: (name: string) => string,
  options: { delivered?: boolean; twoLabs?: boolean; key?: string } = {},
): Promise<ShippedOrder> {
  const payload = options.twoLabs ? twoLabOrder(url) : sampleOrder({ items: [blackCanvasItem(url('canvas.jpg'))] })
  const created = await t.live(
    { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
    options.key,
  )
  assert.equal(created.statusCode, 200, created.body)
  const orderId: string = json(created).order.id
  const drive = pipelineDriver(t)
  await drive.allocate(orderId)
  await drive.render(orderId)
  await drive.submit(orderId)
  const shipped = await drive.ship(orderId)
  if (options.delivered !== false) {
    for (const shipment of shipped.document.shipments) {
      await t.app.services.pipeline.reportLab(orderId, shipment.id, {
        kind: 'tracking',
        events: [{ time: '2026-03-03T12:00:00.000Z', status: 'Delivered', description: 'Delivered, front door' }],
      })
    }
  }
  const order = await drive.document(orderId)
  return {
    orderId,
    itemIds: order.items.map((item) => item.id),
    shipmentIds: order.shipments.map((shipment) => shipment.id),
  }
}

/** A small real JPEG photo. */
export async function photoJpeg(colour = '#aa3322'): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
    .jpeg()
    .toBuffer()
}

/** A tiny PNG whose header claims 100,000 x 100,000 pixels. */
export async function imageBomb(): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .png()
    .toBuffer()
  const bomb = Buffer.from(png)
  bomb.writeUInt32BE(100_000, 16)
  bomb.writeUInt32BE(100_000, 20)
  return bomb
}

/** Uploads a photo as the key's account (Live); its evd_ id. */
export async function uploadPhoto(t: TestApp, key?: string): Promise<string> {
  const response = await t.live(
    {
      method: 'POST',
      url: '/v4.0/claims/evidence',
      payload: await photoJpeg(),
      headers: { 'content-type': 'image/jpeg' },
    },
    key,
  )
  assert.equal(response.statusCode, 201, response.body)
  return json(response).evidence.id
}

/** Makes the claim Resolved (a Credit) as the resolution would, straight in the tables. */
export async function resolveClaimInTables(t: TestApp, claimId: string, at: Date): Promise<void> {
  const id = parseId('clm', claimId) as number
  const rows = await t.database.db.query<{ document: string }>('SELECT document FROM claims WHERE id = $1', [id])
  const view = JSON.parse(rows[0]?.document ?? 'null') as ClaimView
  const resolved: ClaimView = {
    ...view,
    status: 'Resolved',
    resolution: {
      type: 'Credit',
      note: 'Sorry',
      resolvedAt: at.toISOString(),
      reprintShipmentId: null,
      creditNote: null,
      amount: null,
    },
    lastUpdated: at.toISOString(),
  }
  await t.database.db.query(
    `UPDATE claims SET status = 'Resolved', resolution = 'Credit', resolved_by = 'operator', resolved_at = $2,
       updated_at = $2, version = version + 1, document = $3 WHERE id = $1`,
    [id, at, JSON.stringify(resolved)],
  )
  await t.database.db.query('UPDATE claim_items SET open = false WHERE claim_id = $1', [id])
}
