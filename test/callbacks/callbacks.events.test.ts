// Which events an order's life produces, written to the outbox in the transaction of each change: driven step
// by step through the real pipeline (no workers), on every configured database. Delivery itself is
// callbacks.delivery.test.ts; here the deliveries are only created (pending).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import {
  PHONE_CASE,
  type PipelineDriver,
  pipelineDriver,
  twoLabOrder,
  US_RECIPIENT,
} from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const T = 'com.printroute.order'

for (const kind of databaseKinds) {
  describe(`order events (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** The two-lab order, to a recipient with a phone number (the callbacks carry it twice). */
    const splitOrder = () =>
      twoLabOrder(images.url, { recipient: { ...US_RECIPIENT, email: null, phoneNumber: '+1 212 555 0100' } })

    async function create(server: 'sandbox' | 'live', payload: Record<string, unknown>, key: string) {
      const response = await t[server](
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }

    async function events(key: string, query = '', server: 'sandbox' | 'live' = 'sandbox') {
      const response = await t[server]({ method: 'GET', url: `/v4.0/events${query}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }

    /** The pause window is changed with a Live key; each environment's callback URL with its own key. */
    async function settings(account: TestAccount, body: Record<string, unknown>, server: 'live' | 'sandbox' = 'live') {
      const response = await t[server](
        {
          method: 'PATCH',
          url: '/v4.0/account/settings',
          payload: body,
          headers: { 'content-type': 'application/json' },
        },
        server === 'live' ? account.liveKey : account.sandboxKey,
      )
      assert.equal(response.statusCode, 200, response.body)
    }

    test('a whole order life after a pause window: the expected events, in sequence, each with the order then', async () => {
      const account = await t.createAccount()
      await settings(account, { pauseWindowSeconds: 60 })
      await settings(account, { callbackUrl: 'https://merchant.example.com/hooks?token=s3cr3t' }, 'sandbox')
      const created = await create('sandbox', splitOrder(), account.sandboxKey)
      assert.equal(created.outcome, 'OnHold')
      const orderId = created.order.id
      assert.deepEqual((await events(account.sandboxKey)).events, [], 'no event on creation')

      // Before the window ends the start job changes nothing; after it, fulfilment starts.
      await t.app.services.pipeline.startOrder(orderId)
      assert.deepEqual((await events(account.sandboxKey)).events, [])
      t.clock.advanceSeconds(61)
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const shipped = await drive.ship(orderId)
      assert.equal(shipped.document.status.stage, 'Complete')
      assert.equal(shipped.document.shipments.length, 2)

      const feed = await events(account.sandboxKey)
      const list: any[] = feed.events
      assert.deepEqual(
        list.map((event) => event.type),
        [
          `${T}.status.stage.changed#InProgress`,
          `${T}.status.details.downloadAssets#Complete`,
          `${T}.shipments.shipment#Shipped`,
          `${T}.shipments.shipment#Shipped`,
          `${T}.status.details.shipping#Complete`,
          `${T}.status.stage.changed#Complete`,
        ],
      )
      // The CloudEvents sequence extension: strings whose lexicographic order is the events' order.
      assert.deepEqual(
        list.map((event) => event.sequence),
        ['1', '2', '3', '4', '5', '6'].map((n) => n.padStart(19, '0')),
      )
      assert.deepEqual(
        list.map((event) => event.sequence),
        list.map((event) => event.sequence).sort(),
        'sorted as strings, the events keep their order',
      )
      const ids = list.map((event) => parseId('evt', event.id) as number)
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ids grow with the sequence',
      )
      for (const event of list) {
        assert.equal(event.specversion, '1.0')
        assert.equal(event.datacontenttype, 'application/json')
        assert.equal(event.subject, orderId)
        assert.equal(event.source, `http://127.0.0.1:8081/v4.0/orders/${orderId}`)
        assert.match(event.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        assert.match(event.data.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
        assert.equal(event.data.order.id, orderId)
        assert.equal(event.data.order.recipient.mobilePhoneNumber, '+1 212 555 0100')
        assert.equal(event.data.order.recipient.phoneNumber, '+1 212 555 0100')
      }
      // Each event carries the order as it stood at its change.
      const [started, downloaded, firstShipment, secondShipment, , completed] = list
      assert.equal(started.data.order.status.details.downloadAssets, 'InProgress')
      assert.deepEqual(started.data.order.shipments, [])
      assert.equal(downloaded.data.order.status.details.downloadAssets, 'Complete')
      assert.deepEqual(downloaded.data.order.shipments, [])
      assert.deepEqual(
        firstShipment.data.order.shipments.map((shipment: any) => shipment.status),
        ['Shipped', 'Processing'],
      )
      assert.equal(firstShipment.data.order.status.stage, 'InProgress')
      assert.deepEqual(
        secondShipment.data.order.shipments.map((shipment: any) => shipment.status),
        ['Shipped', 'Shipped'],
      )
      assert.equal(completed.data.order.status.stage, 'Complete')
      assert.equal(completed.data.order.status.details.shipping, 'Complete')

      // Every event has a delivery to the account's URL, queued in the same transaction.
      const callbacks = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=100` }, account.sandboxKey),
      ).callbacks
      assert.equal(callbacks.length, 6)
      assert.deepEqual(
        callbacks.map((callback: any) => callback.eventId).reverse(),
        list.map((event) => event.id),
      )
      for (const callback of callbacks) {
        assert.equal(callback.status, 'pending')
        assert.equal(callback.url, 'https://merchant.example.com/hooks?token=s3cr3t')
        assert.deepEqual(callback.attempts, [])
      }
    })

    test('the feed pages with a cursor, and is scoped to the account and environment', async () => {
      const account = await t.createAccount()
      const other = await t.createAccount()
      for (let index = 0; index < 3; index++) {
        const created = await create('sandbox', sampleOrder(), account.sandboxKey)
        await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` }, account.sandboxKey)
      }
      const all = await events(account.sandboxKey)
      assert.equal(all.events.length, 3)
      assert.equal(all.hasMore, false)
      assert.equal(all.nextCursor, all.events[2].id)
      const first = await events(account.sandboxKey, '?top=2')
      assert.deepEqual(
        first.events.map((event: any) => event.id),
        all.events.slice(0, 2).map((event: any) => event.id),
      )
      assert.equal(first.hasMore, true)
      assert.equal(first.nextCursor, all.events[1].id)
      const rest = await events(account.sandboxKey, `?after=${first.nextCursor}&Top=2`)
      assert.deepEqual(
        rest.events.map((event: any) => event.id),
        [all.events[2].id],
      )
      assert.equal(rest.hasMore, false)
      const numeric = await events(account.sandboxKey, `?after=${all.events[0].id.slice(4)}`)
      assert.equal(numeric.events.length, 2, 'a bare number works as a cursor too')
      const caughtUp = await events(account.sandboxKey, `?after=${rest.nextCursor}`)
      assert.deepEqual(caughtUp.events, [])
      assert.equal(caughtUp.nextCursor, rest.nextCursor, 'nothing new: the cursor stays')
      assert.deepEqual((await events(other.sandboxKey)).events, [], "another account's feed")
      assert.deepEqual((await events(account.liveKey, '', 'live')).events, [], 'the other environment')
      // No callback URL anywhere: the events are in the feed, with no delivery.
      const callbacks = json(await t.sandbox({ method: 'GET', url: '/v4.0/callbacks' }, account.sandboxKey))
      assert.deepEqual(callbacks.callbacks, [])
    })

    test('updates that change nothing callbacks report cause no event; a cancel is one stage change', async () => {
      const account = await t.createAccount()
      const created = await create('sandbox', splitOrder(), account.sandboxKey)
      const orderId = created.order.id
      await t.sandbox(
        {
          method: 'POST',
          url: `/v4.0/orders/${orderId}/actions/updateMetadata`,
          payload: { metadata: { a: 1 } },
          headers: { 'content-type': 'application/json' },
        },
        account.sandboxKey,
      )
      await t.app.services.pipeline.startOrder(orderId)
      assert.deepEqual((await events(account.sandboxKey)).events, [], 'a plain start is not an event')
      await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.sandboxKey)
      const list = (await events(account.sandboxKey)).events
      assert.deepEqual(
        list.map((event: any) => [event.type, event.sequence, event.data.order.status.stage]),
        [[`${T}.status.stage.changed#Cancelled`, '0000000000000000001', 'Cancelled']],
      )
    })

    test('a prepaid order paid by a top-up or by card: payment authorised', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const created = await create(
        'live',
        sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
        account.liveKey,
      )
      const orderId = created.order.id
      const held = await drive.allocate(orderId)
      assert.ok(held.document.status.issues.some((issue) => issue.errorCode === 'RequiresPaymentAuthorisation'))
      await t.app.services.payments.topUp(parseId('acc', account.id) as number, 100_000n, null, TEST_ACTOR)
      const list = (await events(account.liveKey, '', 'live')).events
      assert.deepEqual(
        list.map((event: any) => event.type),
        [`${T}.status.details.downloadAssets#Complete`, `${T}.status.issues.paymentAuthorisation#Authorised`],
      )
      assert.deepEqual(withoutResolutionWarnings(list[1].data.order.status.issues), [])
      assert.equal(list[1].source, `http://127.0.0.1:8080/v4.0/orders/${orderId}`)

      // Paid by card on the payment page (an account with no balance): the same event, for that order.
      const cardAccount = await t.createAccount({ billingMode: 'prepaid' })
      const second = await create(
        'live',
        sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
        cardAccount.liveKey,
      )
      const secondHeld = await drive.allocate(second.order.id)
      const issue = secondHeld.document.status.issues.find(
        (entry) => entry.errorCode === 'RequiresPaymentAuthorisation',
      )
      const page = new URL(issue?.authorisationDetails?.authorisationUrl as string)
      const paid = await t.live(
        {
          method: 'POST',
          url: page.pathname,
          payload: {
            token: page.searchParams.get('token'),
            amount: issue?.authorisationDetails?.paymentDetails.amount,
            card: { number: '4242424242424242', expiry: '12/39', cvc: '123' },
          },
          headers: { 'content-type': 'application/json' },
        },
        null,
      )
      assert.equal(json(paid).outcome, 'Paid', paid.body)
      const secondEvents = (await events(cardAccount.liveKey, '', 'live')).events
      assert.deepEqual(
        secondEvents.map((event: any) => [event.subject, event.type, event.sequence]),
        [
          [second.order.id, `${T}.status.details.downloadAssets#Complete`, '0000000000000000001'],
          [second.order.id, `${T}.status.issues.paymentAuthorisation#Authorised`, '0000000000000000002'],
        ],
      )
    })
  })
}

test('the vendor of the event types is configurable', async () => {
  const t = await startTestApp({ eventVendor: 'prodigi', pauseWindowSeconds: 600 })
  try {
    const created = json(
      await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder(),
        headers: { 'content-type': 'application/json' },
      }),
    )
    await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` })
    const list = json(await t.sandbox({ method: 'GET', url: '/v4.0/events' })).events
    assert.deepEqual(
      list.map((event: any) => event.type),
      ['com.prodigi.order.status.stage.changed#Cancelled'],
    )
  } finally {
    await t.close()
  }
})
