// A Shopify channel's webhooks subscribed by printroute itself (docs/channels.md, step 5), against the Shopify
// stand-in: the create queues a run that makes the three topics once for the channel's webhookUrl on the Admin API's
// version path with the channel's token, a second run makes nothing, a subscription to another address is left alone
// and reported, a store answering 500 leaves the channel made and its webhooks failed, tried again by itself on the
// retry schedule (a refusal is not) or by "subscribe again", and new secrets queue a new run. Each run is the job's
// handler, called with the queued job's own payload as the queue would; the test clock stands still, so a retry's
// due time is checked, not waited for.
import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { parseId } from '../../src/domain/ids.ts'
import { jobRequest } from '../../src/domain/jobs.ts'
import { type ChannelHarness, startChannelHarness } from '../support/channel-harness.ts'
import { type ShopifyStandIn, startShopifyStandIn } from '../support/shopify-stand-in.ts'
import { json } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const TOKEN = 'shpat_subscriptions_token_0123'
const TOPICS = ['ORDERS_CREATE', 'ORDERS_CANCELLED', 'APP_UNINSTALLED']

const databases = tier('http')

for (const kind of databases) {
  describe(`Shopify channel webhook subscriptions (${kind})`, () => {
    let h: ChannelHarness<ShopifyStandIn>
    let shop = 0

    before(async () => {
      h = await startChannelHarness(kind, startShopifyStandIn, (store) => ({ shopifyApiUrl: store.origin }))
    })
    after(() => h.close())
    // The stand-in is one app on every shop: each test starts with an app that has no subscriptions.
    beforeEach(() => {
      h.store.webhookSubscriptions.length = 0
      h.store.subscriptionCreates.length = 0
    })

    const createChannel = () =>
      h.createChannel({
        type: 'shopify',
        shopDomain: `subscriptions-${++shop}.myshopify.com`,
        adminAccessToken: TOKEN,
        webhookSecret: 'shpss_subscriptions',
      })
    /** Runs the channel's queued subscription job, as the queue would; the job's key. */
    const runJob = async (channelId: string): Promise<string> => {
      const id = parseId('chn', channelId) as number
      const [row] = await h.t.database.db.query<{ attempt: number }>(
        `SELECT (webhook_subscription->>'attempt')::int AS attempt FROM channels WHERE id = $1`,
        [id],
      )
      const attempt = Number(row?.attempt)
      await h.t.app.services.channels.subscribeWebhooks(id, attempt)
      return jobRequest('subscribe-channel-webhooks', { channelId: id, attempt }).key
    }
    const read = async (channelId: string) =>
      json(await h.t.live({ method: 'GET', url: `/v4.0/channels/${channelId}` })).channel
    const subscribeAgain = (channelId: string) => h.post(`/v4.0/channels/${channelId}/webhooks/subscribe`)
    const jobExists = async (key: string) =>
      (await h.t.database.db.query(`SELECT id FROM ${h.t.database.jobSchema}.job WHERE id = $1`, [jobIdFromKey(key)]))
        .length === 1
    /**
     * The automatic retry `retry` of the channel's current run, as queued: its payload. (Its due time is the
     * channel's nextAttemptAt: the queue schedules by the real time, so a test clock's past instant is due at once.)
     */
    const queuedRetry = async (channelId: string, retry: number) => {
      const id = parseId('chn', channelId) as number
      const [row] = await h.t.database.db.query<{ attempt: number }>(
        `SELECT (webhook_subscription->>'attempt')::int AS attempt FROM channels WHERE id = $1`,
        [id],
      )
      const key = jobRequest('subscribe-channel-webhooks', { channelId: id, attempt: Number(row?.attempt), retry }).key
      const [job] = await h.t.database.db.query<{ data: { channelId: number; attempt: number; retry: number } }>(
        `SELECT data FROM ${h.t.database.jobSchema}.job WHERE id = $1`,
        [jobIdFromKey(key)],
      )
      return job
    }
    /** Runs a queued retry with its own payload, as the queue would when it is due. */
    const runRetry = (job: { data: { channelId: number; attempt: number; retry: number } }) =>
      h.t.app.services.channels.subscribeWebhooks(job.data.channelId, job.data.attempt, job.data.retry)
    const inSeconds = (seconds: number) => new Date(h.t.clock.now().getTime() + seconds * 1000).toISOString()

    test('a new channel subscribes the three topics once, to its webhookUrl, on 2026-01, with its token', async () => {
      const channel = await createChannel()
      assert.equal(channel.webhooks.state, 'pending')
      assert.equal(channel.webhooks.checkedAt, null)
      assert.equal(h.store.subscriptionCreates.length, 0, 'nothing is asked of the store during the create')
      const key = await runJob(channel.id)
      assert.ok(await jobExists(key), 'the run was queued with the channel')
      assert.deepEqual(
        h.store.subscriptionCreates.map((made) => made.topic),
        TOPICS,
      )
      for (const made of h.store.subscriptionCreates) {
        assert.equal(made.uri, channel.webhookUrl)
        assert.equal(made.path, '/admin/api/2026-01/graphql.json')
        assert.equal(made.accessToken, TOKEN)
      }
      const subscribed = await read(channel.id)
      assert.equal(subscribed.webhooks.state, 'subscribed')
      assert.deepEqual(subscribed.webhooks.topics, TOPICS)
      assert.equal(subscribed.webhooks.reason, undefined)
      assert.ok(subscribed.webhooks.checkedAt)

      const again = await subscribeAgain(channel.id)
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(json(again).channel.webhooks.state, 'pending')
      await runJob(channel.id)
      assert.equal(h.store.subscriptionCreates.length, 3, 'a second run creates nothing')
      assert.equal((await read(channel.id)).webhooks.state, 'subscribed')
    })

    test('a topic subscribed to another address is left alone and reported; only the missing ones are made', async () => {
      h.store.webhookSubscriptions.push({
        id: 'gid://shopify/WebhookSubscription/900',
        topic: 'ORDERS_CREATE',
        uri: 'https://old-printroute.invalid/channels/v1/chn_1/shopify',
      })
      const channel = await createChannel()
      h.store.webhookSubscriptions.push({
        id: 'gid://shopify/WebhookSubscription/901',
        topic: 'APP_UNINSTALLED',
        uri: channel.webhookUrl,
      })
      await runJob(channel.id)
      assert.deepEqual(
        h.store.subscriptionCreates.map((made) => made.topic),
        ['ORDERS_CREATE', 'ORDERS_CANCELLED'],
      )
      assert.equal(h.store.webhookSubscriptions.length, 4, 'the other address is kept')
      const { webhooks } = await read(channel.id)
      assert.equal(webhooks.state, 'subscribed')
      assert.deepEqual(webhooks.topics, TOPICS)
      assert.deepEqual(webhooks.elsewhere, [
        { topic: 'ORDERS_CREATE', uri: 'https://old-printroute.invalid/channels/v1/chn_1/shopify' },
      ])
      assert.match(webhooks.reason, /ORDERS_CREATE to https:\/\/old-printroute\.invalid/)
    })

    test('a store answering 500 leaves the channel made, its webhooks failed with the reason; subscribe again tries at once', async () => {
      h.store.failNextSubscriptions(500)
      const channel = await createChannel()
      await runJob(channel.id)
      const failed = await read(channel.id)
      assert.equal(failed.status, 'active')
      assert.equal(failed.webhooks.state, 'failed')
      assert.match(failed.webhooks.reason, /HTTP 500/)
      assert.deepEqual(failed.webhooks.topics, [])
      assert.equal(h.store.subscriptionCreates.length, 0)

      const again = await subscribeAgain(channel.id)
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(json(again).channel.webhooks.state, 'pending')
      await runJob(channel.id)
      const subscribed = await read(channel.id)
      assert.equal(subscribed.webhooks.state, 'subscribed')
      assert.equal(subscribed.webhooks.reason, undefined)
      assert.equal(h.store.subscriptionCreates.length, 3)
    })

    test('a store answering 500 once: failed meanwhile, tried again a minute later by itself, nothing made twice', async () => {
      h.store.failNextSubscriptions(500)
      const channel = await createChannel()
      await runJob(channel.id)
      const failed = await read(channel.id)
      assert.equal(failed.webhooks.state, 'failed', 'the page tells the truth meanwhile')
      assert.match(failed.webhooks.reason, /HTTP 500/)
      assert.equal(failed.webhooks.nextAttemptAt, inSeconds(60))
      const retry = await queuedRetry(channel.id, 1)
      assert.deepEqual(retry?.data, { channelId: parseId('chn', channel.id), attempt: 1, retry: 1 }, 'queued')

      await runRetry(retry)
      const subscribed = await read(channel.id)
      assert.equal(subscribed.webhooks.state, 'subscribed')
      assert.deepEqual(subscribed.webhooks.topics, TOPICS)
      assert.equal(subscribed.webhooks.reason, undefined)
      assert.equal(subscribed.webhooks.nextAttemptAt, undefined)
      assert.deepEqual(
        h.store.subscriptionCreates.map((made) => made.topic),
        TOPICS,
      )
      const asked = h.store.answered.length
      await runJob(channel.id)
      assert.equal(h.store.answered.length, asked, 'the first try, already recorded, is not made again')
      await runRetry(retry)
      assert.equal(h.store.subscriptionCreates.length, 3, 'the retry run again (a crash) makes nothing twice')
      assert.equal(await queuedRetry(channel.id, 2), undefined, 'no further retry')
    })

    test("a 429's Retry-After longer than the schedule is honoured", async () => {
      h.store.failNextSubscriptions({ status: 429, retryAfter: '900' })
      const channel = await createChannel()
      await runJob(channel.id)
      const { webhooks } = await read(channel.id)
      assert.equal(webhooks.state, 'failed')
      assert.match(webhooks.reason, /HTTP 429/)
      assert.equal(webhooks.nextAttemptAt, inSeconds(900))
      assert.ok(await queuedRetry(channel.id, 1), 'the retry was queued')
    })

    test('a refusal (401) is not tried again', async () => {
      h.store.failNextSubscriptions(401)
      const channel = await createChannel()
      await runJob(channel.id)
      const { webhooks } = await read(channel.id)
      assert.equal(webhooks.state, 'failed')
      assert.match(webhooks.reason, /HTTP 401/)
      assert.equal(webhooks.nextAttemptAt, undefined)
      assert.equal(await queuedRetry(channel.id, 1), undefined, 'no retry queued')
      const asked = h.store.answered.length
      await h.t.app.services.channels.subscribeWebhooks(parseId('chn', channel.id) as number, 1, 1)
      assert.equal(h.store.answered.length, asked, 'a retry nobody queued does nothing')
    })

    test('after the last scheduled retry fails, it stays failed until subscribed again', async () => {
      h.store.failNextSubscriptions(500, 503, 500, 500, 500)
      const channel = await createChannel()
      await runJob(channel.id)
      const delays = [60, 300, 1800, 7200]
      for (const [index, delay] of delays.entries()) {
        assert.equal((await read(channel.id)).webhooks.nextAttemptAt, inSeconds(delay))
        const retry = await queuedRetry(channel.id, index + 1)
        assert.ok(retry, `retry ${index + 1} was queued`)
        await runRetry(retry)
      }
      const { webhooks } = await read(channel.id)
      assert.equal(webhooks.state, 'failed')
      assert.match(webhooks.reason, /HTTP 500/)
      assert.equal(webhooks.nextAttemptAt, undefined)
      assert.equal(await queuedRetry(channel.id, 5), undefined, 'four retries, then no more')
      assert.deepEqual(h.store.answered.slice(-5), [500, 503, 500, 500, 500])
      assert.equal(h.store.subscriptionCreates.length, 0)

      await subscribeAgain(channel.id)
      await runJob(channel.id)
      assert.equal((await read(channel.id)).webhooks.state, 'subscribed')
      assert.equal(h.store.subscriptionCreates.length, 3)
    })

    test('a retry queued before "subscribe again" does nothing', async () => {
      h.store.failNextSubscriptions(500)
      const channel = await createChannel()
      await runJob(channel.id)
      const retry = await queuedRetry(channel.id, 1)
      assert.ok(retry)
      const again = await subscribeAgain(channel.id)
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(json(again).channel.webhooks.nextAttemptAt, undefined)
      const asked = h.store.answered.length
      await runRetry(retry)
      assert.equal(h.store.answered.length, asked, 'the old series was replaced: the store was not asked')
      assert.equal((await read(channel.id)).webhooks.state, 'pending')
      await runJob(channel.id)
      assert.equal((await read(channel.id)).webhooks.state, 'subscribed')
      assert.equal(h.store.subscriptionCreates.length, 3)
    })

    test('a run replaced by a newer one does nothing; new secrets queue a new run', async () => {
      const channel = await createChannel()
      const id = parseId('chn', channel.id) as number
      await subscribeAgain(channel.id)
      const asked = h.store.answered.length
      await h.t.app.services.channels.subscribeWebhooks(id, 1)
      assert.equal(h.store.answered.length, asked, 'the first run was replaced: the store was not asked')
      await runJob(channel.id)
      assert.equal(h.store.subscriptionCreates.length, 3)

      const patched = await h.send('PATCH', `/v4.0/channels/${channel.id}`, { adminAccessToken: `${TOKEN}_new` })
      assert.equal(patched.statusCode, 200, patched.body)
      assert.equal(json(patched).channel.webhooks.state, 'pending')
      await runJob(channel.id)
      assert.equal(h.store.subscriptionCreates.length, 3, 'the subscriptions were there: nothing made twice')
      assert.equal((await read(channel.id)).webhooks.state, 'subscribed')
      const renamed = await h.send('PATCH', `/v4.0/channels/${channel.id}`, { name: 'Renamed' })
      assert.equal(json(renamed).channel.webhooks.state, 'subscribed', 'a new name queues nothing')
    })

    test('subscribe again: an unknown channel is 404, a body is refused', async () => {
      const missing = await subscribeAgain('chn_999999')
      assert.equal(missing.statusCode, 404, missing.body)
      const channel = await createChannel()
      const withBody = await h.post(`/v4.0/channels/${channel.id}/webhooks/subscribe`, { force: true })
      assert.equal(withBody.statusCode, 400, withBody.body)
    })
  })
}
