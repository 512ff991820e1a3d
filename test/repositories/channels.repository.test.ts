// The SQL of storefront channels (repositories/channels.repository.ts, migration 0043) on every configured database:
// one live channel per store and environment (a deleted one frees it), channels read only in their scope, a link
// replaced by a new one of the same variant, each store order and each webhook delivery id kept once, the pending
// listing, the store's cancellations (latest first), secrets sealed under another key counted and shown failing once,
// the fulfilment outbox's one row per shipment with its attempts, and retention of mapped webhooks only.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { StorefrontOrder } from '../../src/domain/storefronts.ts'
import {
  countChannelsSealedUnderOtherKeys,
  deleteOldWebhooks,
  findChannel,
  findChannelOrder,
  findFulfilment,
  insertChannel,
  insertChannelOrder,
  insertFulfilment,
  insertFulfilmentAttempt,
  insertWebhook,
  listCancelledOrders,
  listChannelsAcrossAccounts,
  listFulfilments,
  listLinks,
  listOverdueFulfilments,
  listPendingOrders,
  markChannelDeleted,
  markChannelSecretsUnreadable,
  markWebhookProcessed,
  updateChannel,
  updateChannelOrder,
  updateFulfilment,
  upsertLink,
} from '../../src/repositories/channels.repository.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const order = (id: string): StorefrontOrder => ({
  externalOrderId: id,
  name: `#${id}`,
  lineItems: [{ externalLineItemId: '1', externalVariantId: '10', externalSku: 'A', title: 'A', quantity: 1 }],
  recipient: null,
})

const databases = tier('sql')

for (const kind of databases) {
  describe(`channels repository (${kind})`, () => {
    let t: TestApp
    let accountId: number
    before(async () => {
      t = await startTestApp({ kind })
      accountId = parseId('acc', t.account.id) as number
    })
    after(async () => {
      await t.close()
    })
    const newChannel = (store: string) =>
      insertChannel(t.database.db, {
        scope: { accountId, environment: 'sandbox' },
        type: 'shopify',
        store,
        name: null,
        credentialsEncrypted: 'v1.x.y',
        webhookSecretEncrypted: 'v1.x.z',
        at: t.clock.now(),
      })

    test('one live channel per store (case-insensitive) and environment; a deleted one frees the store', async () => {
      const first = await newChannel('a.myshopify.com')
      assert.ok(first)
      assert.equal(await newChannel('A.myshopify.com'), undefined)
      assert.equal(
        await findChannel(t.database.db, first.id, { accountId: accountId + 1000, environment: 'sandbox' }),
        undefined,
      )
      assert.equal(await findChannel(t.database.db, first.id, { accountId, environment: 'live' }), undefined)
      assert.equal((await findChannel(t.database.db, first.id, { accountId, environment: 'sandbox' }))?.id, first.id)
      await markChannelDeleted(t.database.db, first.id, t.clock.now())
      assert.equal(await findChannel(t.database.db, first.id), undefined)
      assert.ok(await newChannel('a.myshopify.com'))
    })

    test('secrets sealed under another key: counted per fingerprint, and the channel marked failing once', async () => {
      const channel = await newChannel('sealed-elsewhere.myshopify.com')
      assert.ok(channel)
      const counted = await countChannelsSealedUnderOtherKeys(t.database.db, 'current1')
      assert.ok(counted.some((row) => row.fingerprint === 'x' && row.channels >= 1))
      const change = { reason: 'enter them again', currentFingerprint: 'current1', at: t.clock.now() }
      assert.equal(await markChannelSecretsUnreadable(t.database.db, channel.id, change), true)
      assert.equal(await markChannelSecretsUnreadable(t.database.db, channel.id, change), false, 'once')
      const marked = await findChannel(t.database.db, channel.id)
      assert.equal(marked?.status, 'failing')
      assert.equal(marked?.statusReason, 'enter them again')
      // Sealed under the current key by now (a PATCH in between): left alone.
      await updateChannel(t.database.db, channel.id, {
        credentialsEncrypted: 'v1.current1.a',
        webhookSecretEncrypted: 'v1.current1.b',
        status: 'active',
        statusReason: null,
        at: t.clock.now(),
      })
      assert.equal(await markChannelSecretsUnreadable(t.database.db, channel.id, change), false)
      assert.equal((await findChannel(t.database.db, channel.id))?.status, 'active')
      const after = await countChannelsSealedUnderOtherKeys(t.database.db, 'current1')
      assert.equal(
        after.reduce((sum, row) => sum + row.channels, 0),
        counted.reduce((sum, row) => sum + row.channels, 0) - 1,
      )
    })

    test('cancelled store orders are listed, the latest cancellation first', async () => {
      const channel = await newChannel('cancellations.myshopify.com')
      assert.ok(channel)
      const at = (seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000)
      for (const id of ['c1', 'c2', 'c3']) {
        await insertChannelOrder(t.database.db, {
          channelId: channel.id,
          rawOrder: order(id),
          state: 'notConnected',
          at: at(0),
        })
      }
      const rowOf = async (id: string) => (await findChannelOrder(t.database.db, channel.id, id))?.id as number
      await updateChannelOrder(t.database.db, await rowOf('c2'), {
        state: 'cancelled',
        cancellation: 'first',
        at: at(10),
      })
      await updateChannelOrder(t.database.db, await rowOf('c1'), {
        state: 'cancelled',
        cancellation: 'second',
        at: at(20),
      })
      const listed = await listCancelledOrders(t.database.db, channel.id, 10)
      assert.deepEqual(
        listed.map((row) => [row.externalOrderId, row.cancellation]),
        [
          ['c1', 'second'],
          ['c2', 'first'],
        ],
      )
      assert.equal((await listCancelledOrders(t.database.db, channel.id, 1)).length, 1)
    })

    test("a channel's approval: automatic by default, stored and changed with its delay", async () => {
      const plain = await newChannel('approval-a.myshopify.com')
      assert.deepEqual([plain?.approvalMode, plain?.approvalDelayHours], ['automatic', null])
      const delayed = await insertChannel(t.database.db, {
        scope: { accountId, environment: 'sandbox' },
        type: 'shopify',
        store: 'approval-b.myshopify.com',
        name: null,
        credentialsEncrypted: 'v1.x.y',
        webhookSecretEncrypted: 'v1.x.z',
        approval: { mode: 'delayed', delayHours: 336 },
        at: t.clock.now(),
      })
      assert.ok(delayed)
      assert.deepEqual([delayed.approvalMode, delayed.approvalDelayHours], ['delayed', 336])
      await updateChannel(t.database.db, delayed.id, { approval: { mode: 'manual' }, at: t.clock.now() })
      const manual = await findChannel(t.database.db, delayed.id)
      assert.deepEqual([manual?.approvalMode, manual?.approvalDelayHours], ['manual', null])
      // The schema refuses a delay with another mode, or one past the 14-day hold limit.
      await assert.rejects(
        t.database.db.query('UPDATE channels SET approval_delay_hours = 337, approval_mode = $2 WHERE id = $1', [
          delayed.id,
          'delayed',
        ]),
      )
    })

    test('links, store orders, webhooks and the outbox', async () => {
      const channel = await newChannel('b.myshopify.com')
      assert.ok(channel)
      const base = { externalSku: null, attributes: {}, assets: [], sizing: null, ignore: false }
      await upsertLink(t.database.db, channel.id, { ...base, externalVariantId: '10', sku: 'SKU-1' }, t.clock.now())
      await upsertLink(t.database.db, channel.id, { ...base, externalVariantId: '10', sku: 'SKU-2' }, t.clock.now())
      assert.deepEqual(
        (await listLinks(t.database.db, channel.id)).map((link) => link.sku),
        ['SKU-2'],
      )

      const kept = await insertChannelOrder(t.database.db, {
        channelId: channel.id,
        rawOrder: order('9007199254740993'),
        state: 'notConnected',
        at: t.clock.now(),
      })
      assert.ok(kept)
      assert.equal(kept.rawOrder.externalOrderId, '9007199254740993')
      const again = await insertChannelOrder(t.database.db, {
        channelId: channel.id,
        rawOrder: order('9007199254740993'),
        state: 'ignored',
        at: t.clock.now(),
      })
      assert.equal(again, undefined)
      await updateChannelOrder(t.database.db, kept.id, { unlinkedItems: order('x').lineItems, at: t.clock.now() })
      const pending = await listPendingOrders(t.database.db, channel.id, 10)
      assert.deepEqual(
        pending.map((row) => [row.externalOrderId, row.unlinkedItems.length]),
        [['9007199254740993', 1]],
      )

      const webhook = await insertWebhook(t.database.db, {
        channelId: channel.id,
        webhookId: 'w-1',
        topic: 'orderCreated',
        body: '{}',
        at: new Date('2026-01-01T00:00:00Z'),
      })
      assert.ok(webhook)
      const replay = { channelId: channel.id, webhookId: 'w-1', topic: 'orderCreated', body: '{}', at: t.clock.now() }
      assert.equal(await insertWebhook(t.database.db, replay), undefined)
      const unmapped = await insertWebhook(t.database.db, {
        ...replay,
        webhookId: 'w-2',
        at: new Date('2026-01-01T00:00:00Z'),
      })
      assert.ok(unmapped)
      await markWebhookProcessed(t.database.db, webhook, 'done', t.clock.now())
      assert.equal(await deleteOldWebhooks(t.database.db, new Date('2026-02-01T00:00:00Z'), 100), 1)

      const fulfilment = {
        channelId: channel.id,
        channelOrderId: kept.id,
        shipmentId: 'shp_1',
        fulfilment: { externalOrderId: '1', lineItems: [], tracking: { carrier: null, number: null, url: null } },
        at: t.clock.now(),
      }
      const id = await insertFulfilment(t.database.db, fulfilment)
      assert.ok(id)
      assert.equal(await insertFulfilment(t.database.db, fulfilment), undefined)
      await insertFulfilmentAttempt(t.database.db, id, {
        attempt: 1,
        attemptedAt: t.clock.now(),
        httpStatus: 500,
        latencyMs: 3,
        error: 'HTTP 500',
      })
      await updateFulfilment(t.database.db, id, {
        status: 'pending',
        attempts: 1,
        nextAttemptAt: t.clock.now(),
        at: t.clock.now(),
      })
      assert.equal((await findFulfilment(t.database.db, id))?.attempts, 1)
      const [listed] = await listFulfilments(t.database.db, channel.id, 10)
      assert.deepEqual(
        listed?.attemptLog.map((attempt) => attempt.httpStatus),
        [500],
      )
      assert.equal(listed?.externalOrderId, kept.externalOrderId)
      assert.deepEqual(await listFulfilments(t.database.db, channel.id, 10, id), [], 'none older than the first')
      assert.equal((await findChannelOrder(t.database.db, channel.id, '9007199254740993'))?.state, 'notConnected')

      // The sweeper's overdue rows: pending, due before the instant, by id.
      const dueAt = t.clock.now()
      assert.deepEqual(
        await listOverdueFulfilments(t.database.db, {
          dueBefore: new Date(dueAt.getTime() + 1),
          afterId: 0,
          limit: 10,
        }),
        [{ id, attempts: 1 }],
      )
      assert.deepEqual(await listOverdueFulfilments(t.database.db, { dueBefore: dueAt, afterId: 0, limit: 10 }), [])

      // The console's list across accounts: the failing channel first, its waiting orders and last order counted.
      await updateChannel(t.database.db, channel.id, { status: 'failing', statusReason: 'HTTP 401', at: t.clock.now() })
      const [across] = await listChannelsAcrossAccounts(t.database.db, { accountId, limit: 10 })
      assert.equal(across?.id, channel.id)
      assert.equal(across?.status, 'failing')
      assert.equal(across?.failingFulfilments, 1)
      assert.ok(across?.lastOrderAt instanceof Date)
      assert.deepEqual(await listChannelsAcrossAccounts(t.database.db, { accountId: accountId + 1000, limit: 10 }), [])
    })
  })
}
