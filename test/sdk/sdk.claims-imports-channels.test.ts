// The SDK's claims, CSV imports and channels against a real printroute Sandbox server on 127.0.0.1: the raw-body uploads (a
// photo, a CSV file), the CSV text answers, and each claims and imports method once on real data.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PrintrouteClient, PrintrouteError } from '../../sdk/src/index.ts'
import { parseId } from '../../src/domain/ids.ts'
import { photoJpeg } from '../support/claims-h4.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const DAY = 24 * 60 * 60

const IMPORT_CSV = [
  'merchantReference,shippingMethod,recipient.name,recipient.address.line1,recipient.address.postalOrZipCode,' +
    'recipient.address.countryCode,recipient.address.townOrCity,sku,copies,sizing,attributes.wrap,assets.default',
  'SDK-CSV-1,standard,Ada Lovelace,14 Test Street,EC1A 1BB,GB,London,GLOBAL-CAN-10x10,1,fillPrintArea,ImageWrap,' +
    'https://images.example.com/canvas.jpg',
  '',
].join('\r\n')

describe('printroute-client claims, imports and channels against a Sandbox server', () => {
  let t: TestApp
  let images: ImageServer
  let client: PrintrouteClient

  before(async () => {
    t = await startTestApp()
    images = await startImageServer()
    client = new PrintrouteClient({ apiKey: t.account.sandboxKey, baseUrl: (await listenOnLoopback(t)).sandbox })
    // Past the shipped order's delivery scan (3 March), within the claim window.
    t.clock.advanceSeconds(4 * DAY)
  })
  after(async () => {
    await images.close()
    await t.close()
  })

  test('claims: categories, a photo uploaded as a raw JPEG body, a claim made, read, listed, paged and retracted', async () => {
    const categories = await client.claims.categories()
    assert.ok(categories.some((category) => category.category === 'Damaged'))

    const evidence = await client.claims.uploadEvidence(new Uint8Array(await photoJpeg()), 'image/jpeg')
    assert.match(evidence.id, /^evd_\d+$/)

    const shipped = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')), {
      delivered: true,
      environment: 'sandbox',
    })
    const claim = await client.claims.create(shipped.orderId, {
      items: [
        { itemId: shipped.itemId, category: 'Damaged', description: 'The corner is crushed', evidence: [evidence.id] },
      ],
      preferredResolution: 'Reprint',
    })
    assert.match(claim.id, /^clm_\d+$/)
    assert.equal(claim.status, 'Pending')
    assert.equal((await client.claims.get(claim.id)).id, claim.id)

    const second = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')), {
      delivered: true,
      environment: 'sandbox',
    })
    const secondPhoto = await client.claims.uploadEvidence(new Uint8Array(await photoJpeg('#2233aa')), 'image/jpeg')
    const other = await client.claims.create(second.orderId, {
      items: [{ itemId: second.itemId, category: 'Damaged', description: 'Torn canvas', evidence: [secondPhoto.id] }],
    })
    // One claim a page: the second page is reached only through the cursor.
    const firstPage = await client.claims.list({ top: 1 })
    assert.deepEqual(
      firstPage.claims.map((one) => one.id),
      [other.id],
    )
    assert.equal(firstPage.hasMore, true)
    const walked = []
    for await (const one of client.claims.iterate({ top: 1 })) walked.push(one.id)
    assert.deepEqual(walked, [other.id, claim.id])
    assert.deepEqual(
      (await client.claims.list({ orderId: shipped.orderId })).claims.map((one) => one.id),
      [claim.id],
    )

    const retracted = await client.claims.retract(claim.id)
    assert.equal(retracted.status, 'Retracted')
    await assert.rejects(client.claims.retract(claim.id), (error: unknown) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.statusCode, 400)
      assert.ok(error.failures.status)
      return true
    })
  })

  test('a photo of an unsupported kind is refused with the server error, not sent as JSON', async () => {
    await assert.rejects(
      client.claims.uploadEvidence(new TextEncoder().encode('not a photo'), 'image/png'),
      (error) => {
        assert.ok(error instanceof PrintrouteError)
        assert.equal(error.statusCode, 400)
        return true
      },
    )
  })

  test('imports: the template and results as CSV text, a CSV upload (raw text/csv body), get and list', async () => {
    const template = await client.orders.imports.template()
    assert.match(template, /^merchantReference,/)

    const uploaded = await client.orders.imports.upload(IMPORT_CSV, { approval: 'manual', fileName: 'sdk.csv' })
    assert.equal(uploaded.status, 'Pending')
    assert.equal(uploaded.approval, 'manual')
    // The queue's job, run here by hand as the queue would.
    await t.app.services.orderImports.runImport(parseId('imp', uploaded.id) as number)
    const done = await client.orders.imports.get(uploaded.id)
    assert.equal(done.ordersCreated, 1, JSON.stringify(done))

    const results = await client.orders.imports.results(uploaded.id)
    const lines = results.trim().split('\r\n')
    assert.match(lines[0] ?? '', /^row,merchantReference,outcome,orderId/)
    assert.match(lines[1] ?? '', /,SDK-CSV-1,Created,ord_\d+/)

    const bytes = await client.orders.imports.upload(new TextEncoder().encode(IMPORT_CSV))
    const page = await client.orders.imports.list({ top: 10 })
    assert.deepEqual(
      page.imports.map((one) => one.id),
      [bytes.id, uploaded.id],
    )
  })

  test('channels: created, listed, read, renamed; a link made, listed, deleted; nothing pending, no fulfilment; deleted', async () => {
    const channel = await client.channels.create({
      type: 'shopify',
      name: 'SDK shop',
      shopDomain: 'sdk-shop.myshopify.com',
      adminAccessToken: 'shpat_0123456789abcdef',
      webhookSecret: 'shpss_0123456789abcdef',
    })
    assert.match(channel.id, /^chn_\d+$/)
    assert.deepEqual(
      (await client.channels.list()).map((one) => one.id),
      [channel.id],
    )
    assert.equal((await client.channels.get(channel.id)).name, 'SDK shop')
    const renamed = await client.channels.update(channel.id, { name: 'SDK shop 2', shippingMethod: 'Express' })
    assert.equal(renamed.channel.name, 'SDK shop 2')
    assert.equal(renamed.channel.shippingMethod, 'Express')

    const link = await client.channels.links.create(channel.id, { externalSku: 'MUG-HANDMADE', ignore: true })
    assert.deepEqual(
      (await client.channels.links.list(channel.id)).map((one) => one.id),
      [link.id],
    )
    assert.equal((await client.channels.links.delete(channel.id, link.id)).outcome, 'Deleted')
    assert.deepEqual(await client.channels.links.list(channel.id), [])

    assert.deepEqual(await client.channels.pending(channel.id), [])
    const fulfilments = await client.channels.fulfilments.list(channel.id, { top: 5 })
    assert.deepEqual([fulfilments.fulfilments, fulfilments.hasMore, fulfilments.nextUrl], [[], false, null])
    await assert.rejects(client.channels.fulfilments.retry(channel.id, 'chf_1'), (error) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.statusCode, 404)
      return true
    })
    await assert.rejects(client.channels.release(channel.id, '4001'), (error) => {
      assert.ok(error instanceof PrintrouteError)
      assert.equal(error.statusCode, 404)
      return true
    })
    assert.equal((await client.channels.delete(channel.id)).id, channel.id)
    assert.deepEqual(await client.channels.list(), [])
  })
})
