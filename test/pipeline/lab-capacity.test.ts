// Lab availability on Live (docs/allocation.md#lab-availability, docs/pipeline.md#capacity): a lab reports its
// capacity through the lab API and is skipped once it has had that many jobs (AtCapacity in the order's routing);
// a paused lab is skipped (LabPaused) and used again once resumed; the catalogue's dailyJobLimit holds the same way;
// a Live order's change of shipping method re-plans around paused labs; bad capacity reports are refused naming
// the field. The allocation step runs as its job would (the step helper, no live queue), two orders at once for the
// last job; only the order that waits for a lab with room runs on the live queue, which brings its round back by
// itself. On every configured database.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createLogger } from '../../src/adapters/logger.ts'
import type { Catalogue } from '../../src/domain/catalogue.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { captureLogs } from '../support/log-capture.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import {
  changedSampleCatalogue,
  json,
  catalogue as sampleCatalogue,
  sampleOrder,
  startTestApp,
  type TestApp,
} from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

/** The lab the sample order goes to with every lab free, and the one it goes to without it. */
const FIRST_CHOICE = 'uk6'

for (const kind of databaseKinds) {
  describe(`lab capacity and pause (${kind})`, () => {
    let images: ImageServer
    before(async () => {
      images = await startImageServer()
    })
    after(async () => {
      await images.close()
    })

    /** An app without workers (the test runs each step), on the sample catalogue or a changed one. */
    async function app(catalogue?: Catalogue): Promise<TestApp> {
      return startTestApp({ kind, realClock: true, ...(catalogue ? { catalogue } : {}) })
    }

    const capacityCall = (t: TestApp, key: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      t.app.live.inject({
        method: payload === undefined ? 'GET' : 'PUT',
        url: '/labs/v1/capacity',
        headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      })

    /** Creates a Live order of one print to GB; its id. */
    async function createPrintOrder(t: TestApp): Promise<string> {
      const payload = sampleOrder({
        items: [
          { sku: 'GLOBAL-FAP-16x24', copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('print.jpg') }] },
        ],
      })
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id
    }

    /**
     * A Live order of one print to GB, allocated by its download and allocation steps: the lab it went to and what
     * its routing says of each lab.
     */
    async function allocatedOrder(t: TestApp) {
      const orderId = await createPrintOrder(t)
      await pipelineDriver(t).allocate(orderId)
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.ok(order.shipments.length > 0, 'allocated')
      const routing = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
      const item = routing.allocations.at(-1).items[0]
      const reasons: Record<string, string> = Object.fromEntries(
        item.labsExcluded.map((lab: { labCode: string; reason: string }) => [lab.labCode, lab.reason]),
      )
      return { orderId, labCode: order.shipments[0].fulfillmentLocation.labCode as string, reasons }
    }

    /** A Standard quote of the same print to GB: its lab and what its routing says of each lab. */
    async function quotedLabs(t: TestApp, environment: 'live' | 'sandbox') {
      const call = environment === 'live' ? t.live : t.sandbox
      const response = await call({
        method: 'POST',
        url: '/v4.0/quotes',
        payload: {
          shippingMethod: 'Standard',
          destinationCountryCode: 'GB',
          items: [{ sku: 'GLOBAL-FAP-16x24', copies: 1, assets: [{ printArea: 'default' }] }],
        },
      })
      assert.equal(response.statusCode, 200, response.body)
      const quote = json(response).quotes[0]
      const routing = json(await call({ method: 'GET', url: `/v4.0/quotes/${quote.id}/routing` })).routing
      const reasons: Record<string, string> = Object.fromEntries(
        routing.allocations[0].items[0].labsExcluded.map((lab: { labCode: string; reason: string }) => [
          lab.labCode,
          lab.reason,
        ]),
      )
      return { labCode: quote.shipments[0].fulfillmentLocation.labCode as string, reasons }
    }

    describe('reported capacity and pause', () => {
      let t: TestApp
      before(async () => {
        t = await app()
      })
      after(async () => {
        await t.close()
      })

      test('a lab at its reported capacity is skipped (AtCapacity) until it reports room again', async () => {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        const first = await allocatedOrder(t)
        assert.equal(first.labCode, FIRST_CHOICE, 'the cheapest lab with every lab free')
        assert.equal(first.reasons[FIRST_CHOICE], undefined)

        const unreported = json(await capacityCall(t, key))
        assert.equal(unreported.outcome, 'Ok')
        assert.equal(unreported.capacity.jobsToday, null)
        assert.equal(unreported.capacity.jobsGivenToday, 1)
        assert.equal(unreported.capacity.jobsRemainingToday, null, 'nothing limits it yet')
        assert.equal(unreported.capacity.paused, false)

        const full = await capacityCall(t, key, { jobsToday: 0 })
        assert.equal(full.statusCode, 200, full.body)
        assert.equal(json(full).outcome, 'Updated')
        assert.equal(json(full).capacity.jobsRemainingToday, 0)
        const second = await allocatedOrder(t)
        assert.notEqual(second.labCode, FIRST_CHOICE, 'the order is allocated elsewhere')
        assert.equal(second.reasons[FIRST_CHOICE], 'AtCapacity')
        const quoted = await quotedLabs(t, 'live')
        assert.notEqual(quoted.labCode, FIRST_CHOICE, 'a Live quote is allocated as an order made now')
        assert.equal(quoted.reasons[FIRST_CHOICE], 'AtCapacity')
        const sandboxQuote = await quotedLabs(t, 'sandbox')
        assert.equal(sandboxQuote.labCode, FIRST_CHOICE, 'Sandbox work goes to the simulated labs: no capacity')

        await capacityCall(t, key, { jobsToday: 1 })
        const third = await allocatedOrder(t)
        assert.equal(third.labCode, FIRST_CHOICE, 'one more job counted from the report')
        const after = json(await capacityCall(t, key)).capacity
        assert.equal(after.jobsToday, 1)
        assert.equal(after.jobsGivenToday, 2)
        assert.equal(after.jobsRemainingToday, 0)
        assert.equal((await allocatedOrder(t)).reasons[FIRST_CHOICE], 'AtCapacity', 'full again')

        await capacityCall(t, key, { jobsToday: 10_000 })
        assert.equal((await allocatedOrder(t)).labCode, FIRST_CHOICE, 'room again after a higher report')
      })

      test('a paused lab is skipped (LabPaused) and used again once resumed', async () => {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        assert.deepEqual(await t.app.services.labs.setPaused(FIRST_CHOICE, true, TEST_ACTOR), { wasPaused: false })
        assert.equal(json(await capacityCall(t, key)).capacity.paused, true)
        const paused = await allocatedOrder(t)
        assert.notEqual(paused.labCode, FIRST_CHOICE)
        assert.equal(paused.reasons[FIRST_CHOICE], 'LabPaused')

        assert.deepEqual(await t.app.services.labs.setPaused(FIRST_CHOICE, false, TEST_ACTOR), { wasPaused: true })
        const resumed = await allocatedOrder(t)
        assert.equal(resumed.labCode, FIRST_CHOICE)
        assert.equal(resumed.reasons[FIRST_CHOICE], undefined)
      })

      test('a lab paused with a job in flight: the job stays listed and takes its reports; new orders go elsewhere', async () => {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        const lab = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
          t.app.live.inject({
            method,
            url,
            headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
          })
        const listed = async () => json(await lab('GET', '/labs/v1/jobs')).jobs as { shipmentId: string }[]
        const first = await allocatedOrder(t)
        assert.equal(first.labCode, FIRST_CHOICE)
        const orderId = first.orderId
        const drive = pipelineDriver(t)
        await drive.render(orderId)
        await drive.submit(orderId)
        const read = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
        const shipmentId = read.shipments[0]?.id as string
        assert.ok(
          (await listed()).some((job) => job.shipmentId === shipmentId),
          'the job submitted to the lab',
        )

        await t.app.services.labs.setPaused(FIRST_CHOICE, true, TEST_ACTOR)
        try {
          assert.ok(
            (await listed()).some((job) => job.shipmentId === shipmentId),
            'a paused lab still lists its job',
          )
          const acknowledged = await lab('POST', `/labs/v1/jobs/${shipmentId}/acknowledge`)
          assert.equal(acknowledged.statusCode, 200, acknowledged.body)
          assert.equal(json(acknowledged).outcome, 'Updated')
          const shipped = await lab('POST', `/labs/v1/jobs/${shipmentId}/shipped`, {
            carrier: { name: 'Royal Mail', service: 'Tracked 48' },
            tracking: { number: 'RMP1', url: 'https://www.royalmail.com/track?trackNumber=RMP1' },
            dispatchDate: '2026-11-20T10:00:00Z',
          })
          assert.equal(shipped.statusCode, 200, shipped.body)
          assert.equal(json(shipped).outcome, 'Updated')
          const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          assert.equal(order.shipments[0].status, 'Shipped', 'the work in flight finishes as usual')

          const next = await allocatedOrder(t)
          assert.notEqual(next.labCode, FIRST_CHOICE)
          assert.equal(next.reasons[FIRST_CHOICE], 'LabPaused', 'no new work while paused')
        } finally {
          await t.app.services.labs.setPaused(FIRST_CHOICE, false, TEST_ACTOR)
        }
      })

      test("two orders allocated at once cannot both take a lab's last job", async () => {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        await capacityCall(t, key, { jobsToday: 1 })
        const before = json(await capacityCall(t, key)).capacity.jobsGivenToday
        const both = await Promise.all([allocatedOrder(t), allocatedOrder(t)])
        const atFirstChoice = both.filter((order) => order.labCode === FIRST_CHOICE)
        assert.equal(atFirstChoice.length, 1, JSON.stringify(both))
        const other = both.find((order) => order.labCode !== FIRST_CHOICE)
        assert.equal(other?.reasons[FIRST_CHOICE], 'AtCapacity')
        const after = json(await capacityCall(t, key)).capacity
        assert.equal(after.jobsGivenToday, before + 1)
        assert.equal(after.jobsRemainingToday, 0)
      })

      test('a bad capacity report is a 400 naming jobsToday; the capacity stays as it was', async () => {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        await capacityCall(t, key, { jobsToday: 10_000 })
        for (const jobsToday of [-1, 1.5, 10_001, '5', null]) {
          const refused = await capacityCall(t, key, { jobsToday })
          assert.equal(refused.statusCode, 400, `${JSON.stringify(jobsToday)}: ${refused.body}`)
          const body = json(refused)
          assert.equal(body.outcome, 'ValidationFailed')
          assert.ok(body.failures.jobsToday?.length > 0, `${JSON.stringify(jobsToday)}: ${refused.body}`)
        }
        const missing = json(await capacityCall(t, key, {}))
        assert.ok(missing.failures.jobsToday?.length > 0, JSON.stringify(missing))
        assert.equal(json(await capacityCall(t, key)).capacity.jobsToday, 10_000)
        const unauthenticated = await capacityCall(t, 'pr_lab_nothing', { jobsToday: 1 })
        assert.equal(unauthenticated.statusCode, 401)
      })
    })

    test("the catalogue's dailyJobLimit: the lab takes that many jobs a day, then is AtCapacity", async () => {
      const limited = changedSampleCatalogue('limited', (file) => {
        const lab = file.labs.find((candidate: { code: string }) => candidate.code === FIRST_CHOICE)
        lab.dailyJobLimit = 1
      })
      const t = await app(limited)
      try {
        const key = (await t.app.services.labs.createLabKey(FIRST_CHOICE, TEST_ACTOR)).key
        assert.equal(json(await capacityCall(t, key)).capacity.dailyJobLimit, 1)
        assert.equal((await allocatedOrder(t)).labCode, FIRST_CHOICE)
        const second = await allocatedOrder(t)
        assert.notEqual(second.labCode, FIRST_CHOICE)
        assert.equal(second.reasons[FIRST_CHOICE], 'AtCapacity')
        // A higher report does not lift the catalogue's limit: the lower of the two applies.
        await capacityCall(t, key, { jobsToday: 50 })
        assert.equal(json(await capacityCall(t, key)).capacity.jobsRemainingToday, 0)
        assert.equal((await allocatedOrder(t)).reasons[FIRST_CHOICE], 'AtCapacity')
      } finally {
        await t.close()
      }
    })

    // On the live queue: the waiting round comes back by itself, a job the queue starts after labRoomRetrySeconds.
    test('with every lab paused or full, an order waits (no failure) and is allocated once a lab has room; a quote is still priced', async () => {
      const logs = captureLogs()
      const t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pipeline: { downloadRetryBaseSeconds: 0.01, labRoomRetrySeconds: 0.2 },
        logger: createLogger({ level: 'info', format: 'json', destination: logs.stream }),
      })
      try {
        for (const lab of sampleCatalogue.labs) await t.app.services.labs.setPaused(lab.code, true, TEST_ACTOR)
        const quoted = await quotedLabs(t, 'live')
        assert.ok(quoted.labCode, 'the quote still has a plan, as if every lab were free')
        const orderId = await createPrintOrder(t)
        // Two waits seen: the round came back after its first wait and still found no room.
        await waitFor('the allocation waiting twice for a lab with room', () => {
          const waits = logs.entries().filter((entry) => entry.orderId === orderId && entry.result === 'waitingForRoom')
          return waits.length >= 2 || undefined
        })
        const waiting = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
        assert.equal(waiting.status.details.allocateProductionLocation, 'InProgress')
        assert.deepEqual(waiting.shipments, [])
        const estimate = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
        const item = estimate.allocations[0].items[0]
        assert.equal(estimate.allocations[0].basis, 'Estimate', 'no round has been recorded')
        assert.equal(
          item.labsExcluded.find((lab: { labCode: string }) => lab.labCode === FIRST_CHOICE).reason,
          'LabPaused',
        )

        await t.app.services.labs.setPaused(FIRST_CHOICE, false, TEST_ACTOR)
        const allocated = await waitFor('allocation once a lab has room', async () => {
          const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
          return order.shipments.length > 0 ? order : undefined
        })
        assert.equal(allocated.shipments[0].fulfillmentLocation.labCode, FIRST_CHOICE)
      } finally {
        await t.close()
      }
    })

    test("a Live order's change of shipping method re-plans only to labs taking work, and counts the job", async () => {
      const t = await startTestApp({ kind })
      try {
        const drive = pipelineDriver(t)
        const orderId = await createPrintOrder(t)
        const allocated = await drive.allocate(orderId)
        assert.equal(allocated.document.shipments.length, 1, 'allocated, not yet with its lab')
        const changeTo = (shippingMethod: string) =>
          t.live({
            method: 'POST',
            url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
            payload: { shippingMethod },
            headers: { 'content-type': 'application/json' },
          })

        for (const lab of sampleCatalogue.labs) await t.app.services.labs.setPaused(lab.code, true, TEST_ACTOR)
        const refused = json(await changeTo('Express'))
        assert.equal(refused.outcome, 'FailedToUpdate', 'every lab paused: no lab may take the re-planned shipment')
        assert.equal(refused.order.shippingMethod, allocated.document.shippingMethod)
        assert.deepEqual(refused.order.shipments, allocated.document.shipments)

        for (const lab of sampleCatalogue.labs) await t.app.services.labs.setPaused(lab.code, false, TEST_ACTOR)
        const labCode = allocated.document.shipments[0]?.fulfillmentLocation.labCode as string
        assert.equal(labCode, FIRST_CHOICE)
        await t.app.services.labs.setPaused(labCode, true, TEST_ACTOR)
        const changed = json(await changeTo('Express'))
        assert.equal(changed.outcome, 'Updated', JSON.stringify(changed))
        const newLab = changed.order.shipments[0].fulfillmentLocation.labCode as string
        assert.notEqual(newLab, labCode, 'the paused lab is left out (nl1 also prints it and ships it Express)')
        const routing = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/routing` })).routing
        const excluded = routing.allocations.at(-1).items[0].labsExcluded
        assert.equal(excluded.find((lab: { labCode: string }) => lab.labCode === labCode)?.reason, 'LabPaused')
        const newLabKey = (await t.app.services.labs.createLabKey(newLab, TEST_ACTOR)).key
        assert.equal(json(await capacityCall(t, newLabKey)).capacity.jobsGivenToday, 1, 'the re-planned job counts')
      } finally {
        await t.close()
      }
    })
  })
}
