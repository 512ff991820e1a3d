// A lab that retries is answered as the first time (docs/labs.md#retries-and-idempotency): the same shipped report
// (a parcel of some items or the whole shipment, with or without a dispatch date), printed, rejected or acknowledged
// sent again answers 200 Ok and records no second event; a differing one stays a 400 naming the field. And a lab
// reads any of its jobs, open or closed, with GET /labs/v1/jobs/{shipmentId}, another lab's being 404. Live orders
// moved through the real pipeline steps (no workers), on every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/** The lab that makes phone cases for GB. */
const CASE_LAB = 'prodigi_gb2'

for (const kind of databaseKinds) {
  describe(`lab reports sent again, and one job read in any state (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let labKey: string
    let otherLabKey: string
    /** The shipments each test left closed or open, for the history test at the end. */
    const left: Record<'partsShipped' | 'open' | 'rejected' | 'untracked', { orderId: string; shipmentId: string }> =
      {} as never
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer({}, await solidJpeg(540, 1035, { r: 200, g: 80, b: 40 }))
      labKey = (await t.app.services.labs.createLabKey(CASE_LAB, TEST_ACTOR)).key
      otherLabKey = (await t.app.services.labs.createLabKey('uk6', TEST_ACTOR)).key
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** A lab API call: a GET without `payload`, else a POST (`null`: without a body). */
    const lab = (url: string, payload?: unknown, key = labKey): Promise<LightMyRequestResponse> =>
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
      return json(response).failures
    }
    const eventCount = async (orderId: string) => {
      const response = await t.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })
      assert.equal(response.statusCode, 200, response.body)
      return json(response).events.length as number
    }
    const readJob = async (shipmentId: string, key = labKey) => lab(`/labs/v1/jobs/${shipmentId}`, undefined, key)
    const listed = async () => json(await lab('/labs/v1/jobs')).jobs as { shipmentId: string }[]

    /** A Live order of `count` phone cases, allocated, rendered and submitted to the phone-case lab. */
    async function atTheLab(count: number) {
      const payload = sampleOrder({
        items: Array.from({ length: count }, (_, index) => ({
          sku: PHONE_CASE,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ url: images.url(`case-${index}.jpg`) }],
        })),
      })
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      await pipelineDriver(t).allocate(orderId)
      await pipelineDriver(t).render(orderId)
      const submitted = await pipelineDriver(t).submit(orderId)
      const shipment = submitted.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.labCode, CASE_LAB)
      return {
        orderId,
        shipmentId: shipment.id,
        carrier: shipment.carrier,
        itemIds: submitted.document.items.map((item) => item.id),
      }
    }

    test('the same partial parcel without a dispatch date, sent again, is Ok and adds no event; another tracking number is refused', async () => {
      const { orderId, shipmentId, itemIds } = await atTheLab(2)
      left.partsShipped = { orderId, shipmentId }
      const [a, b] = itemIds as [string, string]
      const base = `/labs/v1/jobs/${shipmentId}`
      const parcel = {
        carrier: { name: 'Royal Mail', service: 'Tracked 48' },
        tracking: { number: 'RM1', url: 'https://www.royalmail.com/track?trackNumber=RM1' },
        itemIds: [a],
      }
      assert.equal(outcome(await lab(`${base}/shipped`, parcel)), 'Updated')
      const events = await eventCount(orderId)
      t.clock.advanceSeconds(120)
      assert.equal(outcome(await lab(`${base}/shipped`, parcel)), 'Ok', 'a retry two minutes later')
      assert.equal(outcome(await lab(`${base}/printed`, { itemIds: [a] })), 'Ok', 'printed after shipped')
      assert.equal(outcome(await lab(`${base}/acknowledge`, null)), 'Ok', 'acknowledged after production')
      assert.equal(await eventCount(orderId), events, 'no second event, so no second callback or push')
      const other = refused(
        await lab(`${base}/shipped`, { ...parcel, tracking: { ...parcel.tracking, number: 'RM2' } }),
      )
      assert.equal(other['itemIds[0]'][0].code, 'ItemAlreadyShipped')

      // The last item in its own parcel; then the whole shipment reported again without items is the last parcel.
      const last = { ...parcel, tracking: { number: 'RM3', url: 'https://www.royalmail.com/track?trackNumber=RM3' } }
      assert.equal(outcome(await lab(`${base}/shipped`, { ...last, itemIds: [b] })), 'Updated')
      const shippedEvents = await eventCount(orderId)
      t.clock.advanceSeconds(120)
      assert.equal(outcome(await lab(`${base}/shipped`, { ...last, itemIds: [b] })), 'Ok')
      assert.equal(outcome(await lab(`${base}/shipped`, { carrier: last.carrier, tracking: last.tracking })), 'Ok')
      const differs = refused(
        await lab(`${base}/shipped`, {
          carrier: { ...last.carrier, service: 'Special Delivery' },
          tracking: last.tracking,
        }),
      )
      assert.deepEqual(differs['carrier.service'], [
        { code: 'ItemAlreadyShipped', providedValue: 'Special Delivery', comparisonValue: 'Tracked 48' },
      ])
      assert.equal(await eventCount(orderId), shippedEvents)

      // The shipped job: gone from the list, read by its id with its parcels and packing slip.
      assert.equal(
        (await listed()).some((job) => job.shipmentId === shipmentId),
        false,
      )
      const job = json(await readJob(shipmentId)).job
      assert.equal(job.state, 'shipped')
      assert.deepEqual(
        job.parcels.map((entry: { tracking: { number: string }; items: { itemId: string }[] }) => [
          entry.tracking.number,
          entry.items.map((item) => item.itemId),
        ]),
        [
          ['RM1', [a]],
          ['RM3', [b]],
        ],
      )
      assert.ok(job.packingSlipPdf?.url, 'the packing slip of a shipped job can be fetched again')
      const slip = await t.app.live.inject({
        method: 'GET',
        url: new URL(job.packingSlipPdf.url).pathname + new URL(job.packingSlipPdf.url).search,
      })
      assert.equal(slip.statusCode, 200)
      assert.equal(slip.headers['content-type'], 'application/pdf')
    })

    test('GET one job: as the list shows it while open; 404 for another lab and for no such shipment', async () => {
      const { orderId, shipmentId } = await atTheLab(1)
      left.open = { orderId, shipmentId }
      const inList = (await listed()).find((job) => job.shipmentId === shipmentId)
      const read = await readJob(shipmentId)
      assert.equal(read.statusCode, 200, read.body)
      assert.equal(json(read).outcome, 'Ok')
      assert.deepEqual(json(read).job, inList, 'the same view as the list')
      const job = json(read).job
      assert.equal(job.state, 'submitted')
      assert.deepEqual(job.parcels, [])
      assert.equal(typeof job.items[0].description, 'string')
      assert.notEqual(job.items[0].description, job.items[0].sku, "the catalogue product's description")
      for (const response of [await readJob(shipmentId, otherLabKey), await readJob('shp_999999')]) {
        assert.equal(response.statusCode, 404, response.body)
        assert.equal(json(response).outcome, 'EntityNotFound')
      }
    })

    test('a whole rejection sent again is Ok (also naming the unavailable items); the rejected job reads as it was given', async () => {
      const { orderId, shipmentId, carrier, itemIds } = await atTheLab(1)
      left.rejected = { orderId, shipmentId }
      const base = `/labs/v1/jobs/${shipmentId}`
      const report = { reason: 'Out of blanks', unavailableItemIds: itemIds }
      assert.equal(outcome(await lab(`${base}/reject`, report)), 'Updated')
      const events = await eventCount(orderId)
      assert.equal(outcome(await lab(`${base}/reject`, report)), 'Ok')
      assert.equal(outcome(await lab(`${base}/acknowledge`, null)), 'Ok')
      assert.equal(await eventCount(orderId), events)
      const job = json(await readJob(shipmentId)).job
      assert.equal(job.state, 'rejected')
      assert.deepEqual(job.carrier, carrier, 'the carrier it was priced with')
      assert.deepEqual(
        job.items.map((item: { itemId: string; state: string }) => [item.itemId, item.state]),
        itemIds.map((itemId) => [itemId, 'rejected']),
      )
    })

    test('a tracking number without its link is accepted; the merchant sees the number with an empty url', async () => {
      const { orderId, shipmentId } = await atTheLab(1)
      left.untracked = { orderId, shipmentId }
      const report = { carrier: { name: 'Evri', service: 'Parcel' }, tracking: { number: 'EV1' } }
      assert.equal(outcome(await lab(`/labs/v1/jobs/${shipmentId}/shipped`, report)), 'Updated')
      assert.equal(outcome(await lab(`/labs/v1/jobs/${shipmentId}/shipped`, report)), 'Ok')
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(order.shipments[0].tracking, { number: 'EV1', url: '' })
    })

    test("the lab's history: closed jobs only, most recently closed first, searched by id, order, tracking number", async () => {
      const history = (query: { search?: string; skip?: number }, lab = CASE_LAB) =>
        t.app.services.labs.jobHistory(lab, query)
      const ids = async (query: { search?: string; skip?: number }) =>
        (await history(query)).jobs.map((job) => job.shipmentId)
      const { partsShipped, open, rejected, untracked } = left
      // The last two closed at the same moment (the test clock stood still): the later shipment first.
      assert.deepEqual(await ids({}), [untracked.shipmentId, rejected.shipmentId, partsShipped.shipmentId])
      assert.equal((await history({})).hasMore, false)
      assert.deepEqual(await ids({ skip: 1 }), [rejected.shipmentId, partsShipped.shipmentId])
      assert.deepEqual(await ids({ search: 'rm1' }), [partsShipped.shipmentId], "a parcel's tracking number")
      assert.deepEqual(await ids({ search: ' EV1 ' }), [untracked.shipmentId], 'any case, trimmed')
      assert.deepEqual(await ids({ search: rejected.orderId }), [rejected.shipmentId], 'the order id')
      assert.deepEqual(await ids({ search: rejected.shipmentId }), [rejected.shipmentId], 'the shipment id')
      assert.deepEqual(await ids({ search: open.shipmentId }), [], 'an open job is in the queue, not the history')
      assert.deepEqual(await ids({ search: 'ada lovelace' }), await ids({}), "the recipient's name")
      assert.deepEqual(await ids({ search: "%'_\\" }), [], 'wildcards and quotes are plain text')
      assert.deepEqual((await history({}, 'uk6')).jobs, [], "another lab's history")
      const shipped = (await history({ search: 'rm3' })).jobs[0]
      assert.equal(shipped?.state, 'shipped')
      assert.ok(shipped?.packingSlipPdf?.url, 'with its packing slip')
    })
  })
}
