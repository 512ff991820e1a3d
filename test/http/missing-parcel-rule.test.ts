// The missing-parcel rule (docs/claims.md#automatic-rules), switched on with 10 days: a parcel shipped with tracking
// and no Delivered scan 10 days after its estimated delivery gets a PackageMissing claim made by printroute (audit
// actor system) and is reprinted through the claim resolution service: a new shipment on the same order (reprintOf,
// claimId), charged nothing, with the claim's #Created and #Resolved events. Once per shipment; a delivered parcel,
// one already claimed for and one not yet due are left alone; Sandbox orders too. The test app's clock moves time.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const DAY_MS = 24 * 60 * 60 * 1000

for (const kind of databaseKinds) {
  describe(`the missing-parcel rule (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      // The rule is on (10 days); it runs only when a test asks it to (no workers here).
      t = await startTestApp({ kind, missingParcelReprintDays: 10 })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    const send = (environment: 'live' | 'sandbox') => (environment === 'live' ? t.live : t.sandbox)

    async function newOrder(environment: 'live' | 'sandbox'): Promise<string> {
      const created = await send(environment)({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id
    }

    /** A Live black canvas made by uk6 and shipped with tracking, never scanned by its carrier. */
    async function shippedLive(): Promise<{ orderId: string; shipmentId: string; itemId: string }> {
      const orderId = await newOrder('live')
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const order = await drive.ship(orderId)
      const [shipment] = order.document.shipments
      assert.ok(shipment?.tracking, 'shipped with tracking')
      return { orderId, shipmentId: shipment.id, itemId: order.document.items[0]?.id as string }
    }

    const orderOf = async (environment: 'live' | 'sandbox', orderId: string) =>
      json(await send(environment)({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    const claimsOf = async (environment: 'live' | 'sandbox', orderId: string) =>
      json(await send(environment)({ method: 'GET', url: `/v4.0/claims?orderId=${orderId}` })).claims as any[]
    const claimEventsOf = async (environment: 'live' | 'sandbox', orderId: string) =>
      (json(await send(environment)({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[])
        .filter((event) => event.type.includes('.claims.claim#'))
        .map((event) => event.type.replace(/^.*#/, ''))
    /** The moment the rule is due for the shipment: the end of its estimated delivery's last day, plus 10 days. */
    const dueAt = (shipment: any) => new Date(`${shipment.estimatedDelivery.to}T00:00:00Z`).getTime() + 11 * DAY_MS
    const moveClockTo = (at: number) => {
      const seconds = (at - t.clock.now().getTime()) / 1000
      assert.ok(seconds >= 0, 'the clock only moves forward')
      t.clock.advanceSeconds(seconds)
    }

    test('a Live parcel with no Delivered scan 10 days after its estimate is claimed for and reprinted, once', async () => {
      const missing = await shippedLive()
      const delivered = await shippedLive()
      const claimed = await shippedLive()
      const before = await orderOf('live', missing.orderId)
      const [shipment] = before.shipments
      // Another parcel arrived: its carrier scanned it Delivered.
      moveClockTo(new Date('2026-03-03T12:00:00Z').getTime())
      const scan = {
        time: t.clock.now().toISOString(),
        status: 'Delivered',
        description: 'Delivered',
        location: 'London',
      }
      await t.app.services.pipeline.reportLab(delivered.orderId, delivered.shipmentId, {
        kind: 'tracking',
        events: [scan as any],
        fromStatus: null,
      })
      // A merchant already claimed for an item of the third one (then retracted it): someone looked at it.
      const merchantClaim = await t.live({
        method: 'POST',
        url: `/v4.0/orders/${claimed.orderId}/claims`,
        payload: { items: [{ itemId: claimed.itemId, category: 'Other', description: 'The box was open' }] },
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(merchantClaim.statusCode, 201, merchantClaim.body)
      const retracted = await t.live({
        method: 'POST',
        url: `/v4.0/claims/${json(merchantClaim).claim.id}/retract`,
      })
      assert.equal(retracted.statusCode, 200, retracted.body)

      // A second before the 10 days are over: nothing.
      moveClockTo(dueAt(shipment) - 1000)
      assert.equal(await t.app.services.missingParcels.applyMissingParcelRule(), 0)
      assert.deepEqual(await claimsOf('live', missing.orderId), [])

      moveClockTo(dueAt(shipment))
      assert.equal(await t.app.services.missingParcels.applyMissingParcelRule(), 1)
      const [claim] = await claimsOf('live', missing.orderId)
      assert.ok(claim, 'the rule made a claim')
      assert.equal(claim.status, 'Resolved')
      assert.equal(claim.shipmentId, missing.shipmentId)
      assert.deepEqual(
        claim.items.map((item: any) => [item.itemId, item.category]),
        [[missing.itemId, 'PackageMissing']],
      )
      assert.equal(claim.preferredResolution, 'Reprint')
      assert.match(claim.items[0].description, /no Delivered scan 10 days after the estimated delivery/)
      assert.equal(claim.resolution.type, 'Reprint')

      const order = await orderOf('live', missing.orderId)
      const reprint = order.shipments.find((candidate: any) => candidate.id === claim.resolution.reprintShipmentId)
      assert.ok(reprint, 'the reprint is a new shipment on the same order')
      assert.equal(reprint.reprintOf, missing.shipmentId)
      assert.equal(reprint.claimId, claim.id)
      assert.equal(reprint.fulfillmentLocation.labCode, 'uk6', 'a lost parcel is not the lab fault: the best lab again')
      assert.deepEqual(order.charges, before.charges, 'a reprint is charged nothing')
      assert.equal(order.status.stage, 'InProgress', 'in progress again until the reprint ships')
      assert.deepEqual(await claimEventsOf('live', missing.orderId), ['Created', 'Resolved'])

      const [row] = await t.database.db.query<{ resolved_by: string }>('SELECT resolved_by FROM claims WHERE id = $1', [
        Number(claim.id.slice(4)),
      ])
      assert.equal(row?.resolved_by, 'rule')
      const audit = await t.app.services.audit.list({ actions: ['claim.created', 'claim.resolved'] })
      const entries = audit.entries.filter((entry) => entry.target === claim.id)
      assert.deepEqual(entries.map((entry) => [entry.action, entry.actor.kind]).sort(), [
        ['claim.created', 'system'],
        ['claim.resolved', 'system'],
      ])
      const created = entries.find((entry) => entry.action === 'claim.created')
      assert.ok(created)
      assert.equal((created.after as any).shipmentId, missing.shipmentId)

      // The delivered parcel and the one claimed for are left alone; a second run does nothing more.
      assert.deepEqual(await claimsOf('live', delivered.orderId), [])
      assert.equal((await claimsOf('live', claimed.orderId)).length, 1)
      assert.equal(await t.app.services.missingParcels.applyMissingParcelRule(), 0)
      assert.equal((await claimsOf('live', missing.orderId)).length, 1)
      assert.equal((await orderOf('live', missing.orderId)).shipments.length, 2)
    })

    test('a Sandbox parcel is reprinted by the rule too, and the simulated labs make the reprint', async () => {
      const orderId = await newOrder('sandbox')
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const shipped = await drive.simulateLabs(orderId, { carrierScans: false })
      const [shipment] = shipped.document.shipments
      assert.equal(shipment?.status, 'Shipped')
      moveClockTo(dueAt(shipment))
      assert.equal(await t.app.services.missingParcels.applyMissingParcelRule(), 1)
      const [claim] = await claimsOf('sandbox', orderId)
      assert.equal(claim?.status, 'Resolved')
      assert.equal(claim?.resolution.type, 'Reprint')
      const reprintId = claim?.resolution.reprintShipmentId
      await drive.render(orderId)
      await drive.submit(orderId, reprintId)
      // The reprint goes its way like any Sandbox shipment (the original's carrier is simulated on as well).
      const done = await drive.simulateLabs(orderId)
      const reprint = done.document.shipments.find((candidate) => candidate.id === reprintId)
      assert.equal(reprint?.reprintOf, shipment?.id)
      assert.equal(reprint?.deliveryStatus, 'Delivered')
      assert.deepEqual(await claimEventsOf('sandbox', orderId), ['Created', 'Resolved'])
    })
  })
}
