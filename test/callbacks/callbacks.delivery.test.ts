// Callback delivery with real workers and a real receiver on 127.0.0.1: retries until a 2xx with the same
// event id on every attempt, signatures that verify with the standardwebhooks package, delivery across a
// worker restart while the receiver is down, and private addresses refused without --allow-private-urls.
// The retry schedule is shortened (the real one runs for 27 hours); everything else is as in production.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { openTestDatabase } from '../support/databases.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const SHORT_SCHEDULE = [0, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]

/** A held order (the account has a long pause window), cancelled: one stage-change event. */
async function cancelledOrder(t: TestApp, callbackUrl: string | null, key?: string): Promise<string> {
  const created = json(
    await t.sandbox(
      {
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ callbackUrl }),
        headers: { 'content-type': 'application/json' },
      },
      key,
    ),
  )
  assert.equal(created.outcome, 'OnHold')
  const cancelled = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` }, key)
  assert.equal(json(cancelled).outcome, 'Cancelled')
  return created.order.id
}

async function callbacksOf(t: TestApp, orderId: string, key?: string): Promise<any[]> {
  const response = await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` }, key)
  assert.equal(response.statusCode, 200, response.body)
  return json(response).callbacks
}

/** Changes the Sandbox settings (the orders here are Sandbox orders, signed with Sandbox's secret). */
async function patchSettings(t: TestApp, body: Record<string, unknown>, key?: string) {
  const response = await t.sandbox(
    { method: 'PATCH', url: '/v4.0/account/settings', payload: body, headers: { 'content-type': 'application/json' } },
    key,
  )
  assert.equal(response.statusCode, 200, response.body)
  return json(response).settings
}

for (const kind of databaseKinds) {
  describe(`callback delivery (${kind})`, () => {
    test('500 three times, then 200: delivered exactly once more, same event id, every attempt recorded', async () => {
      const receiver = await startCallbackReceiver({ respond: (_callback, index) => (index < 3 ? 500 : 200) })
      const t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pauseWindowSeconds: 3600,
        callbackRetryScheduleSeconds: SHORT_SCHEDULE,
      })
      try {
        const { signingSecret } = await patchSettings(t, {})
        // The order's own URL wins over the account's, and is called exactly as given (query and all).
        await patchSettings(t, { callbackUrl: receiver.url('/account-wide') })
        const orderId = await cancelledOrder(t, receiver.url('/hook?token=a%2Fb+c&x=1'))
        const [delivery] = await waitFor('the delivery to succeed', async () => {
          const list = await callbacksOf(t, orderId)
          return list[0]?.status === 'delivered' ? list : undefined
        })
        // Long enough for a fifth attempt, were one (wrongly) scheduled.
        await new Promise((resolve) => setTimeout(resolve, 1200))
        assert.equal(receiver.received.length, 4)
        assert.deepEqual(
          receiver.received.map((callback) => callback.url),
          Array(4).fill('/hook?token=a%2Fb+c&x=1'),
        )
        const eventId = receiver.received[0]?.event.id
        assert.match(eventId, /^evt_\d+$/)
        for (const callback of receiver.received) {
          assert.equal(callback.event.id, eventId)
          assert.equal(callback.headers['webhook-id'], eventId)
          assert.equal(callback.headers['content-type'], 'application/json')
          assert.equal(callback.event.type, 'com.printroute.order.status.stage.changed#Cancelled')
          assert.equal(callback.event.subject, orderId)
          // Each attempt is signed afresh (its own timestamp) and verifies.
          assert.equal(
            (
              new Webhook(signingSecret).verify(callback.body, callback.headers as Record<string, string>) as {
                id: string
              }
            ).id,
            eventId,
          )
        }
        const final = (await callbacksOf(t, orderId))[0]
        assert.equal(final.id, delivery.id)
        assert.equal(final.eventId, eventId)
        assert.equal(final.url, receiver.url('/hook?token=a%2Fb+c&x=1'))
        assert.deepEqual(
          final.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus, attempt.responseSnippet]),
          [
            [1, 500, 'error 500'],
            [2, 500, 'error 500'],
            [3, 500, 'error 500'],
            [4, 200, 'thanks'],
          ],
        )
        assert.equal(final.nextAttemptAt, null)
        for (const attempt of final.attempts) assert.ok(attempt.latencyMs >= 0 && attempt.latencyMs < 15_000)
        assert.equal(final.attempts[0].error, 'HTTP 500')
        assert.equal(final.attempts[3].error, null)
      } finally {
        await t.close()
        await receiver.close()
      }
    })

    test('a receiver that never answers 2xx: the delivery is marked failed after the last attempt and kept', async () => {
      const receiver = await startCallbackReceiver({ respond: () => 503 })
      const t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pauseWindowSeconds: 3600,
        callbackRetryScheduleSeconds: [0, 0.2, 0.2],
      })
      try {
        const orderId = await cancelledOrder(t, receiver.url())
        const [failed] = await waitFor('the delivery to fail', async () => {
          const list = await callbacksOf(t, orderId)
          return list[0]?.status === 'failed' ? list : undefined
        })
        assert.deepEqual(
          failed.attempts.map((attempt: any) => attempt.httpStatus),
          [503, 503, 503],
        )
        assert.equal(receiver.received.length, 3)
        const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks?status=failed' })).callbacks
        assert.deepEqual(
          listed.map((entry: any) => entry.id),
          [failed.id],
        )

        // Redelivery sends the same event again as a new delivery.
        const redelivered = await t.sandbox({ method: 'POST', url: `/v4.0/callbacks/${failed.id}/redeliver` })
        assert.equal(redelivered.statusCode, 200, redelivered.body)
        const created = json(redelivered).callback
        assert.equal(json(redelivered).outcome, 'Created')
        assert.equal(created.redeliveryOf, failed.id)
        assert.equal(created.eventId, failed.eventId)
        assert.notEqual(created.id, failed.id)
        await waitFor('the redelivery to be attempted', async () => (receiver.received.length >= 4 ? true : undefined))
        assert.equal(receiver.received[3]?.event.id, failed.eventId)
      } finally {
        await t.close()
        await receiver.close()
      }
    })

    test('receiver down while the workers restart: delivered once it is back, by the new workers', async () => {
      // Take a free port, then leave it closed: the receiver is down.
      const probe = await startCallbackReceiver()
      const port = probe.port
      await probe.close()
      const database = await openTestDatabase(kind)
      const schedule = [0, 0.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5]
      const common = {
        kind,
        database,
        workers: true,
        realClock: true,
        pauseWindowSeconds: 3600,
        callbackRetryScheduleSeconds: schedule,
      }
      const first = await startTestApp(common)
      let receiver: Awaited<ReturnType<typeof startCallbackReceiver>> | undefined
      let second: TestApp | undefined
      try {
        const orderId = await cancelledOrder(first, `http://127.0.0.1:${port}/after-restart`)
        await waitFor('a failed attempt', async () => {
          const list = await callbacksOf(first, orderId)
          return list[0]?.attempts.length >= 1 ? true : undefined
        })
        await first.close()
        receiver = await startCallbackReceiver({ port })
        second = await startTestApp(common)
        const key = first.account.sandboxKey
        const secondApp = second
        const [delivered] = await waitFor('delivery after the restart', async () => {
          const list = await callbacksOf(secondApp, orderId, key)
          return list[0]?.status === 'delivered' ? list : undefined
        })
        assert.equal(receiver.received.length, 1)
        assert.equal(receiver.received[0]?.event.id, delivered.eventId)
        const statuses = delivered.attempts.map((attempt: any) => attempt.httpStatus)
        assert.equal(statuses.at(-1), 200)
        assert.ok(statuses.length >= 2)
        for (const attempt of delivered.attempts.slice(0, -1)) {
          assert.equal(attempt.httpStatus, null)
          assert.match(attempt.error, /connection refused|ECONNREFUSED/)
        }
      } finally {
        await second?.close()
        await receiver?.close()
        await database.close()
      }
    })

    test('a callback URL on a private address is refused without --allow-private-urls, with the reason kept', async () => {
      const receiver = await startCallbackReceiver()
      const t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pauseWindowSeconds: 3600,
        allowPrivateUrls: false,
        callbackRetryScheduleSeconds: SHORT_SCHEDULE,
      })
      try {
        await patchSettings(t, { callbackUrl: receiver.url('/private') })
        const orderId = await cancelledOrder(t, null)
        const [failed] = await waitFor('the delivery to fail', async () => {
          const list = await callbacksOf(t, orderId)
          return list[0]?.status === 'failed' ? list : undefined
        })
        assert.equal(failed.url, receiver.url('/private'), "the account's URL is used when the order has none")
        assert.equal(failed.attempts.length, 1, 'a refused address is not retried')
        assert.equal(failed.attempts[0].httpStatus, null)
        assert.match(failed.attempts[0].error, /127\.0\.0\.1 is a loopback address/)
        assert.match(failed.attempts[0].error, /--allow-private-urls/, 'says how to allow it')
        assert.match(failed.attempts[0].error, /printroute listen --forward-to/, 'and how to receive it locally')
        assert.equal(receiver.received.length, 0)
        // The service is still fine.
        assert.equal((await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).statusCode, 200)
      } finally {
        await t.close()
        await receiver.close()
      }
    })
  })
}
