// The SQL behind a move's lookup and the needs-attention queue (repositories/attention.repository.ts, the partial
// index of migration 0035) on every configured database: a shipment's order is found while the shipment is only
// allocated (no lab job yet) and once submitted; the queue reads Live orders in progress only, least recently
// changed first. A move of a shipment not yet submitted leaves no job at the old lab.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { findOrderNumberOfShipment, listLiveOrdersInProgress } from '../../src/repositories/attention.repository.ts'
import { findLabJob } from '../../src/repositories/lab-jobs.repository.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`orders in progress and a shipment's order (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    async function create(server: 'live' | 'sandbox', key?: string): Promise<string> {
      const created = await t[server](
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ items: [blackCanvasItem(images.url('a.jpg'))] }),
          headers: { 'content-type': 'application/json' },
        },
        key,
      )
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }
    const number = (id: string, prefix: 'ord' | 'shp') => parseId(prefix, id) as number

    test('allocated, submitted, complete: found while in progress or with its lab; the queue reads Live in progress only', async () => {
      const drive = pipelineDriver(t)
      const first = await create('live')
      const allocated = await drive.allocate(first)
      const shipmentId = allocated.document.shipments[0]?.id as string
      assert.equal(allocated.pipeline.shipments[shipmentId]?.state, 'allocated')
      assert.equal(await findOrderNumberOfShipment(t.database.db, number(shipmentId, 'shp')), number(first, 'ord'))
      assert.equal(await findOrderNumberOfShipment(t.database.db, number(shipmentId, 'shp') + 1000), undefined)

      const sandbox = await create('sandbox')
      t.clock.advanceSeconds(60)
      const second = await create('live')
      const inProgress = (await listLiveOrdersInProgress(t.database.db, 10, t.clock.now())).map(
        (order) => order.document.id,
      )
      assert.ok(inProgress.includes(first) && inProgress.includes(second))
      assert.ok(!inProgress.includes(sandbox), 'Sandbox orders are not the queue’s')
      assert.deepEqual(
        (await listLiveOrdersInProgress(t.database.db, 1, t.clock.now())).map((order) => order.document.id),
        [first],
        'the least recently changed first',
      )

      await drive.render(first)
      await drive.submit(first)
      await drive.ship(first)
      const shipped = await drive.state(first)
      assert.equal(shipped.document.status.stage, 'Complete')
      assert.equal(await findOrderNumberOfShipment(t.database.db, number(shipmentId, 'shp')), number(first, 'ord'))
      const after = (await listLiveOrdersInProgress(t.database.db, 10, t.clock.now())).map((order) => order.document.id)
      assert.ok(!after.includes(first), 'a complete order is not in progress')
    })

    test('an order in its pause window is not listed until the window ends', async () => {
      const paused = await t.createAccount({ pauseWindowSeconds: 600 })
      const held = await create('live', paused.liveKey)
      const listed = async () =>
        (await listLiveOrdersInProgress(t.database.db, 1000, t.clock.now())).map((order) => order.document.id)
      assert.ok(!(await listed()).includes(held))
      t.clock.advanceSeconds(601)
      assert.ok((await listed()).includes(held))
    })

    test('a shipment moved before it was submitted: the old lab never had it, the new shipment renders and submits', async () => {
      const drive = pipelineDriver(t)
      const orderId = await create('live')
      const allocated = await drive.allocate(orderId)
      const shipmentId = allocated.document.shipments[0]?.id as string
      const moved = await t.app.services.shipmentMoves.move(
        { shipmentId, labCode: 'nl1', reason: 'balance' },
        TEST_ACTOR,
      )
      assert.equal(moved.oldJobCancelled, false)
      assert.deepEqual(moved.rerenderedAssetIds.length, 1, 'no print file was made yet: it is made for nl1')
      const state = await drive.state(orderId)
      assert.equal(state.pipeline.shipments[shipmentId], undefined, 'the old shipment is gone')
      assert.equal(await findLabJob(t.database.db, number(shipmentId, 'shp')), undefined)
      await drive.render(orderId)
      await drive.submit(orderId)
      const job = await findLabJob(t.database.db, number(moved.toShipmentId, 'shp'))
      assert.deepEqual([job?.labCode, job?.state], ['nl1', 'submitted'])
    })
  })
}
