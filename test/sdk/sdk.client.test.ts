// The SDK (sdk/, npm printroute-client) against a real printroute Sandbox server listening on 127.0.0.1: every
// method once on real data, paging across pages, and PrintrouteError's fields from real refusals.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import {
  type CreateOrderRequest,
  PrintrouteClient,
  PrintrouteConnectionError,
  PrintrouteError,
} from '../../sdk/src/index.ts'
import { startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/

/** A valid order for the sample catalogue, typed as the SDK types it (so the types meet a real request). */
function order(overrides: Partial<CreateOrderRequest> = {}): CreateOrderRequest {
  return {
    merchantReference: 'SDK-1',
    shippingMethod: 'Standard',
    recipient: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      address: {
        line1: '14 Test Street',
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
      },
    },
    items: [
      {
        sku: 'GLOBAL-CAN-10x10',
        copies: 1,
        sizing: 'fillPrintArea',
        attributes: { wrap: 'ImageWrap' },
        assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
      },
    ],
    ...overrides,
  }
}

/** The address of a port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

describe('printroute-client against a Sandbox server', () => {
  let t: TestApp
  let sandboxUrl: string
  let liveUrl: string
  let client: PrintrouteClient

  before(async () => {
    t = await startTestApp()
    const urls = await listenOnLoopback(t)
    sandboxUrl = urls.sandbox
    liveUrl = urls.live
    client = new PrintrouteClient({ apiKey: t.account.sandboxKey, baseUrl: sandboxUrl })
  })
  after(() => t.close())

  test('orders.create with an idempotency key twice: one order, AlreadyExists the second time; get reads it', async () => {
    const first = await client.orders.create(order({ merchantReference: 'SDK-IDEM' }), { idempotencyKey: 'sdk-key-1' })
    assert.equal(first.outcome, 'Created')
    assert.match(first.order.id, /^ord_\d+$/)
    assert.match(first.traceParent, TRACEPARENT)
    const second = await client.orders.create(order({ merchantReference: 'SDK-IDEM' }), {
      idempotencyKey: 'sdk-key-1',
    })
    assert.equal(second.outcome, 'AlreadyExists')
    assert.equal(second.order.id, first.order.id)

    const read = await client.orders.get(first.order.id)
    assert.equal(read.id, first.order.id)
    assert.equal(read.idempotencyKey, 'sdk-key-1')
    assert.equal(read.status.stage, 'InProgress')
    assert.equal(read.items[0]?.sku, 'GLOBAL-CAN-10x10')
    const [assetPreflight, ...more] = await client.orders.preflight(first.order.id)
    assert.equal(more.length, 0)
    assert.equal(assetPreflight?.itemId, read.items[0]?.id)
    assert.equal(assetPreflight?.assetId, read.items[0]?.assets[0]?.id)
    const listed = await client.orders.list({ merchantReferences: ['SDK-IDEM'] })
    assert.deepEqual(
      listed.orders.map((listedOrder) => listedOrder.id),
      [first.order.id],
    )
  })

  test('a key in the order itself counts too; two different keys are refused before sending', async () => {
    const first = await client.orders.create(order({ idempotencyKey: 'sdk-key-in-body' }))
    const again = await client.orders.create(order(), { idempotencyKey: 'sdk-key-in-body' })
    assert.equal(again.outcome, 'AlreadyExists')
    assert.equal(again.order.id, first.order.id)
    await assert.rejects(client.orders.create(order({ idempotencyKey: 'a' }), { idempotencyKey: 'b' }), TypeError)
  })

  test('the base address is taken with or without /v4.0 and a trailing slash', async () => {
    const created = await client.orders.create(order())
    for (const baseUrl of [sandboxUrl, `${sandboxUrl}/`, `${sandboxUrl}/v4.0`, `${sandboxUrl}/v4.0/`]) {
      const other = new PrintrouteClient({ apiKey: t.account.sandboxKey, baseUrl })
      assert.equal(other.baseUrl, `${sandboxUrl}/v4.0`)
      assert.equal((await other.orders.get(created.order.id)).id, created.order.id)
    }
    assert.throws(() => new PrintrouteClient({ apiKey: 'k', baseUrl: 'ftp://127.0.0.1' }), TypeError)
    assert.throws(() => new PrintrouteClient({ apiKey: '', baseUrl: sandboxUrl }), TypeError)
  })

  test('orders.list is one page; orders.iterate walks every page, newest first, none twice', async () => {
    const ids: string[] = []
    for (let index = 0; index < 5; index++) {
      ids.push((await client.orders.create(order({ merchantReference: `SDK-PAGE-${index}` }))).order.id)
    }
    const newestFirst = [...ids].reverse()
    const page = await client.orders.list({ search: 'SDK-PAGE', top: 2 })
    assert.deepEqual(
      page.orders.map((listed) => listed.id),
      newestFirst.slice(0, 2),
    )
    assert.equal(page.hasMore, true)

    const walked: string[] = []
    for await (const listed of client.orders.iterate({ search: 'SDK-PAGE', top: 2 })) {
      walked.push(listed.id)
      // An order created mid-walk pushes the older ones down a place: the walk neither repeats one nor adds it.
      if (walked.length === 1) await client.orders.create(order({ merchantReference: 'SDK-PAGE-late' }))
    }
    assert.deepEqual(walked, newestFirst)
    const skipped: string[] = []
    for await (const listed of client.orders.iterate({ search: 'SDK-PAGE', top: 2, skip: 4 })) skipped.push(listed.id)
    assert.deepEqual(skipped, newestFirst.slice(3))
  })

  test('actions, updateShippingMethod, updateRecipient, updateMetadata, cancel, replaceAsset; the events feed after it', async () => {
    const { order: created } = await client.orders.create(order({ merchantReference: 'SDK-ACTIONS' }))
    const before = await client.events.list()
    const available = await client.orders.actions(created.id)
    assert.equal(available.outcome, 'Ok')
    assert.equal(available.cancel.isAvailable, 'Yes')
    assert.equal(available.changeShippingMethod.isAvailable, 'Yes')

    const shipping = await client.orders.updateShippingMethod(created.id, 'express')
    assert.equal(shipping.outcome, 'Updated')
    assert.equal(shipping.order.shippingMethod, 'Express')

    const recipient = await client.orders.updateRecipient(created.id, {
      name: 'Grace Hopper',
      address: { line1: '1 Other Road', postalOrZipCode: 'SW1A 1AA', countryCode: 'GB', townOrCity: 'London' },
    })
    assert.equal(recipient.outcome, 'Updated')
    assert.equal(recipient.order.recipient.name, 'Grace Hopper')

    const metadata = await client.orders.updateMetadata(created.id, { shopOrder: 77, note: 'gift' })
    assert.equal(metadata.outcome, 'Updated')
    assert.deepEqual(metadata.order.metadata, { shopOrder: 77, note: 'gift' })

    const cancelled = await client.orders.cancel(created.id)
    assert.equal(cancelled.outcome, 'Cancelled')
    assert.equal(cancelled.order.status.stage, 'Cancelled')
    const again = await client.orders.cancel(created.id)
    assert.equal(again.outcome, 'ActionNotAvailable', 'a refusal about the state is an answer, not an error')
    // printroute's replaceAsset: typed like the others; a cancelled order's asset cannot be replaced.
    const item = cancelled.order.items[0]
    const itemId = item?.id as string
    const url = item?.assets[0]?.url as string
    const replaced = await client.orders.replaceAsset(created.id, { itemId, url })
    assert.equal(replaced.outcome, 'ActionNotAvailable')
    assert.equal((await client.orders.actions(created.id)).replaceAsset.isAvailable, 'No')

    const page = await client.events.list({ after: before.nextCursor ?? undefined })
    assert.equal(page.events.length, 1)
    const [event] = page.events
    assert.equal(event?.type, 'com.printroute.order.status.stage.changed#Cancelled')
    assert.equal(event?.subject, created.id)
    assert.equal(event?.data.order.id, created.id)
    assert.equal(event?.data.order.status.stage, 'Cancelled')
    assert.equal(page.nextCursor, event?.id)
    const iterated = []
    for await (const one of client.events.iterate({ orderId: created.id, top: 1 })) iterated.push(one.id)
    assert.deepEqual(iterated, [event?.id])
  })

  test('quotes.create, quotes.routing, orders.routing, orders.invoices, products.get, products.list, products.spine, products.coverDimensions, callbacks.list', async () => {
    const quote = await client.quotes.create({
      destinationCountryCode: 'GB',
      shippingMethod: 'Standard',
      items: [{ sku: 'GLOBAL-CAN-10x10', copies: 2, attributes: { wrap: 'ImageWrap' }, assets: [{}] }],
    })
    assert.equal(quote.outcome, 'Created')
    assert.equal(quote.quotes.length, 1)
    assert.equal(quote.quotes[0]?.shipmentMethod, 'Standard')
    assert.equal(quote.quotes[0]?.costSummary.totalCost.currency, 'GBP')
    const quoteRouting = await client.quotes.routing(quote.quotes[0]?.id ?? '')
    assert.equal(quoteRouting.allocations[0]?.basis, 'Quote')
    const quotedItem = { ...order().items[0], copies: 2 } as CreateOrderRequest['items'][number]
    const ordered = await client.orders.create(order({ quoteId: quote.quotes[0]?.id ?? null, items: [quotedItem] }))
    const orderRouting = await client.orders.routing(ordered.order.id)
    assert.equal(orderRouting.quoteId, quote.quotes[0]?.id)
    assert.equal(orderRouting.allocations[0]?.basis, 'Estimate')
    // Not charged yet (no workers run here): no invoice; another order id is a typed not-found error.
    assert.deepEqual(await client.orders.invoices(ordered.order.id), [])
    await assert.rejects(client.orders.invoices('ord_999999'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.statusCode, 404)
      return true
    })

    const product = await client.products.get('global-can-10x10')
    assert.equal(product.sku, 'GLOBAL-CAN-10x10')
    assert.ok(product.variants.length > 0)
    const products = await client.products.list({ search: 'CAN-10x10' })
    assert.ok(products.products.some((listed) => listed.sku === 'GLOBAL-CAN-10x10'))

    const spine = await client.products.spine({
      sku: 'BOOK-A4-L-HARD-M',
      destinationCountryCode: 'US',
      numberOfPages: 50,
    })
    assert.equal(spine.success, true)
    assert.ok(Math.abs(spine.spineInfo.widthMm - 25.4) < 0.5, `${spine.spineInfo.widthMm} mm`)
    const cover = await client.products.coverDimensions('BOOK-A4-L-HARD-M', {
      pageCount: 50,
      unit: 'pt',
      destinationCountryCode: 'US',
    })
    assert.equal(cover.unit, 'pt')
    assert.equal(cover.spineWidth, Math.round((spine.spineInfo.widthMm * 7200) / 25.4) / 100)
    assert.equal(cover.labCode, 'us7')

    const callbacks = await client.callbacks.list()
    assert.deepEqual(callbacks.callbacks, [], 'no callback URL is set, so nothing was delivered')
  })

  test('previews.create: a preview and a mockup per asset, both fetchable images, with a LowResolution warning', async () => {
    // 300x200 px on a 10x10 in canvas: far under its minimum resolution, so the warning must come through.
    const images: ImageServer = await startImageServer({
      'small.jpg': await solidJpeg(300, 200, { r: 200, g: 60, b: 40 }),
    })
    try {
      const answer = await client.previews.create({
        sku: 'GLOBAL-CAN-10x10',
        attributes: { wrap: 'MirrorWrap' },
        sizing: 'fillPrintArea',
        assets: [{ printArea: 'default', url: images.url('small.jpg') }],
      })
      assert.equal(answer.outcome, 'Created')
      assert.match(answer.traceParent, TRACEPARENT)
      const [preview] = answer.previews
      assert.ok(preview)
      assert.equal(preview.printArea, 'default')
      assert.ok(preview.effectiveDpi < 100, `${preview.effectiveDpi} dpi`)
      assert.deepEqual(
        preview.warnings.map((warning) => warning.code),
        ['LowResolution'],
      )
      for (const url of [preview.previewUrl, preview.mockupUrl]) {
        const image = await fetch(url)
        assert.equal(image.status, 200, url)
        assert.match(image.headers.get('content-type') ?? '', /^image\//)
        assert.ok((await image.arrayBuffer()).byteLength > 0)
      }
    } finally {
      await images.close()
    }
  })

  test("sandbox.getOrder tells an order's scenario; sandbox.advanceOrder's refusal is a PrintrouteError", async () => {
    const created = await client.orders.create(order({ metadata: { sandboxScenario: 'manual' } }))
    const facts = await client.sandbox.getOrder(created.order.id)
    assert.equal(facts.scenario, 'manual')
    assert.match(facts.cannotAdvance ?? '', /still downloading its assets/, 'no workers run here')
    await assert.rejects(client.sandbox.advanceOrder(created.order.id, { to: 'Shipped' }), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.outcome, 'ValidationFailed')
      assert.match(error.failures.to?.[0]?.comparisonValue as string, /downloading/)
      return true
    })
  })

  test('a 400 is a PrintrouteError with outcome, statusCode, traceParent and the failures by field', async () => {
    const refused = await client.orders
      .create(
        order({
          recipient: { name: 'X', address: { line1: 'l', postalOrZipCode: 'p', countryCode: 'XX', townOrCity: 't' } },
        }),
      )
      .then(
        () => assert.fail('expected a refusal'),
        (error: unknown) => error,
      )
    assert.ok(refused instanceof PrintrouteError)
    assert.equal(refused.outcome, 'ValidationFailed')
    assert.equal(refused.statusCode, 400)
    assert.match(refused.traceParent ?? '', TRACEPARENT)
    assert.equal(refused.headers?.get('traceparent'), refused.traceParent)
    assert.equal(refused.failures['recipient.address.countryCode']?.[0]?.code, 'NotAValidCountryCode')
    assert.match(refused.message, /^400 ValidationFailed: .*recipient\.address\.countryCode/)
    assert.equal((refused.body as { outcome: string }).outcome, 'ValidationFailed')
  })

  test('a 404 and a 401 are PrintrouteErrors too; an unreachable server a PrintrouteConnectionError', async () => {
    await assert.rejects(client.orders.get('ord_999999'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.outcome, 'EntityNotFound')
      assert.equal(error.statusCode, 404)
      assert.match(error.traceParent ?? '', TRACEPARENT)
      assert.deepEqual(error.failures, {})
      return true
    })
    await assert.rejects(client.products.get('NO-SUCH-SKU'), { name: 'PrintrouteError', outcome: 'EntityNotFound' })
    const liveKeyOnSandbox = new PrintrouteClient({ apiKey: t.account.liveKey, baseUrl: sandboxUrl })
    await assert.rejects(liveKeyOnSandbox.products.get('GLOBAL-CAN-10x10'), {
      outcome: 'Unauthorized',
      statusCode: 401,
    })

    const unreachable = new PrintrouteClient({ apiKey: 'k', baseUrl: await closedPortUrl(), maxRetries: 0 })
    await assert.rejects(unreachable.products.get('GLOBAL-CAN-10x10'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteConnectionError)
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.outcome, 'ConnectionFailed')
      assert.equal(error.statusCode, 0)
      return true
    })
  })

  test('webhooks.redeliverMissed sends an endpoint the events of its filter from `since`; a disabled one is a typed 400', async () => {
    const receiver = await startCallbackReceiver()
    try {
      // Disabled while the order is cancelled, so the cancellation is an event it missed.
      const { webhook } = await client.webhooks.create({
        url: receiver.url('/missed'),
        eventTypes: ['com.printroute.order.status.stage.changed#Cancelled'],
        enabled: false,
      })
      // After the other tests' events (the test clock stands still unless moved).
      t.clock.advanceSeconds(1)
      const since = t.clock.now().toISOString()
      const created = await client.orders.create(order({ merchantReference: 'SDK-WEBHOOK' }))
      await client.orders.cancel(created.order?.id ?? '')
      await client.webhooks.update(webhook.id, { enabled: true })
      const answer = await client.webhooks.redeliverMissed(webhook.id, { since, limit: 10 })
      assert.deepEqual(
        [answer.outcome, answer.redelivered, answer.since, answer.hasMore, answer.nextSince],
        ['Ok', 1, since, false, null],
      )
      assert.equal((await client.webhooks.redeliverMissed(webhook.id, { since })).redelivered, 0)
      await client.webhooks.update(webhook.id, { enabled: false })
      await assert.rejects(client.webhooks.redeliverMissed(webhook.id), (error: unknown) => {
        assert.ok(error instanceof PrintrouteError)
        assert.equal(error.statusCode, 400)
        assert.equal(error.failures.id?.[0]?.code, 'WebhookEndpointDisabled')
        return true
      })
      await client.webhooks.delete(webhook.id)
    } finally {
      await receiver.close()
    }
  })

  test('topUps.create and topUps.get on Live; a Sandbox key is a typed 400 on apiKey', async () => {
    const prepaid = await t.createAccount({ billingMode: 'prepaid' })
    const live = new PrintrouteClient({ apiKey: prepaid.liveKey, baseUrl: liveUrl })
    const created = await live.topUps.create({ amount: '40.00' })
    assert.equal(created.outcome, 'Created')
    assert.match(created.topUp.url, new RegExp(`/payments/top-ups/${created.topUp.id}\\?token=`))
    const read = await live.topUps.get(created.topUp.id)
    assert.deepEqual([read.id, read.amount, read.currency, read.status], [created.topUp.id, '40.00', 'GBP', 'open'])
    const refused = await client.topUps.create({ amount: '40.00' }).catch((error: unknown) => error)
    assert.ok(refused instanceof PrintrouteError)
    assert.equal(refused.statusCode, 400)
    assert.ok(refused.failures.apiKey)
  })

  test('countries.list, countries.get and addresses.validate; an unknown country is a typed 404', async () => {
    const countries = await client.countries.list()
    assert.ok(countries.length >= 240)
    const gb = countries.find((country) => country.countryCode === 'GB')
    assert.equal(gb?.shipsTo, true)
    assert.equal(gb?.postcodeExample, 'EC1A 1BB')
    const us = await client.countries.get('us')
    assert.equal(us.stateRequired, true)
    assert.ok(us.subdivisions.some((subdivision) => subdivision.code === 'CA' && subdivision.name === 'California'))
    await assert.rejects(client.countries.get('XX'), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.statusCode, 404)
      assert.equal(error.outcome, 'EntityNotFound')
      return true
    })
    const checked = await client.addresses.validate({
      address: { line1: '14 Test Street', postalOrZipCode: 'ec1a1bb', countryCode: 'GB', townOrCity: 'London' },
    })
    assert.equal(checked.valid, true)
    assert.equal(checked.suggested.postalOrZipCode, 'EC1A 1BB')
    const wrong = await client.addresses.validate({
      address: { line1: '14 Test Street', postalOrZipCode: 'NOT-A-POSTCODE', countryCode: 'GB', townOrCity: 'London' },
    })
    assert.equal(wrong.valid, false)
    assert.deepEqual(
      wrong.problems.map((problem) => [problem.field, problem.code]),
      [['postalOrZipCode', 'InvalidPostcode']],
    )
  })

  test('webhooks.create, list, get, update (with a rotation), test and delete', async () => {
    const receiver = await startCallbackReceiver()
    try {
      const created = await client.webhooks.create({
        url: receiver.url('/sdk'),
        eventTypes: ['com.printroute.order.shipments.*'],
        metadataFilter: { channel: 'shop-eu' },
      })
      assert.equal(created.outcome, 'Created')
      assert.match(created.signingSecret, /^whsec_/)
      const { id } = created.webhook
      assert.deepEqual(
        (await client.webhooks.list()).map((webhook) => webhook.id),
        [id],
      )
      assert.deepEqual(await client.webhooks.get(id), created.webhook)
      const disabled = await client.webhooks.update(id, { enabled: false })
      assert.equal(disabled.webhook.disabledReason, 'manual')
      assert.equal(disabled.signingSecret, undefined)
      const rotated = await client.webhooks.update(id, { rotateSigningSecret: true })
      assert.match(rotated.signingSecret ?? '', /^whsec_/)
      const sent = await client.webhooks.test(id)
      assert.equal(sent.callback.webhookId, id)
      assert.equal(sent.callback.status, 'delivered')
      assert.equal(receiver.received.length, 1)
      assert.equal((await client.webhooks.delete(id)).id, id)
      await assert.rejects(client.webhooks.get(id), (error: unknown) => {
        assert.ok(error instanceof PrintrouteError)
        assert.equal(error.statusCode, 404)
        return true
      })
      assert.deepEqual(await client.webhooks.list(), [])
    } finally {
      await receiver.close()
    }
  })
})
