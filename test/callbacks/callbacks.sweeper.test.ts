// The callback sweeper on every configured database, with real workers and a real receiver: a delivery whose
// attempt job the queue gave up on (failed for good after its retries, or deleted after failing) is delivered
// once the sweeper has put the job back, exactly once; a job the queue is still retrying is left to it, and
// nothing is touched before the margin has passed. The give-up is made the way pg-boss leaves it, in its own
// table: the handler's repeated database errors themselves are not reproduced.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { parseId } from '../../src/domain/ids.ts'
import { deliveryJob } from '../../src/domain/jobs.ts'
import { STALLED_DELIVERY_MARGIN_SECONDS } from '../../src/services/callbacks.service.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { openTestDatabase } from '../support/databases.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

/** A held order cancelled at once: one event, one pending delivery to `callbackUrl` with its first job queued. */
async function cancelledOrder(t: TestApp, callbackUrl: string): Promise<{ orderId: string; deliveryId: string }> {
  const created = await t.sandbox({
    method: 'POST',
    url: '/v4.0/orders',
    payload: sampleOrder({ callbackUrl }),
    headers: { 'content-type': 'application/json' },
  })
  const orderId = json(created).order.id
  const cancelled = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` })
  assert.equal(json(cancelled).outcome, 'Cancelled', cancelled.body)
  const listed = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}` })).callbacks
  assert.equal(listed.length, 1)
  return { orderId, deliveryId: listed[0].id }
}

/** The pg-boss id of a delivery's first attempt job. */
function firstAttemptJobId(deliveryId: string): string {
  return jobIdFromKey(deliveryJob(parseId('cbd', deliveryId) as number, 1).key)
}

for (const kind of databaseKinds) {
  describe(`callback delivery sweeper (${kind})`, () => {
    test('attempts the queue gave up on are put back and delivered exactly once; live jobs are left alone', async () => {
      const receiver = await startCallbackReceiver()
      const database = await openTestDatabase(kind)
      const jobTable = `${database.jobSchema}.job`
      const jobState = async (id: string) =>
        (await database.db.query<{ state: string }>(`SELECT state FROM ${jobTable} WHERE id = $1`, [id]))[0]?.state
      // Without workers, so the jobs stay as this test leaves them.
      const first = await startTestApp({ kind, database, pauseWindowSeconds: 3600 })
      let second: TestApp | undefined
      try {
        const failed = await cancelledOrder(first, receiver.url('/failed'))
        const vanished = await cancelledOrder(first, receiver.url('/vanished'))
        const retrying = await cancelledOrder(first, receiver.url('/retrying'))
        const key = first.account.sandboxKey
        // What pg-boss leaves when the handler threw on every try: the job failed, its retries spent.
        await database.db.query(
          `UPDATE ${jobTable} SET state = 'failed', retry_count = retry_limit, completed_on = now(),
                  output = '{"message": "connection terminated unexpectedly"}'::jsonb
            WHERE id = $1`,
          [firstAttemptJobId(failed.deliveryId)],
        )
        // ... and some days later, when it deletes failed jobs.
        await database.db.query(`DELETE FROM ${jobTable} WHERE id = $1`, [firstAttemptJobId(vanished.deliveryId)])
        // Still being retried after an error: the queue's next try is an hour away.
        await database.db.query(
          `UPDATE ${jobTable} SET state = 'retry', retry_count = 3, start_after = now() + interval '1 hour'
            WHERE id = $1`,
          [firstAttemptJobId(retrying.deliveryId)],
        )
        await first.close()

        second = await startTestApp({ kind, database, workers: true })
        const sweep = second.app.services.callbacks.sweepStalledDeliveries
        const statusOf = async (deliveryId: string) => {
          const listed = json(
            await (second as TestApp).sandbox({ method: 'GET', url: `/v4.0/callbacks?status=delivered` }, key),
          ).callbacks as any[]
          return listed.some((delivery) => delivery.id === deliveryId) ? 'delivered' : 'not delivered'
        }

        // Before the margin, nothing: the attempts were due only just now.
        second.clock.advanceSeconds(STALLED_DELIVERY_MARGIN_SECONDS - 1)
        assert.equal(await sweep(), 0)
        assert.equal(await jobState(firstAttemptJobId(failed.deliveryId)), 'failed')
        assert.equal(await jobState(firstAttemptJobId(vanished.deliveryId)), undefined)

        second.clock.advanceSeconds(2)
        assert.equal(await sweep(), 2)
        for (const stalled of [failed, vanished]) {
          await waitFor(`${stalled.deliveryId} to be delivered`, async () =>
            (await statusOf(stalled.deliveryId)) === 'delivered' ? true : undefined,
          )
          // Under the same deterministic id: one job for the attempt, however often it was put back.
          await waitFor(`the job of ${stalled.deliveryId} to complete`, async () =>
            (await jobState(firstAttemptJobId(stalled.deliveryId))) === 'completed' ? true : undefined,
          )
        }
        assert.equal(await sweep(), 0, 'delivered: nothing more to put back')
        assert.equal(await jobState(firstAttemptJobId(retrying.deliveryId)), 'retry', 'a retrying job is left alone')
        const unsettled = await database.db.query<{ id: string }>(
          `SELECT id FROM ${jobTable} WHERE name = 'deliver-callback' AND state IN ('created', 'retry', 'active')`,
        )
        assert.deepEqual(
          unsettled.map((row) => row.id),
          [firstAttemptJobId(retrying.deliveryId)],
        )
        assert.deepEqual(
          receiver.received.map((callback) => callback.url).sort(),
          ['/failed', '/vanished'],
          'each delivered exactly once; the retrying one not yet',
        )
        const failedDelivery = json(
          await second.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${failed.orderId}` }, key),
        ).callbacks[0]
        assert.deepEqual(
          failedDelivery.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus]),
          [[1, 200]],
        )
      } finally {
        await second?.close()
        await receiver.close()
        await database.close()
      }
    })
  })
}
