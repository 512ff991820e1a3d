// Delivery tracking on Live through the lab API (POST /labs/v1/jobs/{shipmentId}/tracking): the step helper takes
// the orders to their labs (each step as its job would run it, no live queue), the labs ship and report the
// carrier's scans over HTTP, and a receiver on 127.0.0.1 gets the callbacks, each delivered as its job would. Every refusal answers with the field and the reason; the scans-per-shipment limit holds under the
// order's lock, also for two reports at once. On every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fastJson from 'fast-json-stringify'
import type { LightMyRequestResponse } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { MAX_TRACKING_EVENTS_PER_SHIPMENT } from '../../src/domain/delivery-tracking.ts'
import { DELIVERY_STATUSES } from '../../src/domain/order.ts'
import { OrderSchema } from '../../src/http/schemas/order.schema.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'
const serializeThroughSchema = fastJson(OrderSchema as object)

/** An instant `minutes` before (negative: after) `from`, as the carrier writes it. */
const minutesBefore = (from: number, minutes: number) => new Date(from - minutes * 60_000).toISOString()

for (const kind of databaseKinds) {
  describe(`delivery tracking through the lab API (${kind})`, () => {
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
    const track = (key: string, shipmentId: string, events: unknown[]) =>
      lab(key, `/labs/v1/jobs/${shipmentId}/tracking`, { events })
    const outcome = (response: LightMyRequestResponse) => {
      assert.equal(response.statusCode, 200, response.body)
      return json(response).outcome
    }
    const getOrder = async (orderId: string, key?: string) => {
      const response = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order
    }

    /** A Live order whose every shipment waits at its lab, each with a key of that lab. */
    async function atTheLabs(payload: Record<string, unknown>, key?: string) {
      const created = await t.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(t)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const allocated = await getOrder(orderId, key)
      assert.ok(allocated.shipments.length > 0, 'allocated')
      const shipments: { id: string; labKey: string }[] = []
      for (const shipment of allocated.shipments) {
        const labKey = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key
        const jobs = json(await lab(labKey, '/labs/v1/jobs')).jobs as { shipmentId: string }[]
        assert.ok(
          jobs.some((job) => job.shipmentId === shipment.id),
          `${shipment.id} in its lab's job list`,
        )
        shipments.push({ id: shipment.id, labKey })
      }
      return { orderId, shipments }
    }

    async function ship(shipment: { id: string; labKey: string }, dispatchDate: string) {
      const base = `/labs/v1/jobs/${shipment.id}`
      assert.equal(outcome(await lab(shipment.labKey, `${base}/acknowledge`, null)), 'Updated')
      assert.equal(outcome(await lab(shipment.labKey, `${base}/in-production`, null)), 'Updated')
      const shipped = await lab(shipment.labKey, `${base}/shipped`, {
        carrier: { name: 'UPS', service: 'Ground' },
        tracking: { number: `1Z${shipment.id}`, url: `https://www.ups.com/track?tracknum=1Z${shipment.id}` },
        dispatchDate,
      })
      assert.equal(outcome(shipped), 'Updated')
    }

    const phoneCaseOrder = () =>
      sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })

    test('two labs ship and track their shipments to Delivered: the order shows it, every event arrives once, signed, in sequence', async () => {
      const receiver = await startCallbackReceiver()
      try {
        const account = await t.createAccount()
        const settings = await t.live(
          {
            method: 'PATCH',
            url: '/v4.0/account/settings',
            payload: { callbackUrl: receiver.url('/hook') },
            headers: { 'content-type': 'application/json' },
          },
          account.liveKey,
        )
        assert.equal(settings.statusCode, 200, settings.body)
        const { signingSecret } = json(settings).settings
        const { orderId, shipments } = await atTheLabs(twoLabOrder(images.url), account.liveKey)
        assert.equal(shipments.length, 2)
        const [first, second] = shipments as [(typeof shipments)[0], (typeof shipments)[0]]
        assert.notEqual(first.labKey, second.labKey)

        const now = Date.now()
        const early = [{ time: minutesBefore(now, 60), status: 'InTransit', description: 'Accepted by the carrier' }]
        const notYet = await track(first.labKey, first.id, early)
        assert.equal(notYet.statusCode, 400, notYet.body)
        assert.deepEqual(json(notYet).failures, {
          shipmentId: [{ code: 'ShipmentNotShipped', providedValue: first.id, comparisonValue: 'submitted' }],
        })
        await ship(first, minutesBefore(now, 600))
        await ship(second, minutesBefore(now, 540))
        for (const shipment of shipments) {
          assert.deepEqual(json(await lab(shipment.labKey, '/labs/v1/jobs')).jobs, [], 'shipped jobs leave the list')
        }

        const scan = (minutes: number, status: string, description: string, location?: string) => ({
          time: minutesBefore(now, minutes),
          status,
          description,
          ...(location ? { location } : {}),
        })
        assert.equal(
          outcome(await track(first.labKey, first.id, [scan(300, 'InTransit', 'Accepted by the carrier', 'Hodgkins')])),
          'Updated',
        )
        assert.equal(outcome(await track(second.labKey, second.id, [scan(290, 'InTransit', 'Picked up')])), 'Updated')
        // Listed newest first: applied oldest first all the same.
        const lastLeg = [
          scan(60, 'Delivered', 'Delivered, front door'),
          scan(120, 'outfordelivery', 'Out for delivery'),
        ]
        assert.equal(outcome(await track(first.labKey, first.id, lastLeg)), 'Updated')
        // The same scans again, one spelt with an offset: a repeat.
        const offset = new Date(now - 60 * 60_000 + 3_600_000).toISOString().slice(0, 23)
        const respelt = [{ ...lastLeg[0], time: `${offset}+01:00` }, lastLeg[1]]
        assert.equal(outcome(await track(first.labKey, first.id, respelt)), 'Ok')
        // A scan made before the delivery, reported after it: recorded, and the shipment stays Delivered.
        const late = scan(150, 'InTransit', 'Arrived at the delivery depot', 'Chicago')
        assert.equal(outcome(await track(first.labKey, first.id, [late])), 'Updated')
        assert.equal(outcome(await track(first.labKey, first.id, [late])), 'Ok')

        const midway = await getOrder(orderId, account.liveKey)
        assert.equal(midway.shipments[0].deliveryStatus, 'Delivered')
        assert.equal(midway.shipments[1].deliveryStatus, 'InTransit')
        assert.equal(midway.deliveredAt, undefined, 'one shipment is still on its way')

        assert.equal(
          outcome(await track(second.labKey, second.id, [scan(100, 'DeliveryFailed', 'Recipient not available')])),
          'Updated',
        )
        const secondAttempt = [scan(40, 'OutForDelivery', 'Second attempt'), scan(20, 'Delivered', 'Delivered')]
        assert.equal(outcome(await track(second.labKey, second.id, secondAttempt)), 'Updated')

        for (const shipment of shipments) {
          assert.deepEqual(json(await lab(shipment.labKey, '/labs/v1/jobs')).jobs, [], 'tracked jobs stay off the list')
        }
        const order = await getOrder(orderId, account.liveKey)
        assert.equal(JSON.stringify(order), serializeThroughSchema(order), 'keys in the wire order, nothing unknown')
        const [one, two] = order.shipments
        assert.equal(one.deliveryStatus, 'Delivered')
        assert.deepEqual(
          one.trackingEvents.map((event: any) => [event.time, event.status, event.location ?? null]),
          [
            [minutesBefore(now, 300), 'InTransit', 'Hodgkins'],
            [minutesBefore(now, 150), 'InTransit', 'Chicago'],
            [minutesBefore(now, 120), 'OutForDelivery', null],
            [minutesBefore(now, 60), 'Delivered', null],
          ],
        )
        assert.equal(one.deliveredAt, minutesBefore(now, 60))
        assert.deepEqual(
          two.trackingEvents.map((event: any) => event.status),
          ['InTransit', 'DeliveryFailed', 'OutForDelivery', 'Delivered'],
        )
        assert.equal(two.deliveryStatus, 'Delivered')
        assert.equal(two.deliveredAt, minutesBefore(now, 20))
        // Late is judged against the promise made at allocation (or the order's deliverBy), read from the order.
        const { pipeline } = await pipelineDriver(t).state(orderId)
        for (const shipment of order.shipments) {
          const promised =
            pipeline.shipments[shipment.id]?.promise?.estimatedDelivery.to ?? shipment.estimatedDelivery?.to
          assert.equal(shipment.deliveredLate, promised !== undefined && shipment.deliveredAt.slice(0, 10) > promised)
        }
        assert.equal(order.deliveredAt, minutesBefore(now, 20), 'the last delivery')
        assert.equal(order.deliveredLate, one.deliveredLate || two.deliveredLate)
        assert.equal(order.status.stage, 'Complete')

        const expected = [
          `${T}.status.details.downloadAssets#Complete`,
          `${T}.shipments.shipment#Shipped`,
          `${T}.shipments.shipment#Shipped`,
          `${T}.status.details.shipping#Complete`,
          `${T}.status.stage.changed#Complete`,
          `${T}.shipments.shipment#InTransit`,
          `${T}.shipments.shipment#InTransit`,
          `${T}.shipments.shipment#Delivered`,
          `${T}.shipments.shipment#DeliveryFailed`,
          `${T}.shipments.shipment#Delivered`,
          `${T}.status.delivery#Delivered`,
        ]
        // Each delivery's first attempt, as its job would make it.
        await pipelineDriver(t).deliverCallbacks()
        const response = await t.live(
          { method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=100` },
          account.liveKey,
        )
        const callbacks = json(response).callbacks as { status: string }[]
        assert.equal(callbacks.length, expected.length, 'every callback')
        assert.ok(
          callbacks.every((callback) => callback.status === 'delivered'),
          'every callback delivered',
        )
        const received = receiver.received
        assert.equal(received.length, expected.length, 'each event once')
        for (const callback of received) {
          new Webhook(signingSecret).verify(callback.body, callback.headers as Record<string, string>)
          assert.equal(callback.event.id, callback.headers['webhook-id'])
          assert.equal(callback.event.subject, orderId)
        }
        const inSequence = [...received].sort((a, b) => (a.event.sequence < b.event.sequence ? -1 : 1))
        assert.deepEqual(
          inSequence.map((callback) => Number(callback.event.sequence)),
          expected.map((_, index) => index + 1),
        )
        assert.deepEqual(
          inSequence.map((callback) => callback.event.type),
          expected,
        )
        // Each event carries the order as that report left it: whose status it is, and where the other stood.
        const statuses = inSequence
          .slice(5)
          .map((callback) => callback.event.data.order.shipments.map((shipment: any) => shipment.deliveryStatus ?? '-'))
        assert.deepEqual(statuses, [
          ['InTransit', '-'],
          ['InTransit', 'InTransit'],
          ['Delivered', 'InTransit'],
          ['Delivered', 'DeliveryFailed'],
          ['Delivered', 'Delivered'],
          ['Delivered', 'Delivered'],
        ])
        const delivered = inSequence.at(-1)?.event.data.order
        assert.equal(delivered.deliveredAt, order.deliveredAt)
        assert.deepEqual(delivered.shipments, order.shipments, 'the last event carries the order as it ended')
        assert.equal(inSequence.at(-2)?.event.data.order.deliveredAt, order.deliveredAt, 'set by the same report')
      } finally {
        await receiver.close()
      }
    })

    test('bad tracking reports are refused with the field and the reason, and change nothing', async () => {
      const { orderId, shipments } = await atTheLabs(phoneCaseOrder())
      const shipment = shipments[0] as { id: string; labKey: string }
      const now = Date.now()
      const good = { time: minutesBefore(now, 30), status: 'InTransit', description: 'Accepted by the carrier' }
      const refused = async (events: unknown[], id = shipment.id, key = shipment.labKey) => {
        const response = await track(key, id, events)
        assert.equal(response.statusCode, 400, response.body)
        assert.equal(json(response).outcome, 'ValidationFailed')
        return json(response)
      }
      // The shipped report's dispatch date is read by the same date-time rule: a leap second is not a date here.
      const leap = await lab(shipment.labKey, `/labs/v1/jobs/${shipment.id}/shipped`, {
        carrier: { name: 'DPD', service: 'Next day' },
        dispatchDate: '2026-12-31T23:59:60Z',
      })
      assert.equal(leap.statusCode, 400, leap.body)
      assert.equal(json(leap).failures.dispatchDate[0].code, 'InvalidFormat')
      await ship(shipment, minutesBefore(now, 120))

      assert.deepEqual((await refused([{ ...good, status: 'Lost' }])).failures, {
        'events[0].status': [{ code: 'InvalidValue', providedValue: 'Lost', validValues: [...DELIVERY_STATUSES] }],
      })
      for (const time of ['yesterday', '2026-03-02T10:00:00', '2026-12-31T23:59:60Z', '2026-03-02T10:00:00+01']) {
        assert.deepEqual(
          (await refused([good, { ...good, time }])).failures,
          { 'events[1].time': [{ code: 'InvalidFormat', providedValue: time, comparisonValue: 'date-time' }] },
          time,
        )
      }
      const before = Date.now()
      const ahead = minutesBefore(Date.now(), -10)
      const future = await refused([good, { ...good, time: ahead }])
      const [tooLate] = future.failures['events[1].time']
      assert.equal(tooLate.code, 'MustBeLessThanOrEqualTo')
      assert.equal(tooLate.providedValue, ahead)
      const bound = Date.parse(tooLate.comparisonValue)
      assert.ok(bound >= before + 300_000 && bound <= Date.now() + 300_000, tooLate.comparisonValue)
      assert.match(future.statusText, /at most 5 minutes after the service's clock/)
      assert.deepEqual(Object.keys(future.failures), ['events[1].time'])

      assert.deepEqual((await refused([])).failures, {
        events: [{ code: 'TooFew', providedValue: [], comparisonValue: 1 }],
      })
      const many = Array.from({ length: 101 }, (_, index) => ({ ...good, time: minutesBefore(now, 200 + index) }))
      assert.deepEqual((await refused(many)).failures, {
        events: [{ code: 'TooMany', providedValue: null, comparisonValue: 100 }],
      })
      const texts = await refused([
        { ...good, description: ' ' },
        { ...good, description: 'x'.repeat(501) },
        { ...good, description: 'two\nlines', location: 'y'.repeat(201) },
        { ...good, colour: 'brown' },
      ])
      assert.deepEqual(
        Object.fromEntries(Object.entries(texts.failures).map(([path, list]: [string, any]) => [path, list[0].code])),
        {
          'events[0].description': 'MustNotBeEmptyOrWhitespace',
          'events[1].description': 'TooLong',
          'events[2].description': 'InvalidCharacter',
          'events[2].location': 'TooLong',
          'events[3].colour': 'UnknownField',
        },
      )
      assert.equal(texts.failures['events[1].description'][0].comparisonValue, 500)
      assert.equal(texts.failures['events[2].location'][0].comparisonValue, 200)

      // Unknown, another lab's, or not a shipment id: 404, as for the other reports.
      const labCode = (await getOrder(orderId)).shipments[0].fulfillmentLocation.labCode
      const foreignKey = (await t.app.services.labs.createLabKey(labCode === 'us1' ? 'uk6' : 'us1', TEST_ACTOR)).key
      for (const [id, key] of [
        ['shp_999999', shipment.labKey],
        ['not-a-shipment', shipment.labKey],
        [shipment.id, foreignKey],
      ] as const) {
        const response = await track(key, id, [good])
        assert.equal(response.statusCode, 404, `${id}: ${response.body}`)
        assert.equal(json(response).outcome, 'EntityNotFound')
      }
      assert.equal(
        (await track(t.account.liveKey, shipment.id, [good])).statusCode,
        401,
        'a merchant key is no lab key',
      )
      assert.equal(
        (await refused([good], 'x'.repeat(41))).failures.shipmentId[0].code,
        'TooLong',
        'the path parameter has its limit',
      )

      assert.deepEqual((await getOrder(orderId)).shipments[0].trackingEvents, undefined, 'nothing was applied')
      // Within the clock skew allowance a scan a few minutes ahead is taken; a status in any letter case too.
      const skewed = { time: minutesBefore(Date.now(), -4), status: 'intransit', description: 'Departed' }
      assert.equal(outcome(await track(shipment.labKey, shipment.id, [good, skewed])), 'Updated')
      const tracked = (await getOrder(orderId)).shipments[0]
      assert.deepEqual(
        tracked.trackingEvents.map((event: any) => event.status),
        ['InTransit', 'InTransit'],
      )
      assert.equal(tracked.deliveryStatus, 'InTransit')
    })

    test('a shipment keeps at most 500 scans, also when two reports arrive at once', async () => {
      const { orderId, shipments } = await atTheLabs(phoneCaseOrder())
      const shipment = shipments[0] as { id: string; labKey: string }
      const now = Date.now()
      await ship(shipment, minutesBefore(now, 6000))
      let minute = 5000
      const scans = (count: number) =>
        Array.from({ length: count }, () => ({
          time: minutesBefore(now, minute--),
          status: 'InTransit',
          description: 'Hub scan',
        }))
      for (let report = 0; report < 4; report++)
        assert.equal(outcome(await track(shipment.labKey, shipment.id, scans(100))), 'Updated')
      assert.equal(outcome(await track(shipment.labKey, shipment.id, scans(50))), 'Updated')
      // 450 kept: each report alone fits, both together do not. Whichever is applied first, the other is refused,
      // by the check before the lock or by the one under it.
      const answers = await Promise.all(
        [scans(30), scans(30)].map((events) => track(shipment.labKey, shipment.id, events)),
      )
      assert.deepEqual(
        answers.map((answer) => answer.statusCode).sort(),
        [200, 400],
        answers.map((a) => a.body).join('\n'),
      )
      const refusal = json(answers.find((answer) => answer.statusCode === 400) as LightMyRequestResponse)
      assert.deepEqual(refusal.failures, {
        events: [
          { code: 'TooManyTrackingEvents', providedValue: 510, comparisonValue: MAX_TRACKING_EVENTS_PER_SHIPMENT },
        ],
      })
      assert.match(refusal.statusText, /keeps at most 500 carrier scans: it has 480 and the report adds 30 new ones/)
      assert.equal((await getOrder(orderId)).shipments[0].trackingEvents.length, 480)

      const last = scans(20)
      assert.equal(outcome(await track(shipment.labKey, shipment.id, last)), 'Updated')
      assert.equal(outcome(await track(shipment.labKey, shipment.id, last)), 'Ok', 'a repeat at the limit adds nothing')
      const full = await track(shipment.labKey, shipment.id, [{ ...last[0], status: 'Delivered' }])
      assert.equal(full.statusCode, 400, full.body)
      assert.equal(json(full).failures.events[0].code, 'TooManyTrackingEvents')
      const order = await getOrder(orderId)
      assert.equal(order.shipments[0].trackingEvents.length, MAX_TRACKING_EVENTS_PER_SHIPMENT)
      assert.equal(order.shipments[0].deliveryStatus, 'InTransit')
      // The pipeline's own check, under the lock, whatever was checked before it.
      const underTheLock = await t.app.services.pipeline.reportLab(orderId, shipment.id, {
        kind: 'tracking',
        events: [{ time: minutesBefore(now, 1), status: 'Delivered', description: 'Delivered' }],
      })
      assert.deepEqual(underTheLock, {
        changed: false,
        refusal: { reason: 'tooManyScans', kept: MAX_TRACKING_EVENTS_PER_SHIPMENT, fresh: 1 },
      })
      assert.deepEqual(await getOrder(orderId), order)
    })

    test('a shipment its lab rejected has no carrier scans', async () => {
      const { orderId, shipments } = await atTheLabs(phoneCaseOrder())
      const rejected = shipments[0] as { id: string; labKey: string }
      assert.equal(
        outcome(await lab(rejected.labKey, `/labs/v1/jobs/${rejected.id}/reject`, { reason: 'printer down' })),
        'Updated',
      )
      const response = await track(rejected.labKey, rejected.id, [
        { time: minutesBefore(Date.now(), 5), status: 'InTransit', description: 'Accepted' },
      ])
      assert.equal(response.statusCode, 400, response.body)
      assert.deepEqual(json(response).failures, {
        shipmentId: [{ code: 'ShipmentNotShipped', providedValue: rejected.id, comparisonValue: 'rejected' }],
      })
      assert.match(json(response).statusText, /the lab rejected it/)
      const order = await getOrder(orderId)
      assert.ok(order.shipments.every((shipment: any) => shipment.id !== rejected.id))
    })
  })
}
