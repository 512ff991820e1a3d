// Two workers running the missing-parcel rule (docs/claims.md#automatic-rules) at the same moment: each finds the
// same overdue parcels, but the claim is made under the order's row lock only while no claim names the shipment, so
// each parcel gets one claim and one reprint, on either database. Also the candidates' query on both databases:
// a parcel not yet due, one delivered and one already claimed for are not listed.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listMissingParcelCandidates } from '../../src/repositories/claims.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')
const DAY_MS = 24 * 60 * 60 * 1000

for (const kind of databaseKinds) {
  describe(`the missing-parcel rule run twice at once (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      t = await startTestApp({ kind, maxConnections: 4, missingParcelReprintDays: 10 })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    async function shippedLive(): Promise<{ orderId: string; shipmentId: string; estimatedTo: string }> {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const [shipment] = (await drive.ship(orderId)).document.shipments
      assert.ok(shipment?.estimatedDelivery)
      return { orderId, shipmentId: shipment.id, estimatedTo: shipment.estimatedDelivery.to }
    }

    test('the candidates: shipped with tracking, not delivered, due, never claimed for', async () => {
      const due = await shippedLive()
      const delivered = await shippedLive()
      const claimed = await shippedLive()
      t.clock.advanceSeconds((new Date('2026-03-03T12:00:00Z').getTime() - t.clock.now().getTime()) / 1000)
      await t.app.services.pipeline.reportLab(delivered.orderId, delivered.shipmentId, {
        kind: 'tracking',
        events: [
          { time: t.clock.now().toISOString(), status: 'Delivered', description: 'Delivered', location: 'London' },
        ],
        fromStatus: null,
      })
      await t.database.db.query(
        `INSERT INTO claims (id, account_id, environment, order_id, shipment_id, lab_code, status, created_at,
                             updated_at, version, document)
         VALUES (nextval('claim_id_seq'), $1, 'live', $2, NULL, 'uk6', 'Rejected', now(), now(), 2, '{}')`,
        [Number(t.account.id.slice(4)), Number(claimed.orderId.slice(4))],
      )
      await t.database.db.query(
        `INSERT INTO claim_items (claim_id, order_id, item_id, shipment_id, category, description, open)
         SELECT currval('claim_id_seq'), $1, 1, $2, 'Other', 'looked at', false`,
        [Number(claimed.orderId.slice(4)), Number(claimed.shipmentId.slice(4))],
      )
      const listed = async (dueTo: string) =>
        (await listMissingParcelCandidates(t.database.db, { dueFrom: '2026-01-01', dueTo, limit: 100 })).map(
          (candidate) => `shp_${candidate.shipmentNumber}`,
        )
      assert.deepEqual(await listed(due.estimatedTo), [due.shipmentId])
      const dayBefore = new Date(new Date(`${due.estimatedTo}T00:00:00Z`).getTime() - DAY_MS).toISOString()
      assert.deepEqual(await listed(dayBefore.slice(0, 10)), [], 'an estimate ending after dueTo is not listed')
    })

    test('two runs at once: one claim and one reprint per parcel', async () => {
      const parcels = [await shippedLive(), await shippedLive()]
      const latest = Math.max(...parcels.map((parcel) => new Date(`${parcel.estimatedTo}T00:00:00Z`).getTime()))
      t.clock.advanceSeconds((latest + 11 * DAY_MS - t.clock.now().getTime()) / 1000)
      const rule = t.app.services.missingParcels
      const runs = await Promise.all([rule.applyMissingParcelRule(), rule.applyMissingParcelRule()])
      // The first test's due parcel is reprinted here too: three parcels in all, each once.
      assert.equal(runs[0] + runs[1], 3)
      for (const parcel of parcels) {
        const claims = await t.database.db.query<{ status: string }>('SELECT status FROM claims WHERE order_id = $1', [
          Number(parcel.orderId.slice(4)),
        ])
        assert.deepEqual(
          claims.map((claim) => claim.status),
          ['Resolved'],
        )
        const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${parcel.orderId}` })).order
        assert.deepEqual(
          order.shipments.map((shipment: any) => shipment.reprintOf ?? null),
          [null, parcel.shipmentId],
          'one reprint',
        )
      }
      assert.deepEqual(await Promise.all([rule.applyMissingParcelRule(), rule.applyMissingParcelRule()]), [0, 0])
    })
  })
}
