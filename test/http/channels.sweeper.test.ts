// The storefront fulfilment sweeper (docs/channels.md#fulfilments) on every configured database, with real workers
// and the Shopify stand-in: a shipped shipment whose attempt job is gone (the process was killed, the queue gave up
// and deleted it) stays pending; once its attempt is overdue by the margin the sweeper puts the job back and the
// store is told exactly once; nothing is put back before the margin, nor once it is delivered.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { jobRequest } from '../../src/domain/jobs.ts'
import { STALLED_FULFILMENT_MARGIN_SECONDS } from '../../src/services/channel-fulfilments.service.ts'
import { shipShopifyStoreOrder, startChannelHarness } from '../support/channel-harness.ts'
import { openTestDatabase } from '../support/databases.ts'
import { startShopifyStandIn } from '../support/shopify-stand-in.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const SHOP = 'sweeper-test.myshopify.com'
const WEBHOOK_SECRET = 'shpss_sweeper_secret'
const CANVAS_LINE = '866550311766439020'

const databases = tier('sql')

for (const kind of databases) {
  describe(`channel fulfilment sweeper (${kind})`, () => {
    test('a pending fulfilment whose job is gone is put back after the margin and told to the store once', async () => {
      const database = await openTestDatabase(kind)
      const jobTable = `${database.jobSchema}.job`
      // Without workers, so the outbox's job stays as this test leaves it.
      const h = await startChannelHarness(kind, startShopifyStandIn, (store) => ({
        database,
        shopifyApiUrl: store.origin,
      }))
      let second: TestApp | undefined
      try {
        const channel = await h.createChannel({
          type: 'shopify',
          shopDomain: SHOP,
          adminAccessToken: 'shpat_sweeper',
          webhookSecret: WEBHOOK_SECRET,
        })
        for (const link of [
          {
            externalVariantId: '808950810',
            sku: 'GLOBAL-CAN-10x10',
            attributes: { wrap: 'Black' },
            assets: [{ printArea: 'default', url: h.images.url('canvas.jpg') }],
          },
          { externalSku: 'MUG-OWN', ignore: true },
        ]) {
          assert.equal((await h.post(`/v4.0/channels/${channel.id}/links`, link)).statusCode, 201)
        }
        const shop = { channelId: channel.id, shop: SHOP, webhookSecret: WEBHOOK_SECRET, lineItem: CANVAS_LINE }
        const { fulfilmentId } = await shipShopifyStoreOrder(h, { ...shop, externalOrderId: '7001', name: '#3001' })
        const firstJob = jobIdFromKey(jobRequest('fulfil-channel-shipment', { fulfilmentId, attempt: 1 }).key)
        // The process was killed and the queue gave up on the job, then deleted it.
        const deleted = await database.db.query(`DELETE FROM ${jobTable} WHERE id = $1 RETURNING id`, [firstJob])
        assert.equal(deleted.length, 1, 'the first attempt was queued with the shipment')
        await h.t.close()

        second = await startTestApp({ kind, database, workers: true, shopifyApiUrl: h.store.origin })
        const sweep = second.app.services.channelFulfilments.sweepStalled
        const state = async () =>
          (
            await database.db.query<{ status: string; attempts: number }>(
              'SELECT status, attempts FROM channel_fulfilments WHERE id = $1',
              [fulfilmentId],
            )
          )[0]
        second.clock.advanceSeconds(STALLED_FULFILMENT_MARGIN_SECONDS - 1)
        assert.equal(await sweep(), 0, 'not before the margin')
        assert.deepEqual({ ...(await state()) }, { status: 'pending', attempts: 0 })

        second.clock.advanceSeconds(2)
        assert.equal(await sweep(), 1)
        assert.equal(await sweep(), 0, 'a job put back and waiting is left to run')
        await waitFor('the fulfilment to be delivered', async () =>
          (await state())?.status === 'delivered' ? true : undefined,
        )
        await waitFor('its job to complete', async () => {
          const rows = await database.db.query<{ state: string }>(`SELECT state FROM ${jobTable} WHERE id = $1`, [
            firstJob,
          ])
          return rows[0]?.state === 'completed' ? true : undefined
        })
        assert.equal(h.store.fulfilments.length, 1, 'the store was told once')
        assert.equal((await state())?.attempts, 1)
        assert.equal(await sweep(), 0, 'delivered: nothing more to put back')
      } finally {
        await second?.close()
        await h.store.close()
        await h.images.close()
        await database.close()
      }
    })
  })
}
