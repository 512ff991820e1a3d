// Merchants' claims over HTTP (docs/claims.md): evidence photos uploaded, served to their own account only and
// expired when unused; claims made on shipped items within the window, with the photos their category asks for, one
// open claim per item, one lab per claim, a missing parcel once it is late; each refusal a 400 naming the field and
// nothing written; another account's order or photo a 404; a claim read, listed, retracted (a Resolved one refused),
// and its claimChanged events in the feed. Orders are shipped by the pipeline's own steps (no workers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MAX_EVIDENCE_BYTES } from '../../src/domain/claims.ts'
import { imageBomb, photoJpeg, resolveClaimInTables, uploadPhoto } from '../support/claims-h4.fixture.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const DAY = 24 * 60 * 60

for (const kind of databaseKinds) {
  describe(`claims (${kind})`, () => {
    let t: TestApp
    let images: ImageServer

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      // Past the driver's dispatch (2 March) and the delivery scan (3 March): 5 March.
      t.clock.advanceSeconds(4 * DAY)
    })
    after(async () => {
      await images.close()
      await t.close()
    })

    const post = (url: string, payload: unknown, key?: string, headers: Record<string, string> = {}) =>
      t.live(
        {
          method: 'POST',
          url,
          payload: payload as object,
          headers: { 'content-type': 'application/json', ...headers },
        },
        key,
      )
    const get = (url: string, key?: string) => t.live({ method: 'GET', url }, key)
    const canvas = () => blackCanvasOrder(images.url('canvas.jpg'))
    const claimOn = (orderId: string, body: unknown, key?: string) => post(`/v4.0/orders/${orderId}/claims`, body, key)
    const damaged = (itemId: string, evidence: string[]) => ({
      items: [{ itemId, category: 'Damaged', description: 'The corner is crushed', evidence }],
    })
    const failuresOf = (response: { body: string }) => json(response as never).failures as Record<string, any[]>
    const claimCount = async () =>
      Number((await t.database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM claims'))[0]?.n)

    test('the categories list every category with its rules', async () => {
      const response = await get('/v4.0/claims/categories')
      assert.equal(response.statusCode, 200)
      const categories = json(response).categories as any[]
      assert.deepEqual(
        categories.map((category) => category.category),
        ['Damaged', 'PrintDefect', 'WrongItem', 'MissingItem', 'PackageMissing', 'LateDelivery', 'Other'],
      )
      assert.deepEqual(categories[4], {
        category: 'PackageMissing',
        description: 'The parcel never arrived.',
        labAtFault: false,
        photosRequired: false,
        wholeShipment: true,
      })
    })

    test('a photo is kept without metadata and served to its own account only', async () => {
      const upload = await t.live({
        method: 'POST',
        url: '/v4.0/claims/evidence',
        payload: await photoJpeg(),
        headers: { 'content-type': 'image/jpeg' },
      })
      assert.equal(upload.statusCode, 201, upload.body)
      const evidence = json(upload).evidence
      assert.match(evidence.id, /^evd_\d+$/)
      assert.equal(evidence.contentType, 'image/jpeg')
      assert.deepEqual([evidence.width, evidence.height], [40, 30])
      assert.equal(evidence.expiresAt, new Date(t.clock.now().getTime() + DAY * 1000).toISOString())

      const served = await get(`/v4.0/claims/evidence/${evidence.id}/image`)
      assert.equal(served.statusCode, 200)
      assert.equal(served.headers['content-type'], 'image/jpeg')
      assert.equal(served.rawPayload.length, evidence.bytes)

      const other = await t.createAccount()
      assert.equal((await get(`/v4.0/claims/evidence/${evidence.id}/image`, other.liveKey)).statusCode, 404)
      assert.equal(
        (await t.sandbox({ method: 'GET', url: `/v4.0/claims/evidence/${evidence.id}/image` })).statusCode,
        404,
      )
    })

    test('what is not a JPEG or PNG is refused: text, an image bomb, another content type, too many bytes', async () => {
      const send = (payload: Buffer | string, contentType: string) =>
        t.live({ method: 'POST', url: '/v4.0/claims/evidence', payload, headers: { 'content-type': contentType } })
      const text = await send(Buffer.from('not an image at all'), 'image/jpeg')
      assert.equal(text.statusCode, 400)
      assert.equal(failuresOf(text).body?.[0].code, 'NotAnImage')
      const bomb = await send(await imageBomb(), 'image/png')
      assert.equal(bomb.statusCode, 400)
      assert.equal(failuresOf(bomb).body?.[0].code, 'ImageTooLarge')
      for (const contentType of ['text/plain', 'application/json', 'image/gif']) {
        const wrong = await send(contentType === 'application/json' ? '{"a":1}' : 'GIF89a', contentType)
        assert.equal(wrong.statusCode, 415, `${contentType}: ${wrong.body}`)
        assert.equal(json(wrong).data.field, 'Content-Type')
        assert.match(json(wrong).statusText, /image\/jpeg or image\/png/)
      }
      const huge = await send(Buffer.alloc(MAX_EVIDENCE_BYTES + 1), 'image/jpeg')
      assert.equal(huge.statusCode, 413)
      assert.equal(json(huge).data.maxBodyBytes, MAX_EVIDENCE_BYTES)
      const none = await t.live({ method: 'POST', url: '/v4.0/claims/evidence' })
      assert.equal(none.statusCode, 400)
      assert.equal(failuresOf(none).body?.[0].code, 'Required')
    })

    test('a claim on a delivered item: Pending, read, listed, its event in the feed; a second one is refused', async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const photo = await uploadPhoto(t)
      const created = await claimOn(order.orderId, {
        ...damaged(order.itemIds[0] as string, [photo]),
        preferredResolution: 'reprint',
      })
      assert.equal(created.statusCode, 201, created.body)
      const claim = json(created).claim
      assert.equal(json(created).outcome, 'Created')
      assert.match(claim.id, /^clm_\d+$/)
      assert.deepEqual(
        { ...claim, id: undefined, createdAt: undefined, lastUpdated: undefined },
        {
          id: undefined,
          orderId: order.orderId,
          status: 'Pending',
          shipmentId: null,
          items: [
            {
              itemId: order.itemIds[0],
              shipmentId: order.shipmentIds[0],
              category: 'Damaged',
              description: 'The corner is crushed',
              evidence: [photo],
            },
          ],
          preferredResolution: 'Reprint',
          resolution: null,
          rejection: null,
          labAnswer: null,
          createdAt: undefined,
          lastUpdated: undefined,
        },
      )
      assert.deepEqual(Object.keys(claim), Object.keys(json(await get(`/v4.0/claims/${claim.id}`)).claim))
      assert.deepEqual(json(await get(`/v4.0/claims/${claim.id}`)).claim, claim)
      const listed = json(await get(`/v4.0/claims?orderId=${order.orderId}&status=pending`))
      assert.deepEqual(listed.claims, [claim])
      assert.equal(listed.hasMore, false)

      const events = json(await get(`/v4.0/events?orderId=${order.orderId}`)).events as any[]
      const created_ = events.find((event) => String(event.type).endsWith('.claims.claim#Created'))
      assert.ok(created_, 'the Created event is in the feed')
      assert.deepEqual(created_.data.claim, claim)

      // The photo is used: a second claim naming it, or on the same item, is refused, and nothing is written.
      const count = await claimCount()
      const again = await claimOn(order.orderId, damaged(order.itemIds[0] as string, [await uploadPhoto(t)]))
      assert.equal(again.statusCode, 400)
      assert.deepEqual(failuresOf(again)['items[0].itemId'], [
        { code: 'ClaimAlreadyOpen', providedValue: order.itemIds[0], comparisonValue: claim.id },
      ])
      assert.equal(await claimCount(), count)
    })

    test("photos: required by the category, at most three, the caller's own and unused", async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const itemId = order.itemIds[0] as string
      const none = await claimOn(order.orderId, damaged(itemId, []))
      assert.equal(failuresOf(none)['items[0].evidence']?.[0].code, 'TooFew')
      const photos = [await uploadPhoto(t), await uploadPhoto(t), await uploadPhoto(t), await uploadPhoto(t)]
      const four = await claimOn(order.orderId, damaged(itemId, photos))
      assert.equal(four.statusCode, 400)
      assert.equal(failuresOf(four)['items[0].evidence']?.[0].code, 'TooMany')
      const twice = await claimOn(order.orderId, damaged(itemId, [photos[0] as string, photos[0] as string]))
      assert.equal(failuresOf(twice)['items[0].evidence[1]']?.[0].code, 'EvidenceAlreadyUsed')

      const other = await t.createAccount()
      const theirs = await uploadPhoto(t, other.liveKey)
      const foreign = await claimOn(order.orderId, damaged(itemId, [theirs]))
      assert.equal(foreign.statusCode, 404, foreign.body)
      const unknown = await claimOn(order.orderId, damaged(itemId, ['evd_999999']))
      assert.equal(unknown.statusCode, 404)

      // Not required (MissingItem): none is fine.
      const missing = await claimOn(order.orderId, {
        items: [{ itemId, category: 'MissingItem', description: 'Not in the box' }],
      })
      assert.equal(missing.statusCode, 201, missing.body)
    })

    test("another account's order is not found; an unshipped or cancelled order's items are refused", async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const other = await t.createAccount()
      const photo = await uploadPhoto(t, other.liveKey)
      const foreign = await claimOn(order.orderId, damaged(order.itemIds[0] as string, [photo]), other.liveKey)
      assert.equal(foreign.statusCode, 404)
      assert.equal((await get(`/v4.0/claims?orderId=${order.orderId}`, other.liveKey)).statusCode, 200)
      assert.deepEqual(json(await get(`/v4.0/claims?orderId=${order.orderId}`, other.liveKey)).claims, [])

      const created = await post(
        '/v4.0/orders',
        sampleOrder({
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: images.url('canvas.jpg') }],
            },
          ],
        }),
      )
      const unshipped = json(created).order
      await pipelineDriver(t).allocate(unshipped.id)
      const itemId = unshipped.items[0].id
      const early = await claimOn(unshipped.id, damaged(itemId, [await uploadPhoto(t)]))
      assert.equal(early.statusCode, 400)
      assert.equal(failuresOf(early)['items[0].itemId']?.[0].code, 'ShipmentNotShipped')

      const cancelledOrder = json(await post('/v4.0/orders', sampleOrder())).order
      const cancelled = await post(`/v4.0/orders/${cancelledOrder.id}/actions/cancel`, {})
      assert.equal(cancelled.statusCode, 200, cancelled.body)
      const late = await claimOn(cancelledOrder.id, damaged(cancelledOrder.items[0].id, [await uploadPhoto(t)]))
      assert.equal(failuresOf(late)['items[0].itemId']?.[0].code, 'ShipmentCancelled')

      const notAnItem = await claimOn(order.orderId, damaged('ori_999999', [await uploadPhoto(t)]))
      assert.equal(failuresOf(notAnItem)['items[0].itemId']?.[0].code, 'InvalidValue')
    })

    test('items of two labs are refused: one claim per lab', async () => {
      const order = await shippedOrder(t, twoLabOrder(images.url), { delivered: true })
      const items = order.itemIds.map((itemId) => ({ itemId, category: 'MissingItem', description: 'Not there' }))
      const refused = await claimOn(order.orderId, { items })
      assert.equal(refused.statusCode, 400, refused.body)
      assert.equal(failuresOf(refused)['items[1].itemId']?.[0].code, 'LabsDiffer')
      assert.equal((await claimOn(order.orderId, { items: items.slice(0, 1) })).statusCode, 201)
    })

    test('retract: a Pending claim is Retracted and its item free again; a Resolved one is refused on status', async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const itemId = order.itemIds[0] as string
      const claim = json(await claimOn(order.orderId, damaged(itemId, [await uploadPhoto(t)]))).claim
      const retracted = await post(`/v4.0/claims/${claim.id}/retract`, {})
      assert.equal(retracted.statusCode, 200, retracted.body)
      assert.equal(json(retracted).outcome, 'Updated')
      assert.equal(json(retracted).claim.status, 'Retracted')
      const events = json(await get(`/v4.0/events?orderId=${order.orderId}`)).events as any[]
      assert.ok(events.some((event) => String(event.type).endsWith('.claims.claim#Retracted')))

      const second = json(await claimOn(order.orderId, damaged(itemId, [await uploadPhoto(t)]))).claim
      assert.equal(second.status, 'Pending', 'the item may be claimed for again')
      await resolveClaimInTables(t, second.id, t.clock.now())
      const refused = await post(`/v4.0/claims/${second.id}/retract`, {})
      assert.equal(refused.statusCode, 400)
      assert.deepEqual(failuresOf(refused).status, [
        { code: 'InvalidValue', providedValue: 'Resolved', validValues: ['Pending'] },
      ])
      assert.equal(json(await get(`/v4.0/claims/${second.id}`)).claim.status, 'Resolved')

      const other = await t.createAccount()
      assert.equal((await post(`/v4.0/claims/${second.id}/retract`, {}, other.liveKey)).statusCode, 404)
      assert.equal((await get(`/v4.0/claims/${second.id}`, other.liveKey)).statusCode, 404)
    })

    test("the Sandbox's simulated operator decides a Sandbox claim on advance; Live has no such endpoint", async () => {
      const { orderId, itemId } = await shippedOrder(t, canvas(), { delivered: true, environment: 'sandbox' })
      const claimIt = async () => {
        const made = await t.sandbox({
          method: 'POST',
          url: `/v4.0/orders/${orderId}/claims`,
          headers: { 'content-type': 'application/json' },
          payload: { items: [{ itemId, category: 'MissingItem', description: 'Not in the parcel' }] },
        })
        assert.equal(made.statusCode, 201, made.body)
        return json(made).claim.id as string
      }
      const advance = (claimId: string, body?: object, key?: string) =>
        t.sandbox(
          {
            method: 'POST',
            url: `/v4.0/sandbox/claims/${claimId}/advance`,
            ...(body ? { payload: body, headers: { 'content-type': 'application/json' } } : {}),
          },
          key,
        )
      const first = await claimIt()
      const resolved = await advance(first)
      assert.equal(resolved.statusCode, 200, resolved.body)
      assert.equal(json(resolved).outcome, 'Updated')
      const claim = json(resolved).claim
      assert.equal(claim.status, 'Resolved')
      // No preference named: a Credit, with its credit note in the Sandbox series and the order's credits[].
      assert.equal(claim.resolution.type, 'Credit')
      assert.match(claim.resolution.creditNote, /^SBX-CN-/)
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      assert.deepEqual(
        order.credits.map((credit: { claimId: string; reason: string }) => [credit.reason, credit.claimId]),
        [['Claim', first]],
      )
      // Asked again: already there, unchanged.
      assert.equal(json(await advance(first, { to: 'Resolved' })).outcome, 'Ok')
      // Rejected, then asked to resolve: refused on status.
      const second = await claimIt()
      const rejected = json(await advance(second, { to: 'Rejected' })).claim
      assert.equal(rejected.status, 'Rejected')
      assert.equal(rejected.rejection.reason, "Rejected by the Sandbox's simulated operator")
      const refused = await advance(second, { to: 'Resolved' })
      assert.equal(refused.statusCode, 400)
      assert.equal(failuresOf(refused).status?.[0].providedValue, 'Rejected')
      // Another account's claim is unknown; Live has no such endpoint.
      const other = await t.createAccount()
      assert.equal((await advance(first, undefined, other.sandboxKey)).statusCode, 404)
      assert.equal((await t.live({ method: 'POST', url: `/v4.0/sandbox/claims/${first}/advance` })).statusCode, 404)
    })

    test('an Idempotency-Key replays the claim made', async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const body = damaged(order.itemIds[0] as string, [await uploadPhoto(t)])
      const headers = { 'idempotency-key': `claim-${order.orderId}` }
      const first = await post(`/v4.0/orders/${order.orderId}/claims`, body, undefined, headers)
      const replay = await post(`/v4.0/orders/${order.orderId}/claims`, body, undefined, headers)
      assert.equal(first.statusCode, 201)
      assert.equal(replay.statusCode, 201)
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      assert.equal(json(replay).claim.id, json(first).claim.id)
    })

    test('listing pages newest first with a cursor', async () => {
      const page = json(await get('/v4.0/claims?top=2'))
      assert.equal(page.claims.length, 2)
      assert.equal(page.hasMore, true)
      assert.ok(page.claims[0].id > page.claims[1].id || page.claims[0].id.length > page.claims[1].id.length)
      const next = new URL(page.nextUrl)
      const rest = json(await get(`${next.pathname}${next.search}`))
      assert.ok(rest.claims.every((claim: any) => !page.claims.some((seen: any) => seen.id === claim.id)))
    })

    test('a missing parcel: refused while delivered or not yet late, made once late', async () => {
      const delivered = await shippedOrder(t, canvas(), { delivered: true })
      const refused = await claimOn(delivered.orderId, {
        category: 'PackageMissing',
        shipmentId: delivered.shipmentIds[0],
      })
      assert.equal(failuresOf(refused).shipmentId?.[0].code, 'ShipmentDelivered')

      const order = await shippedOrder(t, canvas())
      const body = { category: 'PackageMissing', shipmentId: order.shipmentIds[0], preferredResolution: 'Refund' }
      const shipment = json(await get(`/v4.0/orders/${order.orderId}`)).order.shipments[0]
      const due = new Date(`${shipment.estimatedDelivery.to.slice(0, 10)}T00:00:00Z`).getTime() + DAY * 1000
      if (t.clock.now().getTime() < due) {
        const early = await claimOn(order.orderId, body)
        assert.equal(failuresOf(early).shipmentId?.[0].code, 'NotYetDue')
        t.clock.advanceSeconds((due - t.clock.now().getTime()) / 1000 + 60)
      }
      const made = await claimOn(order.orderId, body)
      assert.equal(made.statusCode, 201, made.body)
      const claim = json(made).claim
      assert.equal(claim.shipmentId, order.shipmentIds[0])
      assert.deepEqual(
        claim.items.map((item: any) => [item.itemId, item.category]),
        order.itemIds.map((itemId) => [itemId, 'PackageMissing']),
      )
      const again = await claimOn(order.orderId, body)
      assert.equal(failuresOf(again).shipmentId?.[0].code, 'ClaimAlreadyOpen')
    })

    test('past the window after delivery, a claim is refused; unused photos expire a day after upload', async () => {
      const order = await shippedOrder(t, canvas(), { delivered: true })
      const photo = await uploadPhoto(t)
      t.clock.advanceSeconds(31 * DAY)
      const late = await claimOn(order.orderId, {
        items: [{ itemId: order.itemIds[0], category: 'Other', description: 'Late' }],
      })
      assert.equal(failuresOf(late)['items[0].itemId']?.[0].code, 'ClaimWindowClosed')

      const deleted = await t.app.services.claims.expireEvidence()
      assert.ok(deleted >= 1)
      assert.equal((await get(`/v4.0/claims/evidence/${photo}/image`)).statusCode, 404)
      const used = json(await get('/v4.0/claims?status=Pending&top=1')).claims[0]
      const usedPhoto = used.items.flatMap((item: any) => item.evidence)[0]
      if (usedPhoto)
        assert.equal((await get(`/v4.0/claims/evidence/${usedPhoto}/image`)).statusCode, 200, 'a used photo stays')
    })
  })
}
