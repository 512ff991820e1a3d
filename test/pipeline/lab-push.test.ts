// Jobs pushed to labs: a Live shipment submitted to a lab with a push endpoint is POSTed to it as a signed
// CloudEvent through the callbacks' delivery machinery (retried, recorded attempt by attempt, the same webhook-id
// on every attempt), verified here with the lab's own secret (and both secrets during a rotation's overlap); the
// job pushed is the job polling lists; merchants never see a lab's pushes; reminders are pushed once per job,
// reason and lab day, to a paused lab too. The orders move and each push's attempt is made by the step helper, as
// their jobs would (no live queue): what the queue adds to a delivery, its attempts' timing, is proved by the
// callbacks' own files.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ManualClock } from '../../src/adapters/clock.ts'
import { parseId } from '../../src/domain/ids.ts'
import { newSigningSecret } from '../../src/domain/webhook-signature.ts'
import { createLabPushesService } from '../../src/services/labs/lab-pushes.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, type ReceivedCallback, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const LAB_EVENT = 'com.printroute.lab.job'

/** The job's file links without their signature and expiry: a link is signed afresh each time it is sent. */
function withoutLinkSignatures(job: unknown): unknown {
  return JSON.parse(JSON.stringify(job).replace(/(\/files\/[^"?]*)\?[^"]*/g, '$1'))
}

for (const kind of databaseKinds)
  describe(`jobs pushed to labs (${kind})`, () => {
    let images: ImageServer
    let receiver: CallbackReceiver
    let t: TestApp
    let drive: PipelineDriver
    /** How the receiver answers, per lab: 200 unless a test says otherwise. */
    const answers = new Map<string, (callback: ReceivedCallback, index: number) => number>()
    const secrets = new Map<string, string>()
    const labKeys = new Map<string, string>()
    const pushesTo = (labCode: string) => receiver.received.filter((callback) => callback.url === `/lab/${labCode}`)
    const lab = (labCode: string, method: 'GET' | 'POST', url: string) =>
      t.app.live.inject({ method, url, headers: { 'x-api-key': labKeys.get(labCode) as string } })

    before(async () => {
      images = await startImageServer({}, await solidJpeg(800, 1200, { r: 200, g: 80, b: 40 }))
      receiver = await startCallbackReceiver({
        respond: (callback, index) => {
          const labCode = callback.url.slice('/lab/'.length)
          return answers.get(labCode)?.(callback, index) ?? 200
        },
      })
      t = await startTestApp({ kind, realClock: true })
      drive = pipelineDriver(t)
      // Every lab of the catalogue pushes to the receiver, under its own path: whichever the order goes to.
      for (const { code } of catalogue.labs) {
        const configured = await t.app.services.labPushes.configure(
          code,
          { pushUrl: receiver.url(`/lab/${code}`) },
          TEST_ACTOR,
        )
        assert.match(configured.secret ?? '', /^whsec_/, 'the first URL makes the secret, shown this once')
        secrets.set(code, configured.secret as string)
        labKeys.set(code, (await t.app.services.labs.createLabKey(code, TEST_ACTOR)).key)
      }
    })
    after(async () => {
      await t.close()
      await receiver.close()
      await images.close()
    })

    /**
     * A Live order of one item; its shipment once submitted to its lab (its pushes made, not yet attempted:
     * `drive.deliverCallbacks()` sends them).
     */
    async function submittedOrder(): Promise<{ orderId: string; shipmentId: string; labCode: string }> {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [
            { sku: 'GLOBAL-FAP-16x24', copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('a.jpg') }] },
          ],
        }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.ok(
        order.shipments[0]?.status === 'InProgress' || order.status.stage === 'InProgress',
        'the shipment submitted',
      )
      const shipment = order.shipments[0]
      const listed = json(await lab(shipment.fulfillmentLocation.labCode, 'GET', '/labs/v1/jobs')).jobs
      assert.ok(
        listed.some((job: any) => job.shipmentId === shipment.id),
        'the shipment with its lab',
      )
      return { orderId, shipmentId: shipment.id, labCode: shipment.fulfillmentLocation.labCode }
    }

    test('a submitted job is pushed, signed with the lab secret, exactly as polling lists it; merchants see none of it', async () => {
      const { orderId, shipmentId, labCode } = await submittedOrder()
      await drive.deliverCallbacks()
      const created = pushesTo(labCode).find(
        (push) => push.event.type === `${LAB_EVENT}.created` && push.event.data.job.shipmentId === shipmentId,
      )
      assert.ok(created, 'the created push')
      const verified = new Webhook(secrets.get(labCode) as string).verify(
        created.body,
        created.headers as Record<string, string>,
      ) as { data: { job: any } }
      assert.equal(verified.data.job.orderId, orderId)
      assert.equal(created.headers['webhook-id'], created.event.id)
      assert.equal(created.event.subject, shipmentId)
      assert.throws(
        () => new Webhook(newSigningSecret()).verify(created.body, created.headers as Record<string, string>),
        'another secret does not verify it',
      )
      assert.match(created.event.data.job.items[0].printFiles[0].url, /^http:\/\/.*\/files\/print-files\/.*\?/)
      assert.doesNotMatch(created.body, /printroute-file:/, 'file tokens are turned into links when sent')

      // The packing slip is made right after the submission: the lab hears of it too.
      const slip = pushesTo(labCode).find(
        (push) => push.event.type === `${LAB_EVENT}.changed` && push.event.data.job.shipmentId === shipmentId,
      )
      assert.ok(slip, 'the packingSlipAdded push')
      assert.equal(slip.event.data.change, 'packingSlipAdded')
      assert.ok(slip.event.data.job.packingSlipPdf?.url)
      const polled = json(await lab(labCode, 'GET', '/labs/v1/jobs')).jobs.find(
        (job: any) => job.shipmentId === shipmentId,
      )
      assert.deepEqual(
        withoutLinkSignatures(slip.event.data.job),
        withoutLinkSignatures(polled),
        'the pushed job is the polled job',
      )

      // The lab's own listing: its deliveries with their attempts, newest first.
      const pushes = await lab(labCode, 'GET', '/labs/v1/pushes?top=50')
      assert.equal(pushes.statusCode, 200, pushes.body)
      const listed = json(pushes).pushes.filter((push: any) => push.orderId === orderId)
      assert.deepEqual(
        listed.map((push: any) => push.type),
        [`${LAB_EVENT}.changed`, `${LAB_EVENT}.created`],
      )
      assert.equal(listed[1].status, 'delivered')
      assert.equal(listed[1].attempts[0].httpStatus, 200)
      // Merchants' webhook endpoints are not the lab's business: its deliveries do not name one.
      assert.equal(Object.hasOwn(listed[1], 'webhookId'), false)
      assert.equal(json(await lab(labCode, 'GET', '/labs/v1/pushes?top=0')).errorCode ?? 'refused', 'refused')
      assert.equal((await lab(labCode, 'GET', '/labs/v1/pushes?top=0')).statusCode, 400)
      const otherLab = catalogue.labs.find((candidate) => candidate.code !== labCode)?.code as string
      const malformed = await lab(labCode, 'POST', '/labs/v1/pushes/nope/redeliver')
      assert.equal(malformed.statusCode, 400, malformed.body)
      assert.equal(json(malformed).outcome, 'ValidationFailed')
      assert.ok(json(malformed).failures.id, 'the failure names the id')
      const foreign = await lab(otherLab, 'POST', `/labs/v1/pushes/${listed[1].id}/redeliver`)
      assert.equal(foreign.statusCode, 404, "a lab cannot redeliver another lab's push")

      // Merchants: neither the callbacks listing, nor the feed, nor redelivery shows a lab's push.
      const callbacks = json(await t.live({ method: 'GET', url: '/v4.0/callbacks?top=100' })).callbacks
      assert.equal(
        callbacks.filter((callback: any) => callback.type.startsWith(LAB_EVENT)).length,
        0,
        'no lab push among the merchant callbacks',
      )
      const feed = json(await t.live({ method: 'GET', url: '/v4.0/events?top=100' })).events
      assert.equal(feed.filter((event: any) => String(event.type).startsWith(LAB_EVENT)).length, 0, 'nor in the feed')
      const merchantRedeliver = await t.live({ method: 'POST', url: `/v4.0/callbacks/${listed[1].id}/redeliver` })
      assert.equal(merchantRedeliver.statusCode, 404, merchantRedeliver.body)
    })

    /**
     * The lab's push of `type` for the shipment (`change`: that change only), once received and verified. Each
     * round attempts the pushes still pending, as their jobs would; more than one round only while what makes the
     * push runs beside the test (a merchant's cancel waiting for the lab's answer).
     */
    const verifiedPush = async (labCode: string, shipmentId: string, type: string, change?: string) => {
      const push = await waitFor(`the ${type}${change ? ` (${change})` : ''} push of ${shipmentId}`, async () => {
        await drive.deliverCallbacks()
        return pushesTo(labCode).find(
          (candidate) =>
            candidate.event.type === `${LAB_EVENT}.${type}` &&
            candidate.event.subject === shipmentId &&
            (change === undefined || candidate.event.data.change === change),
        )
      })
      const verified = new Webhook(secrets.get(labCode) as string).verify(
        push.body,
        push.headers as Record<string, string>,
      ) as { data: { job: { shipmentId: string } } }
      assert.equal(verified.data.job.shipmentId, shipmentId)
      return push
    }

    test("a merchant's cancel of a submitted job: the signed cancellationRequested push arrives; the lab's answer cancels", async () => {
      const { orderId, shipmentId, labCode } = await submittedOrder()
      const cancelling = t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
      const push = await verifiedPush(labCode, shipmentId, 'cancellationRequested')
      assert.ok(push.event.data.job.cancellationRequested?.at, 'the pushed job carries the request')
      const answered = await t.app.live.inject({
        method: 'POST',
        url: `/labs/v1/jobs/${shipmentId}/cancellation`,
        headers: { 'x-api-key': labKeys.get(labCode) as string, 'content-type': 'application/json' },
        payload: { answer: 'cancelled' },
      })
      assert.equal(answered.statusCode, 200, answered.body)
      const response = await cancelling
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(json(response).outcome, 'Cancelled')
      const requests = pushesTo(labCode).filter(
        (candidate) =>
          candidate.event.type === `${LAB_EVENT}.cancellationRequested` && candidate.event.subject === shipmentId,
      )
      assert.equal(new Set(requests.map((request) => request.event.id)).size, 1, 'one request, one event')
    })

    test('a lab rejects one item of a two-item job: the signed itemsRemoved push, the item pushed to its new lab', async () => {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [0, 1].map((index) => ({
            sku: 'GLOBAL-FAP-8x8',
            copies: 1,
            sizing: 'fillPrintArea',
            assets: [{ url: images.url(`two-${index}.jpg`) }],
          })),
        }),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const [kept, given] = json(created).order.items.map((item: { id: string }) => item.id) as [string, string]
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const shipment = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order.shipments[0]
      const listed = json(await lab(shipment.fulfillmentLocation.labCode, 'GET', '/labs/v1/jobs')).jobs
      assert.ok(
        listed.some((job: any) => job.shipmentId === shipment.id),
        'the two-item job with its lab',
      )
      const labCode: string = shipment.fulfillmentLocation.labCode
      assert.equal(shipment.items.length, 2, 'one lab makes both prints')
      await verifiedPush(labCode, shipment.id, 'created')

      const rejected = await t.app.live.inject({
        method: 'POST',
        url: `/labs/v1/jobs/${shipment.id}/reject`,
        headers: { 'x-api-key': labKeys.get(labCode) as string, 'content-type': 'application/json' },
        payload: { reason: 'out of paper', items: [{ itemId: given, reason: 'OutOfStock' }] },
      })
      assert.equal(rejected.statusCode, 200, rejected.body)
      const removed = await verifiedPush(labCode, shipment.id, 'changed', 'itemsRemoved')
      assert.deepEqual(
        removed.event.data.job.items.filter((item: any) => item.state !== 'rejected').map((item: any) => item.itemId),
        [kept],
        'the job pushed keeps only the item still to make',
      )
      // The given-back item's allocation round, its print file and its submission to the new lab.
      const reallocated = await drive.allocate(orderId)
      await drive.render(orderId)
      const freshId = reallocated.document.shipments.find((candidate) => candidate.id !== shipment.id)?.id
      assert.ok(freshId, 'a new shipment for the given-back item')
      await drive.submit(orderId, freshId)
      const order = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      const moved = order.shipments.find((candidate: any) => candidate.items.some((item: any) => item.itemId === given))
      assert.ok(moved, 'the given-back item at a new lab')
      assert.notEqual(moved.fulfillmentLocation.labCode, labCode)
      await verifiedPush(moved.fulfillmentLocation.labCode, moved.id, 'created')
    })

    test('a receiver answering 500 then 200: retried with the same webhook-id, attempts recorded, the job still polled', async () => {
      let calls = 0
      let release: () => void = () => {}
      const polledMeanwhile = new Promise<void>((resolve) => {
        release = resolve
      })
      const failing = new Set<string>()
      for (const { code } of catalogue.labs) {
        answers.set(code, (callback) => {
          if (callback.event.type !== `${LAB_EVENT}.created`) return 200
          calls += 1
          if (!failing.has(callback.event.id)) {
            failing.add(callback.event.id)
            return 500
          }
          release()
          return 200
        })
      }
      try {
        const { shipmentId, labCode } = await submittedOrder()
        await drive.deliverCallbacks()
        // While the push is failing and retried, polling keeps listing the job.
        assert.ok(
          json(await lab(labCode, 'GET', '/labs/v1/jobs')).jobs.some((job: any) => job.shipmentId === shipmentId),
        )
        // The retry: the failed push's next attempt, as its job would make it when due.
        await drive.deliverCallbacks()
        await polledMeanwhile
        const attempts = pushesTo(labCode).filter(
          (push) => push.event.type === `${LAB_EVENT}.created` && push.event.data.job.shipmentId === shipmentId,
        )
        assert.equal(attempts.length, 2)
        assert.equal(attempts[0]?.headers['webhook-id'], attempts[1]?.headers['webhook-id'], 'the lab can de-duplicate')
        const push = json(await lab(labCode, 'GET', '/labs/v1/pushes?top=50')).pushes.find(
          (candidate: any) => candidate.type === `${LAB_EVENT}.created` && candidate.eventId === attempts[0]?.event.id,
        )
        assert.equal(push?.status, 'delivered', 'the push recorded as delivered')
        assert.deepEqual(
          push.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus, attempt.error]),
          [
            [1, 500, 'HTTP 500'],
            [2, 200, null],
          ],
        )
        assert.ok(calls >= 2)
      } finally {
        answers.clear()
      }
    })

    test('a rotated secret: a redelivery is signed with both the new and, for 24 hours, the old secret', async () => {
      const { orderId, shipmentId, labCode } = await submittedOrder()
      await drive.deliverCallbacks()
      const original = json(await lab(labCode, 'GET', '/labs/v1/pushes?top=50')).pushes.find(
        (push: any) => push.type === `${LAB_EVENT}.created` && push.orderId === orderId && push.status === 'delivered',
      )
      assert.ok(original, 'the created push')
      const before = await t.app.services.labPushes.show(labCode)
      const rotated = await t.app.services.labPushes.configure(labCode, { rotateSecret: true }, TEST_ACTOR)
      const oldSecret = secrets.get(labCode) as string
      const newSecret = rotated.secret as string
      assert.notEqual(newSecret, oldSecret)
      assert.ok(rotated.previousSecretExpiresAt, 'the old secret still signs')
      assert.notEqual(rotated.secretPrefix, before.secretPrefix)
      assert.ok(!JSON.stringify(before).includes(oldSecret), 'show never gives the secret itself')
      const again = await t.app.services.labPushes.configure(
        labCode,
        { pushUrl: receiver.url(`/lab/${labCode}`) },
        TEST_ACTOR,
      )
      assert.equal(again.secret, undefined, 'setting the URL again keeps the secret')
      secrets.set(labCode, newSecret)

      const redelivered = await lab(labCode, 'POST', `/labs/v1/pushes/${original.id}/redeliver`)
      assert.equal(redelivered.statusCode, 200, redelivered.body)
      assert.equal(json(redelivered).push.redeliveryOf, original.id)
      await drive.deliverCallbacks()
      const matching = pushesTo(labCode).filter((push) => push.event.id === original.eventId)
      assert.ok(matching.length >= 2, 'the redelivery')
      const received = matching.at(-1) as ReceivedCallback
      assert.equal(received.event.data.job.shipmentId, shipmentId)
      for (const secret of [oldSecret, newSecret]) {
        assert.doesNotThrow(() => new Webhook(secret).verify(received.body, received.headers as Record<string, string>))
      }
    })

    test('reminders: once per job, reason and lab day, to a paused lab too', async () => {
      const { shipmentId, labCode } = await submittedOrder()
      await t.app.services.labs.setPaused(labCode, true, TEST_ACTOR)
      try {
        // The reminders' own clock, five hours on: the job was not acknowledged.
        const clock = new ManualClock(new Date(Date.now() + 5 * 3600 * 1000))
        const reminders = createLabPushesService({
          db: t.database.db,
          clock,
          jobs: t.app.jobs,
          catalogue,
          fileTokens: { url: (environment, key) => t.app.services.fileLinks.token(environment, key) },
          vendor: 'printroute',
          source: () => 'http://127.0.0.1/labs/v1/jobs',
          newSigningSecret,
        })
        const pushed = await reminders.remind()
        assert.ok(pushed >= 1)
        await drive.deliverCallbacks()
        const reminder = pushesTo(labCode).find(
          (push) => push.event.type === `${LAB_EVENT}.reminder` && push.event.data.job.shipmentId === shipmentId,
        )
        assert.ok(reminder, 'the reminder pushed')
        assert.equal(reminder.event.data.reason, 'notAcknowledged')
        assert.doesNotThrow(() =>
          new Webhook(secrets.get(labCode) as string).verify(reminder.body, reminder.headers as Record<string, string>),
        )
        const sameDay = await reminders.remind()
        const forThisJob = () =>
          pushesTo(labCode).filter(
            (push) => push.event.type === `${LAB_EVENT}.reminder` && push.event.data.job.shipmentId === shipmentId,
          )
        assert.equal(sameDay, 0, 'not again the same lab day')
        clock.advanceSeconds(86_400)
        assert.ok((await reminders.remind()) >= 1, 'again the next day')
        await drive.deliverCallbacks()
        assert.ok(forThisJob().length >= 2, 'the next day reminder')
      } finally {
        await t.app.services.labs.setPaused(labCode, false, TEST_ACTOR)
      }
    })

    // Last: its pushes stay pending for a URL whose listener it closes, and a later test's deliverCallbacks would
    // attempt them again (a port another process may have taken by then).
    test('a receiver that never answers: the attempt records the timeout and the push stays pending for its retry', async () => {
      const silent = await startCallbackReceiver()
      const hanging = (await import('node:http')).createServer(() => {})
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
      const port = (hanging.address() as { port: number }).port
      try {
        for (const { code } of catalogue.labs) {
          await t.app.services.labPushes.configure(code, { pushUrl: `http://127.0.0.1:${port}/never` }, TEST_ACTOR)
        }
        const { labCode, shipmentId } = await submittedOrder()
        const createdPush = async () =>
          json(await lab(labCode, 'GET', '/labs/v1/pushes?top=50')).pushes.find(
            (candidate: any) => candidate.type === `${LAB_EVENT}.created` && candidate.url.endsWith('/never'),
          )
        const pending = await createdPush()
        assert.ok(pending, 'the created push to the silent receiver')
        // Its first attempt, as its job would make it (only this one: each attempt waits out the 15 s).
        await t.app.services.callbacks.deliver(parseId('cbd', pending.id) as number, 1)
        const push = await createdPush()
        assert.ok(push.attempts.length > 0, 'an attempt that timed out')
        assert.equal(push.attempts[0].httpStatus, null)
        assert.match(push.attempts[0].error, /^no answer from 127\.0\.0\.1:\d+ within 15 s$/)
        assert.equal(push.status, 'pending', 'retried on the schedule')
        assert.ok(
          json(await lab(labCode, 'GET', '/labs/v1/jobs')).jobs.some((job: any) => job.shipmentId === shipmentId),
          'polling still lists the job',
        )
        const show = await t.app.services.labPushes.show(labCode)
        assert.ok(show.health.lastAttemptAt)
        assert.equal(show.health.lastHttpStatus, null)
      } finally {
        for (const { code } of catalogue.labs) {
          await t.app.services.labPushes.configure(code, { pushUrl: receiver.url(`/lab/${code}`) }, TEST_ACTOR)
        }
        hanging.closeAllConnections()
        await new Promise((resolve) => hanging.close(resolve))
        await silent.close()
      }
    })
  })
