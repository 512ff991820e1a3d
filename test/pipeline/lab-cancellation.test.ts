// A merchant's cancel of a Live order whose shipment is with a lab that has not started production
// (docs/api.md#order-actions, docs/pipeline.md#cancellation): printroute asks the lab, the lab answers through
// the lab API, and the cancel's outcome follows the answer: in time (Cancelled, refunded, the callback's event),
// too late (FailedToCancel), none in time (FailedToCancel, then a late `cancelled` still cancels and refunds).
// Answers at once from two requests apply once; repeats are Ok; wrong answers are refused naming the field. On
// every configured database; the orders are moved by the pipeline's own steps (no workers), the cancel and the
// lab's answers are real HTTP requests running side by side.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const STAGE_CANCELLED = 'com.printroute.order.status.stage.changed#Cancelled'
const net = (charges: Charge[]) => charges.reduce((sum, charge) => sum + minor(charge.totalCost.amount), 0n)

for (const kind of databaseKinds) {
  describe(`cancel asks the lab (${kind})`, () => {
    let images: ImageServer
    /** The cancel waits long for answers here: every answer of these tests comes while it waits. */
    let t: TestApp
    /** The cancel waits briefly here: the lab answers after it has given up. */
    let brief: TestApp
    let receiver: CallbackReceiver
    before(async () => {
      images = await startImageServer()
      receiver = await startCallbackReceiver()
      t = await startTestApp({ kind, realClock: true, labCancelWaitSeconds: 120 })
      brief = await startTestApp({ kind, realClock: true, labCancelWaitSeconds: 0.3 })
    })
    after(async () => {
      await t.close()
      await brief.close()
      await images.close()
      await receiver.close()
    })

    const keys = new Map<string, string>()
    /** A lab key of the app's lab, made once. */
    async function labKey(app: TestApp, labCode: string): Promise<string> {
      const id = `${app === t ? 't' : 'brief'}:${labCode}`
      const known = keys.get(id)
      if (known) return known
      const { key } = await app.app.services.labs.createLabKey(labCode, TEST_ACTOR)
      keys.set(id, key)
      return key
    }

    function lab(app: TestApp, key: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
      return app.app.live.inject({
        method,
        url,
        headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
      })
    }

    const answer = (app: TestApp, key: string, shipmentId: string, value: unknown) =>
      lab(app, key, 'POST', `/labs/v1/jobs/${shipmentId}/cancellation`, { answer: value })

    /** The job as the lab lists it, once it shows a cancellation request. */
    const requestSeen = (app: TestApp, key: string, shipmentId: string) =>
      waitFor(`the cancellation request on ${shipmentId} in the lab's job list`, async () => {
        const jobs = json(await lab(app, key, 'GET', '/labs/v1/jobs')).jobs as any[]
        const job = jobs.find((candidate) => candidate.shipmentId === shipmentId)
        return job?.cancellationRequested ? job : undefined
      })

    const cancel = (app: TestApp, orderId: string) =>
      app.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
    const actions = async (app: TestApp, orderId: string) =>
      json(await app.live({ method: 'GET', url: `/v4.0/orders/${orderId}/actions` })).cancel.isAvailable
    const events = async (app: TestApp, orderId: string) =>
      (json(await app.live({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` })).events as any[]).map(
        (event) => event.type,
      )

    /** A Live order submitted to its lab(s): one phone case to GB, or a canvas and a phone case to the US. */
    async function submitted(app: TestApp, shape: 'single' | 'split' = 'single', callbackUrl?: string) {
      const payload =
        shape === 'single'
          ? sampleOrder({
              items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('a.jpg') }] }],
              ...(callbackUrl ? { callbackUrl } : {}),
            })
          : twoLabOrder(images.url, { shippingMethod: 'Standard' })
      const created = await app.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const drive = pipelineDriver(app)
      await drive.allocate(orderId)
      await drive.render(orderId)
      const order = await drive.submit(orderId)
      const shipments = order.document.shipments.map((shipment) => ({
        id: shipment.id,
        labCode: shipment.fulfillmentLocation.labCode,
      }))
      assert.ok(shipments.every((shipment) => order.pipeline.shipments[shipment.id]?.state === 'submitted'))
      return { orderId, shipments, drive }
    }

    test('the lab answers cancelled in time: Cancelled, everything refunded, the event written once', async () => {
      const { orderId, shipments, drive } = await submitted(t)
      const [shipment] = shipments
      assert.ok(shipment)
      const key = await labKey(t, shipment.labCode)
      assert.equal(await actions(t, orderId), 'Yes', 'a lab that has not started can still be asked')
      const listed = json(await lab(t, key, 'GET', '/labs/v1/jobs')).jobs.find(
        (job: any) => job.shipmentId === shipment.id,
      )
      assert.equal(listed.cancellationRequested, undefined, 'no request before the cancel')

      const cancelling = cancel(t, orderId)
      const job = await requestSeen(t, key, shipment.id)
      assert.ok(Date.parse(job.cancellationRequested.at) <= Date.now())
      assert.deepEqual(Object.keys(job.cancellationRequested), ['at'])
      const answered = await answer(t, key, shipment.id, 'cancelled')
      assert.equal(answered.statusCode, 200, answered.body)
      assert.equal(json(answered).outcome, 'Updated')

      const response = await cancelling
      assert.equal(response.statusCode, 200, response.body)
      const body = json(response)
      assert.equal(body.outcome, 'Cancelled')
      assert.equal(body.order.status.stage, 'Cancelled')
      assert.deepEqual(
        body.order.shipments.map((candidate: any) => [candidate.status, candidate.cancelled]),
        [['Cancelled', true]],
      )
      const charges = body.order.charges as Charge[]
      assert.deepEqual(
        charges.map((charge) => charge.chargeType),
        ['Item', 'Refund'],
      )
      assert.equal(net(charges), 0n)
      assert.deepEqual(body.order, await drive.document(orderId))
      assert.equal((await events(t, orderId)).filter((type) => type === STAGE_CANCELLED).length, 1)
      assert.deepEqual(json(await lab(t, key, 'GET', '/labs/v1/jobs')).jobs, [], 'a cancelled job leaves the list')
      assert.equal(await actions(t, orderId), 'No')

      // A repeat is Ok; the other answer now is refused; neither changes the order.
      assert.equal(json(await answer(t, key, shipment.id, 'Cancelled')).outcome, 'Ok', 'any letter case')
      const other = await answer(t, key, shipment.id, 'tooLate')
      assert.equal(other.statusCode, 400)
      assert.deepEqual(json(other).failures, {
        answer: [{ code: 'CancellationAlreadyAnswered', providedValue: 'tooLate', comparisonValue: 'cancelled' }],
      })
      assert.deepEqual(await drive.document(orderId), body.order)
      // A cancelled shipment has no carrier scans.
      const scans = await lab(t, key, 'POST', `/labs/v1/jobs/${shipment.id}/tracking`, {
        events: [{ time: new Date().toISOString(), status: 'InTransit', description: 'Accepted' }],
      })
      assert.equal(scans.statusCode, 400)
      assert.equal(json(scans).failures.shipmentId[0].code, 'ShipmentCancelled')
    })

    test('the lab answers tooLate: FailedToCancel, nothing refunded, the lab goes on', async () => {
      const { orderId, shipments, drive } = await submitted(t)
      const [shipment] = shipments
      assert.ok(shipment)
      const key = await labKey(t, shipment.labCode)
      assert.equal(json(await lab(t, key, 'POST', `/labs/v1/jobs/${shipment.id}/acknowledge`)).outcome, 'Updated')
      const before = await drive.document(orderId)

      const cancelling = cancel(t, orderId)
      await requestSeen(t, key, shipment.id)
      assert.equal(json(await answer(t, key, shipment.id, 'tooLate')).outcome, 'Updated')
      const body = json(await cancelling)
      assert.equal(body.outcome, 'FailedToCancel')
      assert.deepEqual(body.order, before, 'the order is as it was')
      assert.equal(await actions(t, orderId), 'No', 'a lab that said too late is not asked again')
      const again = json(await cancel(t, orderId))
      assert.equal(again.outcome, 'FailedToCancel', 'a second cancel does not ask again')
      const job = json(await lab(t, key, 'GET', '/labs/v1/jobs')).jobs.find(
        (candidate: any) => candidate.shipmentId === shipment.id,
      )
      assert.equal(job.cancellationRequested, undefined, 'the request is closed')
      assert.equal(job.state, 'acknowledged')
      assert.equal(json(await lab(t, key, 'POST', `/labs/v1/jobs/${shipment.id}/in-production`)).outcome, 'Updated')
      assert.equal(json(await answer(t, key, shipment.id, 'tooLate')).outcome, 'Ok', 'a repeat')
      assert.deepEqual(
        (await drive.document(orderId)).charges.map((charge) => charge.chargeType),
        ['Item'],
      )
      assert.deepEqual(
        (await events(t, orderId)).filter((type) => type === STAGE_CANCELLED),
        [],
      )
    })

    test('two labs: one cancels, one is too late: FailedToCancel, only the cancelled shipment is refunded', async () => {
      const { orderId, shipments, drive } = await submitted(t, 'split')
      assert.equal(shipments.length, 2)
      const [first, second] = shipments as [(typeof shipments)[0], (typeof shipments)[0]]
      assert.notEqual(first.labCode, second.labCode)
      const firstKey = await labKey(t, first.labCode)
      const secondKey = await labKey(t, second.labCode)
      const charged = (await drive.document(orderId)).charges[0] as Charge
      const cancelling = cancel(t, orderId)
      await requestSeen(t, firstKey, first.id)
      await requestSeen(t, secondKey, second.id)
      assert.equal(json(await answer(t, firstKey, first.id, 'cancelled')).outcome, 'Updated')
      assert.equal(json(await answer(t, secondKey, second.id, 'tooLate')).outcome, 'Updated')
      const body = json(await cancelling)
      assert.equal(body.outcome, 'FailedToCancel')
      assert.equal(body.order.status.stage, 'InProgress')
      const byId = new Map(body.order.shipments.map((shipment: any) => [shipment.id, shipment]))
      assert.deepEqual(
        [first, second].map(({ id }) => [(byId.get(id) as any).status, (byId.get(id) as any).cancelled]),
        [
          ['Cancelled', true],
          ['Processing', false],
        ],
      )
      const refund = body.order.charges[1] as Charge
      const shipping = charged.items.find((line) => line.chargeType === 'Shipping' && line.shipmentId === first.id)
      assert.ok(shipping)
      assert.equal(refund.chargeType, 'Refund')
      assert.deepEqual(
        refund.items.map((line) => [line.shipmentId, line.itemId, line.cost.amount]),
        [[first.id, null, `-${shipping.cost.amount}`]],
      )
      assert.equal(body.order.charges.length, 2)
    })

    test('no answer in time: FailedToCancel with the request open; a late cancelled cancels and refunds', async () => {
      const { orderId, shipments, drive } = await submitted(brief, 'single', receiver.url('/late'))
      const [shipment] = shipments
      assert.ok(shipment)
      const key = await labKey(brief, shipment.labCode)
      const before = await drive.document(orderId)
      const response = await cancel(brief, orderId)
      const body = json(response)
      assert.equal(body.outcome, 'FailedToCancel', response.body)
      assert.deepEqual(body.order, before)
      const job = await requestSeen(brief, key, shipment.id)
      assert.equal(job.state, 'submitted')
      assert.equal(await actions(brief, orderId), 'Yes', 'still open: a cancel may wait again')

      const late = await answer(brief, key, shipment.id, 'cancelled')
      assert.equal(json(late).outcome, 'Updated', late.body)
      const after = await drive.document(orderId)
      assert.equal(after.status.stage, 'Cancelled')
      assert.equal(after.shipments[0]?.cancelled, true)
      assert.deepEqual(
        after.charges.map((charge) => charge.chargeType),
        ['Item', 'Refund'],
      )
      assert.equal(net(after.charges as Charge[]), 0n)
      assert.ok((await events(brief, orderId)).includes(STAGE_CANCELLED), 'the merchant is told')
      // The callback of the late cancellation, delivered to the order's callback URL as its delivery job would.
      const deliveries = json(await brief.live({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=100` }))
        .callbacks as { id: string; type: string }[]
      const cancelled = deliveries.filter((delivery) => delivery.type === STAGE_CANCELLED)
      assert.equal(cancelled.length, 1)
      const sent = receiver.received.length
      await brief.app.services.callbacks.deliver(parseId('cbd', cancelled[0]?.id ?? '') as number, 1)
      const callback = receiver.received[sent]
      assert.ok(callback, 'the callback was posted')
      assert.equal(callback.url, '/late')
      assert.equal(callback.event.type, STAGE_CANCELLED)
      assert.equal(callback.event.data.order.status.stage, 'Cancelled')
      assert.equal(callback.event.data.order.charges.at(-1).chargeType, 'Refund')
      assert.equal(json(await cancel(brief, orderId)).outcome, 'ActionNotAvailable')
    })

    test('answers from two requests at once apply once', async () => {
      for (const [one, two] of [
        ['cancelled', 'cancelled'],
        ['cancelled', 'tooLate'],
      ]) {
        const { orderId, shipments, drive } = await submitted(brief)
        const [shipment] = shipments
        assert.ok(shipment)
        const key = await labKey(brief, shipment.labCode)
        assert.equal(json(await cancel(brief, orderId)).outcome, 'FailedToCancel')
        const answers: LightMyRequestResponse[] = await Promise.all([
          answer(brief, key, shipment.id, one),
          answer(brief, key, shipment.id, two),
        ])
        const outcomes = answers.map((response) =>
          response.statusCode === 200 ? json(response).outcome : json(response).failures.answer[0].code,
        )
        const document = await drive.document(orderId)
        if (one === two) {
          assert.deepEqual(outcomes.sort(), ['Ok', 'Updated'])
          assert.equal(document.status.stage, 'Cancelled')
        } else {
          assert.deepEqual(outcomes.sort(), ['CancellationAlreadyAnswered', 'Updated'])
          const won = answers.findIndex((response) => response.statusCode === 200) === 0 ? one : two
          assert.equal(document.status.stage, won === 'cancelled' ? 'Cancelled' : 'InProgress')
        }
        const refunds = document.charges.filter((charge) => charge.chargeType === 'Refund')
        assert.equal(refunds.length, document.status.stage === 'Cancelled' ? 1 : 0, 'refunded at most once')
        const cancelledEvents = (await events(brief, orderId)).filter((type) => type === STAGE_CANCELLED)
        assert.equal(cancelledEvents.length, document.status.stage === 'Cancelled' ? 1 : 0)
      }
    })

    test('a report of production closes the request as too late; a rejection cancels the shipment', async () => {
      const producing = await submitted(brief)
      const [shipment] = producing.shipments
      assert.ok(shipment)
      const key = await labKey(brief, shipment.labCode)
      await cancel(brief, producing.orderId)
      await requestSeen(brief, key, shipment.id)
      assert.equal(json(await lab(brief, key, 'POST', `/labs/v1/jobs/${shipment.id}/in-production`)).outcome, 'Updated')
      const job = json(await lab(brief, key, 'GET', '/labs/v1/jobs')).jobs.find(
        (candidate: any) => candidate.shipmentId === shipment.id,
      )
      assert.equal(job.state, 'inProduction')
      assert.equal(job.cancellationRequested, undefined)
      const refused = await answer(brief, key, shipment.id, 'cancelled')
      assert.equal(refused.statusCode, 400)
      assert.deepEqual(json(refused).failures, {
        answer: [{ code: 'CancellationAlreadyAnswered', providedValue: 'cancelled', comparisonValue: 'tooLate' }],
      })
      assert.equal((await producing.drive.document(producing.orderId)).status.stage, 'InProgress')
      assert.equal(await actions(brief, producing.orderId), 'No')

      const rejecting = await submitted(brief)
      const rejected = rejecting.shipments[0]
      assert.ok(rejected)
      await cancel(brief, rejecting.orderId)
      const rejectKey = await labKey(brief, rejected.labCode)
      await requestSeen(brief, rejectKey, rejected.id)
      const reject = await lab(brief, rejectKey, 'POST', `/labs/v1/jobs/${rejected.id}/reject`, {
        reason: 'printer down',
      })
      assert.equal(json(reject).outcome, 'Updated', reject.body)
      const after = await rejecting.drive.state(rejecting.orderId)
      assert.equal(after.document.status.stage, 'Cancelled', 'not allocated again: the merchant cancelled')
      assert.equal(after.pipeline.phase, 'cancelled')
      assert.equal(net(after.document.charges as Charge[]), 0n)
    })

    test('bad answers: no request, unknown values, fields or shipments, another lab, Sandbox', async () => {
      const { orderId, shipments, drive } = await submitted(brief)
      const [shipment] = shipments
      assert.ok(shipment)
      const key = await labKey(brief, shipment.labCode)
      const unasked = await answer(brief, key, shipment.id, 'cancelled')
      assert.equal(unasked.statusCode, 400)
      assert.equal(json(unasked).outcome, 'ValidationFailed')
      assert.deepEqual(json(unasked).failures, {
        answer: [{ code: 'CancellationNotRequested', providedValue: 'cancelled' }],
      })
      const url = `/labs/v1/jobs/${shipment.id}/cancellation`
      for (const [payload, field] of [
        [{ answer: 'maybe' }, 'answer'],
        [{}, 'answer'],
        [{ answer: 'cancelled', reason: 'x' }, 'reason'],
        [{ answer: 1 }, 'answer'],
      ] as const) {
        const response = await lab(brief, key, 'POST', url, payload)
        assert.equal(response.statusCode, 400, JSON.stringify(payload))
        assert.equal(json(response).outcome, 'ValidationFailed')
        assert.ok(json(response).failures[field], `${JSON.stringify(payload)}: ${response.body}`)
      }
      const noBody = await brief.app.live.inject({ method: 'POST', url, headers: { 'x-api-key': key } })
      assert.equal(noBody.statusCode, 400, noBody.body)
      assert.equal(json(noBody).outcome, 'ValidationFailed')

      const otherLab = await labKey(brief, shipment.labCode === 'us1' ? 'uk6' : 'us1')
      assert.equal((await answer(brief, otherLab, shipment.id, 'cancelled')).statusCode, 404)
      assert.equal((await answer(brief, key, 'shp_999999', 'cancelled')).statusCode, 404)
      assert.equal((await answer(brief, key, 'nonsense', 'cancelled')).statusCode, 404)
      const unauthenticated = await brief.app.live.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{"answer":"cancelled"}',
      })
      assert.equal(unauthenticated.statusCode, 401)

      // Another lab's answer does not count: the request stays open for the right one.
      await cancel(brief, orderId)
      assert.equal((await answer(brief, otherLab, shipment.id, 'cancelled')).statusCode, 404)
      await requestSeen(brief, key, shipment.id)
      assert.equal((await drive.document(orderId)).status.stage, 'InProgress')

      // Sandbox shipments are with the simulated labs: a cancel does not ask, and the lab API does not know them.
      const sandbox = await brief.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('a.jpg') }] }],
        }),
        headers: { 'content-type': 'application/json' },
      })
      const sandboxId = json(sandbox).order.id as string
      await drive.allocate(sandboxId)
      await drive.render(sandboxId)
      const sandboxOrder = await drive.submit(sandboxId)
      const sandboxShipment = sandboxOrder.document.shipments[0]
      assert.ok(sandboxShipment)
      const sandboxCancel = json(
        await brief.sandbox({ method: 'POST', url: `/v4.0/orders/${sandboxId}/actions/cancel` }),
      )
      assert.equal(sandboxCancel.outcome, 'FailedToCancel')
      assert.equal(
        (await drive.state(sandboxId)).pipeline.shipments[sandboxShipment.id]?.cancellationRequested,
        undefined,
      )
      const sandboxKey = await labKey(brief, sandboxShipment.fulfillmentLocation.labCode)
      assert.equal((await answer(brief, sandboxKey, sandboxShipment.id, 'cancelled')).statusCode, 404)
    })
  })
}
