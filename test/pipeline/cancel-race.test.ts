// A cancel and a lab submission racing on the same order (docs/api.md#order-actions): both lock the order row, so every
// run ends in exactly one consistent state, never a mix: cancelled with everything refunded and nothing at the
// lab, or with the lab and FailedToCancel with nothing refunded. On PostgreSQL the two really run at once on
// separate connections.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Charge } from '../../src/domain/order.ts'
import { findLabJob } from '../../src/repositories/lab-jobs.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const RUNS = 100

/**
 * The sample catalogue with the phone case's print area a tenth of its size (108x207 px): the race is over the
 * order row's lock, for which the print files only have to exist, and 200 renders of the real 1080x2070 area
 * were most of this file's CPU.
 */
function catalogueWithSmallPhoneCase() {
  return changedSampleCatalogue('sample catalogue with a small phone-case print area', (file) => {
    const phoneCase = file.products.find((product: { sku: string }) => product.sku === PHONE_CASE)
    phoneCase.printAreas.default = { required: true, horizontalResolution: 108, verticalResolution: 207 }
  })
}

for (const kind of databaseKinds) {
  describe(`cancel racing lab submission (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind, maxConnections: 8, catalogue: catalogueWithSmallPhoneCase() })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** An order with its print files made: the next step is its submission to the lab. */
    async function readyToSubmit(): Promise<{ orderId: string; shipmentId: string }> {
      const payload = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      const orderId = json(response).order.id as string
      await drive.allocate(orderId)
      const rendered = await drive.render(orderId)
      assert.equal(rendered.pipeline.phase, 'producing')
      return { orderId, shipmentId: rendered.document.shipments[0]?.id as string }
    }

    test(`${RUNS} races each end in one consistent state`, { timeout: 300_000 }, async (context) => {
      const orders: { orderId: string; shipmentId: string }[] = []
      for (let batch = 0; batch < RUNS / 10; batch++) {
        orders.push(...(await Promise.all(Array.from({ length: 10 }, readyToSubmit))))
      }
      const endings = { cancelled: 0, inProduction: 0 }
      for (const [index, { orderId, shipmentId }] of orders.entries()) {
        // A jitter of 0-4 ms on alternating sides, so each side gets its chance to take the lock first (the HTTP
        // path has more hops before its transaction than the direct submit call).
        const jitter = (side: number) =>
          new Promise((resolve) => setTimeout(resolve, index % 2 === side ? index % 5 : 0))
        const [response] = await Promise.all([
          jitter(0).then(() => t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })),
          jitter(1).then(() => t.app.services.pipeline.submitShipment(orderId, shipmentId)),
        ])
        const outcome = json(response).outcome
        const { document, pipeline } = await drive.state(orderId)
        const shipment = document.shipments[0]
        const charges = document.charges as Charge[]
        const net = charges.reduce((sum, charge) => sum + minor(charge.totalCost.amount), 0n)
        const labJob = await findLabJob(t.database.db, Number(shipmentId.slice(4)))
        if (outcome === 'Cancelled') {
          endings.cancelled++
          assert.equal(document.status.stage, 'Cancelled')
          assert.equal(shipment?.cancelled, true)
          assert.equal(pipeline.shipments[shipmentId]?.state, 'cancelled')
          assert.equal(labJob, undefined, 'a cancelled shipment must never reach its lab')
          assert.deepEqual(
            charges.map((charge) => charge.chargeType),
            ['Item', 'Refund'],
          )
          assert.equal(net, 0n)
        } else {
          endings.inProduction++
          assert.equal(outcome, 'FailedToCancel')
          assert.equal(document.status.stage, 'InProgress')
          assert.equal(shipment?.cancelled, false)
          assert.equal(shipment?.status, 'Processing')
          assert.equal(pipeline.shipments[shipmentId]?.state, 'submitted')
          assert.equal(labJob?.state, 'submitted')
          assert.deepEqual(
            charges.map((charge) => charge.chargeType),
            ['Item'],
          )
          assert.ok(net > 0n)
        }
      }
      context.diagnostic(`endings: ${JSON.stringify(endings)}`)
      assert.equal(endings.cancelled + endings.inProduction, RUNS)
      // Both endings occur: the race is real, not one side always first.
      assert.ok(endings.cancelled > 0, JSON.stringify(endings))
      assert.ok(endings.inProduction > 0, JSON.stringify(endings))
    })
  })
}
