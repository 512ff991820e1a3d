// Item-by-item lab reports through the lab API on Live (docs/pipeline.md#lab-reports): the step helper takes the
// order to its lab (each step as its job would run it, no live queue); the lab reports items printed, ships them in two parcels with their own tracking (the merchant's order
// and callbacks show each parcel), and gives single items back, which are allocated again to another lab while the
// rest of the shipment stays where it is. Every refusal answers 400 with the field and the reason. On every
// configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/** Fine art prints to GB: uk6 makes them cheapest, de1 and nl1 make them too. */
const printsOrder = (url: (name: string) => string, count: number, overrides: Record<string, unknown> = {}) =>
  sampleOrder({
    ...overrides,
    items: Array.from({ length: count }, (_, index) => ({
      sku: 'GLOBAL-FAP-8x8',
      copies: index + 1,
      sizing: 'fillPrintArea',
      assets: [{ url: url(`print-${index}.jpg`) }],
    })),
  })

const parcel = (number: string, dispatchDate: string, itemIds?: string[]) => ({
  carrier: { name: 'Royal Mail', service: 'Tracked 48' },
  tracking: { number, url: `https://www.royalmail.com/track?trackNumber=${number}` },
  dispatchDate,
  ...(itemIds ? { itemIds } : {}),
})

for (const kind of databaseKinds) {
  describe(`item-by-item lab reports (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind, realClock: true })
      images = await startImageServer()
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** A lab API call: a GET without `payload`, else a POST (`null`: without a body). */
    const lab = (key: string, url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      t.app.live.inject({
        method: payload === undefined ? 'GET' : 'POST',
        url,
        headers: { 'x-api-key': key, ...(payload ? { 'content-type': 'application/json' } : {}) },
        ...(payload ? { payload: payload as object } : {}),
      })
    const outcome = (response: LightMyRequestResponse) => {
      assert.equal(response.statusCode, 200, response.body)
      return json(response).outcome
    }
    const refused = (response: LightMyRequestResponse) => {
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(json(response).outcome, 'ValidationFailed', response.body)
      return json(response).failures
    }
    const getOrder = async (orderId: string) => {
      const response = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order
    }
    const jobOf = async (key: string, shipmentId: string) =>
      (json(await lab(key, '/labs/v1/jobs')).jobs as { shipmentId: string }[]).find(
        (job) => job.shipmentId === shipmentId,
      ) as any

    /** A Live order of `count` prints in one shipment at its lab, with a key of that lab. */
    async function atTheLab(count: number, overrides: Record<string, unknown> = {}) {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: printsOrder(images.url, count, overrides),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const order = json(created).order
      const drive = pipelineDriver(t)
      await drive.allocate(order.id)
      await drive.render(order.id)
      await drive.submit(order.id)
      const allocated = await getOrder(order.id)
      assert.equal(allocated.shipments.length, 1, 'one lab makes every print')
      const shipment = allocated.shipments[0]
      const key = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key
      assert.ok(await jobOf(key, shipment.id), 'the shipment in its lab job list')
      const itemIds: string[] = order.items.map((item: { id: string }) => item.id)
      return {
        orderId: order.id as string,
        shipmentId: shipment.id as string,
        labCode: shipment.fulfillmentLocation.labCode as string,
        key,
        itemIds,
      }
    }

    test('a lab prints items, ships them in two parcels with their own tracking; the order shows both and is Complete after the last', async () => {
      const receiver = await startCallbackReceiver()
      after(() => receiver.close())
      const { orderId, shipmentId, key, itemIds } = await atTheLab(3, { callbackUrl: receiver.url('/hook') })
      const [a, b, c] = itemIds as [string, string, string]
      const base = `/labs/v1/jobs/${shipmentId}`
      const states = async () =>
        Object.fromEntries(
          ((await jobOf(key, shipmentId)).items as { itemId: string; state: string }[]).map((item) => [
            item.itemId,
            item.state,
          ]),
        )
      assert.deepEqual(await states(), { [a]: 'open', [b]: 'open', [c]: 'open' })

      assert.equal(outcome(await lab(key, `${base}/printed`, { itemIds: [a] })), 'Updated')
      assert.equal(outcome(await lab(key, `${base}/printed`, { itemIds: [a] })), 'Ok', 'a repeat changes nothing')
      assert.equal((await jobOf(key, shipmentId)).state, 'inProduction', 'a printed item starts production')
      assert.deepEqual(await states(), { [a]: 'printed', [b]: 'open', [c]: 'open' })

      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM1', '2026-11-20T10:00:00Z', [a, b]))), 'Updated')
      assert.equal(
        outcome(await lab(key, `${base}/shipped`, parcel('RM1', '2026-11-20T10:00:00Z', [a, b]))),
        'Ok',
        'the same parcel again changes nothing',
      )
      assert.deepEqual(await states(), { [a]: 'shipped', [b]: 'shipped', [c]: 'open' })
      const partly = await getOrder(orderId)
      assert.equal(partly.status.stage, 'InProgress')
      assert.equal(partly.status.details.shipping, 'InProgress')
      assert.equal(partly.shipments[0].status, 'Processing')
      assert.equal(partly.shipments[0].tracking.number, 'RM1', "the shipment shows its first parcel's tracking")
      assert.deepEqual(partly.shipments[0].parcels, [
        {
          items: [{ itemId: a }, { itemId: b }],
          carrier: { name: 'Royal Mail', service: 'Tracked 48' },
          tracking: { number: 'RM1', url: 'https://www.royalmail.com/track?trackNumber=RM1' },
          dispatchDate: '2026-11-20T10:00:00.000Z',
        },
      ])

      const again = refused(await lab(key, `${base}/shipped`, parcel('RM2', '2026-11-21T10:00:00Z', [c, a])))
      assert.deepEqual(again, {
        'itemIds[1]': [{ code: 'ItemAlreadyShipped', providedValue: a, comparisonValue: shipmentId }],
      })
      const rejectShipped = refused(
        await lab(key, `${base}/reject`, { reason: 'damaged', items: [{ itemId: b, reason: 'CannotProduce' }] }),
      )
      assert.deepEqual(rejectShipped, {
        'items[0].itemId': [{ code: 'ItemAlreadyShipped', providedValue: b, comparisonValue: shipmentId }],
      })

      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM2', '2026-11-21T10:00:00Z'))), 'Updated')
      const complete = await getOrder(orderId)
      assert.equal(complete.status.stage, 'Complete')
      assert.equal(complete.shipments[0].status, 'Shipped')
      assert.deepEqual(
        complete.shipments[0].parcels.map((shipped: any) => [shipped.tracking.number, shipped.items]),
        [
          ['RM1', [{ itemId: a }, { itemId: b }]],
          ['RM2', [{ itemId: c }]],
        ],
      )
      assert.equal(complete.shipments[0].tracking.number, 'RM2', "once all shipped: the last parcel's tracking")
      assert.equal(complete.shipments[0].dispatchDate, '2026-11-21T10:00:00.000Z')
      assert.equal(await jobOf(key, shipmentId), undefined, 'a shipped job leaves the list')
      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM2', '2026-11-21T10:00:00Z'))), 'Ok')

      // The merchant hears of each parcel, then of the shipment with its last parcel.
      const T = 'com.printroute.order'
      // Deliveries run in parallel: the events' order is their `sequence`, not their arrival.
      // Each delivery's first attempt, as its job would make it.
      await pipelineDriver(t).deliverCallbacks()
      const types = [...receiver.received]
        .sort((x, y) => String(x.event.sequence).localeCompare(String(y.event.sequence)))
        .map((callback) => callback.event.type as string)
      for (const type of [`${T}.shipments.shipment#Shipped`, `${T}.status.stage.changed#Complete`]) {
        assert.ok(types.includes(type), `the callbacks of the two parcels and the completion: ${type}`)
      }
      assert.deepEqual(
        types.filter((type) => type.includes('.shipments.')),
        [`${T}.shipments.parcel#Shipped`, `${T}.shipments.parcel#Shipped`, `${T}.shipments.shipment#Shipped`],
      )
    })

    test('a lab gives one item back: only it is allocated again, to another lab, and the rest stays untouched', async () => {
      const { orderId, shipmentId, labCode, key, itemIds } = await atTheLab(2)
      const [kept, given] = itemIds as [string, string]
      const base = `/labs/v1/jobs/${shipmentId}`
      assert.equal(outcome(await lab(key, `${base}/acknowledge`, null)), 'Updated')
      const before = await pipelineDriver(t).state(orderId)
      const keptFiles = before.pipeline.shipments[shipmentId]?.printFiles

      const rejected = await lab(key, `${base}/reject`, {
        reason: 'one print is out of paper',
        items: [{ itemId: given, reason: 'OutOfStock' }],
      })
      assert.equal(outcome(rejected), 'Updated')
      // The given-back item's allocation round, its print file and its submission to the new lab.
      const drive = pipelineDriver(t)
      const reallocated = await drive.allocate(orderId)
      await drive.render(orderId)
      const freshId = reallocated.document.shipments.find((shipment) => shipment.id !== shipmentId)?.id
      assert.ok(freshId, 'the given-back item at a new lab')
      await drive.submit(orderId, freshId)
      const moved = await getOrder(orderId)
      assert.equal(moved.shipments.length, 2)
      assert.equal(moved.status.details.inProduction, 'InProgress')
      const [original, fresh] = moved.shipments
      assert.equal(original.id, shipmentId)
      assert.deepEqual(original.items, [{ itemId: kept }])
      assert.equal(original.fulfillmentLocation.labCode, labCode)
      assert.match(fresh.id, /^shp_\d+$/)
      assert.notEqual(fresh.id, shipmentId)
      assert.deepEqual(fresh.items, [{ itemId: given }])
      assert.notEqual(fresh.fulfillmentLocation.labCode, labCode)
      assert.equal(moved.charges.length, 1, 'moving an item charges nothing more')

      const after = await pipelineDriver(t).state(orderId)
      const stayed = after.pipeline.shipments[shipmentId]
      assert.equal(stayed?.state, 'acknowledged', 'the shipment that stayed keeps its state')
      assert.deepEqual(stayed?.printFiles, keptFiles, 'and its print files: nothing is rendered again')
      const lines = after.pipeline.billing?.lines ?? {}
      assert.equal(lines[`item:${given}`]?.shipmentId, fresh.id, 'the item line follows the item')
      assert.equal(lines[`item:${kept}`]?.shipmentId, shipmentId)
      assert.ok(lines[`shipping:${shipmentId}`], 'the shipping line stays with the shipment still shipping')
      assert.equal(lines[`shipping:${fresh.id}`], undefined)

      const job = await jobOf(key, shipmentId)
      assert.deepEqual(
        job.items.map((item: { itemId: string; state: string }) => [item.itemId, item.state]),
        [
          [kept, 'open'],
          [given, 'rejected'],
        ],
      )
      assert.equal(
        outcome(
          await lab(key, `${base}/reject`, { reason: 'again', items: [{ itemId: given, reason: 'OutOfStock' }] }),
        ),
        'Ok',
        'giving the same item back again changes nothing',
      )

      const routing = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
      const latest = routing.allocations.at(-1)
      assert.deepEqual(latest.reroutedItems, [
        { itemId: given, fromShipmentId: shipmentId, fromLabCode: labCode, reason: 'OutOfStock' },
      ])
      assert.deepEqual(
        latest.items.map((item: any) => item.itemId),
        [given],
        'the round allocates only the item given back',
      )
      const excluded = latest.items[0].labsExcluded.find((lab: { labCode: string }) => lab.labCode === labCode)
      assert.equal(excluded.reason, 'OutOfStock')

      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM7', '2026-11-22T10:00:00Z'))), 'Updated')
      assert.equal((await getOrder(orderId)).status.stage, 'InProgress', 'the moved item has not shipped yet')
      const freshKey = (await t.app.services.labs.createLabKey(fresh.fulfillmentLocation.labCode, TEST_ACTOR)).key
      assert.ok(await jobOf(freshKey, fresh.id), 'the new shipment in its lab job list')
      assert.equal(
        outcome(await lab(freshKey, `/labs/v1/jobs/${fresh.id}/shipped`, parcel('DE1', '2026-11-23T10:00:00Z'))),
        'Updated',
      )
      const complete = await getOrder(orderId)
      assert.equal(complete.status.stage, 'Complete')
      assert.deepEqual(
        complete.shipments.map((shipment: any) => shipment.parcels.map((sent: any) => sent.tracking.number)),
        [['RM7'], ['DE1']],
      )
    })

    test('every bad item report is a 400 naming the field', async () => {
      const { shipmentId, key, itemIds } = await atTheLab(1)
      const [only] = itemIds as [string]
      const base = `/labs/v1/jobs/${shipmentId}`
      assert.deepEqual(refused(await lab(key, `${base}/printed`, { itemIds: ['ori_999999'] })), {
        'itemIds[0]': [{ code: 'InvalidValue', providedValue: 'ori_999999', comparisonValue: shipmentId }],
      })
      assert.deepEqual(Object.keys(refused(await lab(key, `${base}/printed`, { itemIds: [] }))), ['itemIds'])
      assert.deepEqual(Object.keys(refused(await lab(key, `${base}/printed`, { itemIds: only }))), ['itemIds'])
      assert.deepEqual(Object.keys(refused(await lab(key, `${base}/printed`, { items: [only] }))), ['items'])
      assert.deepEqual(refused(await lab(key, `${base}/shipped`, parcel('X1', '2026-11-20T10:00:00Z', ['nope']))), {
        'itemIds[0]': [{ code: 'InvalidValue', providedValue: 'nope', comparisonValue: shipmentId }],
      })
      assert.deepEqual(
        refused(
          await lab(key, `${base}/reject`, { reason: 'bad file', items: [{ itemId: only, reason: 'FileDefect' }] }),
        ),
        { 'items[0].description': [{ code: 'Required', providedValue: null }] },
      )
      assert.deepEqual(
        Object.keys(
          refused(await lab(key, `${base}/reject`, { reason: 'x', items: [{ itemId: only, reason: 'Bored' }] })),
        ),
        ['items[0].reason'],
      )
      assert.deepEqual(
        refused(
          await lab(key, `${base}/reject`, { reason: 'x', items: [{ itemId: 'ori_1', reason: 'CannotProduce' }] }),
        ),
        { 'items[0].itemId': [{ code: 'InvalidValue', providedValue: 'ori_1', comparisonValue: shipmentId }] },
      )
      const otherLab = (await t.app.services.labs.createLabKey('us1', TEST_ACTOR)).key
      assert.equal((await lab(otherLab, `${base}/printed`, { itemIds: [only] })).statusCode, 404, "another lab's job")
      assert.equal(outcome(await lab(key, `${base}/printed`, null)), 'Updated', 'no body: every open item')
      assert.equal((await jobOf(key, shipmentId)).items[0].state, 'printed')
    })

    test('a second shipped report after every item has shipped: the same parcel is Ok, a different one 400 naming the field, with or without itemIds', async () => {
      const { orderId, shipmentId, key, itemIds } = await atTheLab(2)
      const [a, b] = itemIds as [string, string]
      const base = `/labs/v1/jobs/${shipmentId}`
      const first = parcel('RM1', '2026-11-20T10:00:00Z', [a])
      const last = parcel('RM2', '2026-11-21T10:00:00Z')
      assert.equal(outcome(await lab(key, `${base}/shipped`, first)), 'Updated')
      assert.equal(outcome(await lab(key, `${base}/shipped`, last)), 'Updated', 'the whole-shipment form: item b')
      const shipped = await getOrder(orderId)
      assert.equal(shipped.shipments[0].status, 'Shipped')

      // Repeats of either parcel, in either form, change nothing.
      assert.equal(outcome(await lab(key, `${base}/shipped`, last)), 'Ok')
      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM1', '2026-11-20T10:00:00Z'))), 'Ok')
      assert.equal(outcome(await lab(key, `${base}/shipped`, parcel('RM2', '2026-11-21T10:00:00Z', [b]))), 'Ok')

      const tracking = (number: string, url = `https://www.royalmail.com/track?trackNumber=${number}`) => ({
        ...last,
        tracking: { number, url },
      })
      assert.deepEqual(refused(await lab(key, `${base}/shipped`, tracking('RM3'))), {
        'tracking.number': [{ code: 'ItemAlreadyShipped', providedValue: 'RM3', comparisonValue: 'RM2' }],
      })
      assert.deepEqual(refused(await lab(key, `${base}/shipped`, tracking('RM2', 'https://track.example/RM2'))), {
        'tracking.url': [
          {
            code: 'ItemAlreadyShipped',
            providedValue: 'https://track.example/RM2',
            comparisonValue: 'https://www.royalmail.com/track?trackNumber=RM2',
          },
        ],
      })
      assert.deepEqual(
        refused(await lab(key, `${base}/shipped`, { ...last, carrier: { name: 'DPD', service: 'Next Day' } })),
        { 'carrier.name': [{ code: 'ItemAlreadyShipped', providedValue: 'DPD', comparisonValue: 'Royal Mail' }] },
      )
      assert.deepEqual(refused(await lab(key, `${base}/shipped`, { ...last, tracking: null })), {
        tracking: [{ code: 'ItemAlreadyShipped', providedValue: null, comparisonValue: 'RM2' }],
      })
      assert.deepEqual(refused(await lab(key, `${base}/shipped`, { ...last, dispatchDate: '2026-11-22T10:00:00Z' })), {
        dispatchDate: [
          {
            code: 'ItemAlreadyShipped',
            providedValue: '2026-11-22T10:00:00.000Z',
            comparisonValue: '2026-11-21T10:00:00.000Z',
          },
        ],
      })
      // With itemIds, the same rule: a tracking URL other than the item's parcel's is another parcel.
      assert.deepEqual(
        refused(await lab(key, `${base}/shipped`, { ...tracking('RM2', 'https://track.example/RM2'), itemIds: [b] })),
        { 'itemIds[0]': [{ code: 'ItemAlreadyShipped', providedValue: b, comparisonValue: shipmentId }] },
      )
      const after = await getOrder(orderId)
      assert.deepEqual(after.shipments[0].parcels, shipped.shipments[0].parcels, 'nothing refused was applied')
      assert.equal(after.shipments[0].tracking.number, 'RM2')
    })
  })
}
