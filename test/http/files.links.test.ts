// Links to the files printroute serves (docs/assets.md "File links"), on the real listening servers and every
// database backend: every answer that carries an order (GET, list, actions, callbacks, the events feed) and
// every lab job carries links valid for the configured lifetime from the moment it is sent; a link expires
// (410 LinkExpired), works on its own environment's address only (404 naming the other), and the stored order
// keeps a token, not a link.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import { signatureOf } from '../../src/domain/webhook-signature.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const TTL_SECONDS = 3_600

interface Served {
  status: number
  headers: Record<string, string>
  body: string
}

async function fetchLink(url: string, port?: string): Promise<Served> {
  const target = new URL(url)
  if (port) target.port = port
  const response = await fetch(target)
  const body =
    response.headers.get('content-type')?.startsWith('application/json') === true
      ? await response.text()
      : `${(await response.arrayBuffer()).byteLength} bytes`
  return { status: response.status, headers: Object.fromEntries(response.headers), body }
}

/** The unix seconds a link expires at. */
function expiresOf(link: string): number {
  return Number(new URL(link).searchParams.get('expires'))
}

for (const kind of databaseKinds) {
  describe(`file links (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let receiver: CallbackReceiver
    let driver: PipelineDriver
    let addresses: { live: string; sandbox: string }
    let orderId: string

    const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000)
    const get = async (id: string) => json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` })).order
    const thumbnailOf = (order: Record<string, any>): string => order.items[0].assets[0].thumbnailUrl

    before(async () => {
      t = await startTestApp({ kind, fileLinkTtlSeconds: TTL_SECONDS })
      addresses = await listenOnLoopback(t)
      images = await startImageServer()
      receiver = await startCallbackReceiver()
      driver = pipelineDriver(t)
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          callbackUrl: receiver.url(),
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
      })
      orderId = json(created).order.id
      await driver.allocate(orderId)
    })
    after(async () => {
      await t.close()
      await images.close()
      await receiver.close()
    })

    test('the stored order holds a token; GET answers a link valid for the lifetime from now', async () => {
      const rows = await t.database.db.query<{ document: string }>('SELECT document FROM orders WHERE id = $1', [
        parseId('ord', orderId),
      ])
      const stored = rows[0]?.document ?? ''
      assert.match(stored, /"thumbnailUrl":"printroute-file:sandbox:thumbnails\//)
      assert.doesNotMatch(stored, /\/files\//)

      const order = await get(orderId)
      const link = thumbnailOf(order)
      assert.ok(link.startsWith(`${addresses.sandbox}/files/thumbnails/${orderId}/`), link)
      assert.equal(order.items[0].thumbnailUrl, link)
      assert.equal(expiresOf(link), nowSeconds() + TTL_SECONDS)
      const served = await fetchLink(link)
      assert.equal(served.status, 200)
      assert.equal(served.headers['content-type'], 'image/jpeg')
    })

    test('a link works until its expiry, then answers 410 LinkExpired; the order then carries a new one', async () => {
      const first = thumbnailOf(await get(orderId))
      t.clock.advanceSeconds(TTL_SECONDS - 1)
      assert.equal((await fetchLink(first)).status, 200)
      t.clock.advanceSeconds(1)
      const expired = assertErrorBody(await fetchLink(first), 'LinkExpired', 410)
      assert.equal(expired.data.expiredAt, new Date(expiresOf(first) * 1000).toISOString())
      const fresh = thumbnailOf(await get(orderId))
      assert.equal(expiresOf(fresh), nowSeconds() + TTL_SECONDS)
      assert.equal((await fetchLink(fresh)).status, 200)
    })

    test('the list and the actions answers carry fresh links too', async () => {
      t.clock.advanceSeconds(120)
      const listed = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders?orderIds[]=${orderId}` })).orders
      assert.equal(expiresOf(thumbnailOf(listed[0])), nowSeconds() + TTL_SECONDS)
      t.clock.advanceSeconds(120)
      const updated = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/updateMetadata`,
        payload: { metadata: { note: 'links' } },
      })
      assert.equal(json(updated).outcome, 'Updated')
      const link = thumbnailOf(json(updated).order)
      assert.equal(expiresOf(link), nowSeconds() + TTL_SECONDS)
      assert.equal((await fetchLink(link)).status, 200)
    })

    test('a Sandbox link on the Live address is 404 naming Sandbox; unsigned and altered links are 404', async () => {
      const link = thumbnailOf(await get(orderId))
      const elsewhere = assertErrorBody(await fetchLink(link, new URL(addresses.live).port), 'EntityNotFound', 404)
      assert.match(elsewhere.statusText, /belongs to the Sandbox environment/)
      const url = new URL(link)
      const unsigned = `${url.origin}${url.pathname}`
      const noExpiry = `${unsigned}?signature=${url.searchParams.get('signature')}`
      const longer = link.replace(/expires=\d+/, `expires=${expiresOf(link) + 1}`)
      const otherFile = link.replace('/thumbnails/', '/print-files/')
      for (const bad of [unsigned, noExpiry, longer, otherFile]) {
        const body = assertErrorBody(await fetchLink(bad), 'EntityNotFound', 404)
        assert.doesNotMatch(body.statusText, /environment/, bad)
      }
    })

    test('callbacks carry links valid from their delivery, under a signature of the body sent', async () => {
      const callbacks = json(await t.sandbox({ method: 'GET', url: `/v4.0/callbacks?orderId=${orderId}&top=100` }))
      // The download's event: the first whose order has the thumbnail.
      const withThumbnail = async () => {
        for (const callback of [...callbacks.callbacks].reverse()) {
          const before = receiver.received.length
          await t.app.services.callbacks.deliver(parseId('cbd', callback.id) as number, 1)
          const sent = receiver.received[before]
          if (sent && typeof sent.event.data?.order?.items?.[0]?.assets?.[0]?.thumbnailUrl === 'string') return sent
        }
        throw new Error('no callback with a thumbnail')
      }
      t.clock.advanceSeconds(600)
      const sent = await withThumbnail()
      const link = sent.event.data.order.items[0].assets[0].thumbnailUrl
      assert.ok(link.startsWith(`${addresses.sandbox}/files/`), link)
      assert.equal(expiresOf(link), nowSeconds() + TTL_SECONDS)
      assert.equal((await fetchLink(link)).status, 200)
      const { signingSecret } = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' })).settings
      const timestamp = Number(sent.headers['webhook-timestamp'])
      assert.equal(
        sent.headers['webhook-signature'],
        signatureOf(signingSecret, String(sent.headers['webhook-id']), timestamp, sent.body),
      )

      t.clock.advanceSeconds(600)
      const feed = json(await t.sandbox({ method: 'GET', url: '/v4.0/events?top=100' })).events as any[]
      const links = feed
        .map((event) => event.data.order.items[0].assets[0].thumbnailUrl)
        .filter((value): value is string => typeof value === 'string')
      assert.ok(links.length > 0)
      for (const fresh of links) assert.equal(expiresOf(fresh), nowSeconds() + TTL_SECONDS)
    })

    test('lab jobs (Live) carry print file links with the same lifetime, bound to Live', async () => {
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('live.jpg') }] }],
        }),
      })
      const liveOrderId = json(created).order.id
      await driver.allocate(liveOrderId)
      await driver.render(liveOrderId)
      const submitted = await driver.submit(liveOrderId)
      const labCode = submitted.document.shipments[0]?.fulfillmentLocation.labCode as string
      const { key } = await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)
      const jobs = json(await t.live({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': key } }, null)).jobs
      const job = jobs.find((candidate: any) => candidate.orderId === liveOrderId)
      const link = job.items[0].printFiles[0].url as string
      assert.ok(link.startsWith(`${addresses.live}/files/print-files/`), link)
      assert.equal(expiresOf(link), nowSeconds() + TTL_SECONDS)
      assert.equal((await fetchLink(link)).status, 200)
      const elsewhere = assertErrorBody(await fetchLink(link, new URL(addresses.sandbox).port), 'EntityNotFound', 404)
      assert.match(elsewhere.statusText, /belongs to the Live environment/)
      t.clock.advanceSeconds(TTL_SECONDS)
      assertErrorBody(await fetchLink(link), 'LinkExpired', 410)
    })
  })
}
