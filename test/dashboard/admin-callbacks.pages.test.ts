// The console's callbacks health page (src/web/operator/callbacks.pages.ts) over the admin views service:
// merchants' endpoints (per account and environment) and labs' push endpoints whose newest attempt failed, with
// since when, how many deliveries failed, the last error and the last success; an endpoint leaves the list with its
// next delivered attempt. Real signed posts to a receiver on 127.0.0.1 on a controlled clock, every database.

import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { registerCallbacksPages } from '../../src/web/operator/callbacks.pages.ts'
import { type AdminPagesHarness, startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const HOUR = 3600

for (const kind of databaseKinds) {
  describe(`console callbacks health (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver
    let images: ImageServer
    let pages: AdminPagesHarness
    let other: TestAccount
    /** What the receiver answers next. */
    let answer = 200
    const start = new Date('2026-03-01T09:00:00.000Z')
    const hoursLater = (hours: number) => new Date(start.getTime() + hours * HOUR * 1000).toISOString()

    /** A signed test callback from the account's environment to the receiver, answered with `status`. */
    async function testCallback(environment: 'live' | 'sandbox', key: string, status: number) {
      answer = status
      const send = environment === 'live' ? t.live : t.sandbox
      const sent = await send(
        {
          method: 'POST',
          url: '/v4.0/callbacks/test',
          headers: { 'content-type': 'application/json' },
          payload: { url: receiver.url(`/${environment}`) },
        },
        key,
      )
      assert.equal(sent.statusCode, 200, sent.body)
    }

    before(async () => {
      receiver = await startCallbackReceiver({ respond: () => answer })
      images = await startImageServer()
      t = await startTestApp({ kind })
      other = await t.createAccount()
      pages = await startAdminPages((scope, console) =>
        registerCallbacksPages(scope, console, t.app.services.adminViews.callbacks),
      )
    })
    after(async () => {
      await pages.close()
      await t.close()
      await receiver.close()
      await images.close()
    })

    test('lists each failing merchant endpoint with since when, how many, the last error and the last success', async () => {
      const empty = await pages.request('/admin/callbacks')
      assert.equal(empty.status, 200)
      assert.match(empty.body, /No merchant’s callback endpoint is failing|No merchant's callback endpoint is failing/)

      await testCallback('live', t.account.liveKey, 500) // failing from the start
      await testCallback('sandbox', t.account.sandboxKey, 200) // the same account's Sandbox is fine
      await testCallback('live', other.liveKey, 200) // the other account delivered once...
      t.clock.advanceSeconds(HOUR)
      await testCallback('live', t.account.liveKey, 502)
      t.clock.advanceSeconds(HOUR)
      await testCallback('live', other.liveKey, 503) // ...then failed

      const { callbacks } = await t.app.services.adminViews.callbacks.listFailingEndpoints()
      assert.deepEqual(
        callbacks.map((endpoint) => ({ ...endpoint })),
        [
          {
            accountId: t.account.id,
            accountName: 'Test merchant',
            environment: 'live',
            url: receiver.url('/live'),
            failingSince: hoursLater(0),
            failedDeliveries: 2,
            lastError: 'HTTP 502: error 502',
            lastAttemptAt: hoursLater(1),
            lastSuccessAt: null,
          },
          {
            accountId: other.id,
            accountName: 'Test merchant',
            environment: 'live',
            url: receiver.url('/live'),
            failingSince: hoursLater(2),
            failedDeliveries: 1,
            lastError: 'HTTP 503: error 503',
            lastAttemptAt: hoursLater(2),
            lastSuccessAt: hoursLater(0),
          },
        ],
      )
      const page = await pages.request('/admin/callbacks')
      const row = page.body.slice(page.body.indexOf(`<tr data-account="${t.account.id}" data-environment="live">`))
      assert.match(row, /<td class="number" data-failed-deliveries data-label="Failed deliveries">2<\/td>/)
      assert.match(row, /<td data-last-error data-label="Last error">HTTP 502: error 502 /)
      assert.doesNotMatch(page.body, new RegExp(`data-account="${t.account.id}" data-environment="sandbox"`))
    })

    test('an endpoint leaves the list with its next delivered attempt', async () => {
      t.clock.advanceSeconds(HOUR)
      await testCallback('live', t.account.liveKey, 200)
      const { callbacks } = await t.app.services.adminViews.callbacks.listFailingEndpoints()
      assert.deepEqual(
        callbacks.map((endpoint) => endpoint.accountId),
        [other.id],
      )
    })

    test('a lab’s failing push endpoint is listed with the labs', async () => {
      const labCode = 'uk6'
      await t.app.services.labPushes.configure(labCode, { pushUrl: receiver.url('/lab') }, TEST_ACTOR)
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
      })
      const orderId = json(created).order.id as string
      const driver = pipelineDriver(t)
      await driver.allocate(orderId)
      await driver.render(orderId)
      await driver.submit(orderId)
      const { pushes } = await t.app.services.labPushes.listPushes(labCode, {})
      assert.ok(pushes.length > 0, 'submitting the job pushed it to the lab')
      answer = 500
      // The queue's worker is off: the attempt runs as its job would.
      for (const push of pushes) await t.app.services.callbacks.deliver(parseId('cbd', push.id) as number, 1)
      const { labs } = await t.app.services.adminViews.callbacks.listFailingEndpoints()
      assert.equal(labs.length, 1)
      assert.equal(labs[0]?.labCode, labCode)
      assert.equal(labs[0]?.url, receiver.url('/lab'))
      assert.equal(labs[0]?.failedDeliveries, pushes.length)
      assert.equal(labs[0]?.lastError, 'HTTP 500: error 500')
      const page = await pages.request('/admin/callbacks')
      assert.match(page.body, new RegExp(`<tr data-lab="${labCode}"><th scope="row"><code>${labCode}</code></th>`))

      // The labs page reads the same: the lab's push endpoint is failing.
      const lab = (await t.app.services.adminViews.labs.listLabs()).find((entry) => entry.code === labCode)
      assert.equal(lab?.push?.url, receiver.url('/lab'))
      assert.equal(lab?.push?.failingSince, t.clock.now().toISOString())
      assert.equal(lab?.push?.lastError, 'HTTP 500: error 500')
    })
  })
}
