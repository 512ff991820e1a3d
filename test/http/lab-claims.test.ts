// The labs' side of claims (docs/labs.md#claims): a lab lists and reads the claims against its jobs with the
// merchant's photos (fetched with its key), uploads its own photos and answers once, accept or dispute; another
// lab sees none of it; a claim made against a lab is pushed to it, signed (lab.claim.created). Claims are made by
// the fixture (test/support/claims-lab.fixture.ts) on orders allocated by the pipeline's own steps.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import type { ClaimView } from '../../src/domain/claims.ts'
import { parseId } from '../../src/domain/ids.ts'
import { createOrderChanger } from '../../src/services/order-change.ts'
import { createOrderEventsService } from '../../src/services/order-events.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { insertClaim, insertMerchantEvidence } from '../support/claims-lab.fixture.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

describe('claims on the lab API', () => {
  let images: ImageServer
  let receiver: CallbackReceiver
  let t: TestApp
  const keys = new Map<string, string>()
  let pushSecret = ''
  /** A Live order allocated to its lab: its id, its first item and shipment, the lab. */
  let order: { orderId: string; itemIds: string[]; shipmentId: string; labCode: string }
  let otherLab = ''

  const lab = (labCode: string, method: 'GET' | 'POST', url: string, payload?: unknown, contentType?: string) =>
    t.app.live.inject({
      method,
      url,
      headers: {
        'x-api-key': keys.get(labCode) as string,
        ...(payload !== undefined ? { 'content-type': contentType ?? 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload: Buffer.isBuffer(payload) ? payload : JSON.stringify(payload) } : {}),
    })

  before(async () => {
    images = await startImageServer()
    receiver = await startCallbackReceiver()
    t = await startTestApp()
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({
        items: [1, 2, 3, 4].map((n) => ({
          sku: 'GLOBAL-FAP-16x24',
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ url: images.url(`print-${n}.jpg`) }],
        })),
      }),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(created.statusCode, 200, created.body)
    const orderId = json(created).order.id
    await pipelineDriver(t).allocate(orderId)
    const document = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    const shipment = document.shipments[0]
    order = {
      orderId,
      itemIds: document.items.map((item: { id: string }) => item.id),
      shipmentId: shipment.id,
      labCode: shipment.fulfillmentLocation.labCode,
    }
    otherLab = t.app.services.labs ? ((await labCodes()).find((code) => code !== order.labCode) ?? '') : ''
    for (const code of [order.labCode, otherLab]) {
      keys.set(code, (await t.app.services.labs.createLabKey(code, TEST_ACTOR)).key)
    }
    const configured = await t.app.services.labPushes.configure(
      order.labCode,
      { pushUrl: receiver.url(`/lab/${order.labCode}`) },
      TEST_ACTOR,
    )
    pushSecret = configured.secret as string
  })
  after(async () => {
    await t.close()
    await receiver.close()
    await images.close()
  })

  async function labCodes(): Promise<string[]> {
    const { catalogue } = await import('../support/test-app.ts')
    return catalogue.labs.map((entry) => entry.code)
  }

  async function merchantPhoto(): Promise<string> {
    const photo = await solidJpeg(40, 30, { r: 10, g: 200, b: 30 })
    const key = `claim-evidence/fixture-${Math.random().toString(36).slice(2)}`
    await t.app.services.files.put(key, photo.body, 'image/jpeg')
    return insertMerchantEvidence(t.database.db, order.orderId, key, t.clock.now())
  }

  async function pendingClaim(itemIndex = 0): Promise<ClaimView> {
    return insertClaim(t.database.db, {
      orderId: order.orderId,
      labCode: order.labCode,
      items: [
        {
          itemId: order.itemIds[itemIndex] as string,
          shipmentId: order.shipmentId,
          category: 'Damaged',
          description: 'The corner is torn',
          evidence: [await merchantPhoto()],
        },
      ],
      at: t.clock.now(),
    })
  }

  test("the lab lists and reads the claims against its jobs with the merchant's photos; another lab sees none", async () => {
    const claim = await pendingClaim()
    const listed = await lab(order.labCode, 'GET', '/labs/v1/claims')
    assert.equal(listed.statusCode, 200, listed.body)
    const body = json(listed)
    assert.equal(body.outcome, 'Ok')
    const shown = body.claims.find((entry: { id: string }) => entry.id === claim.id)
    assert.ok(shown, 'the claim listed')
    assert.deepEqual(shown.shipmentIds, [order.shipmentId])
    assert.equal(shown.status, 'Pending')
    assert.equal(shown.answer, null)
    assert.equal(shown.items[0].category, 'Damaged')
    assert.equal(shown.items[0].description, 'The corner is torn')
    const photo = shown.items[0].photos[0]
    assert.equal(photo.id, claim.items[0]?.evidence[0])
    const path = new URL(photo.url).pathname
    assert.equal(path, `/labs/v1/claims/evidence/${photo.id}`)

    const fetched = await lab(order.labCode, 'GET', path)
    assert.equal(fetched.statusCode, 200)
    assert.equal(fetched.headers['content-type'], 'image/jpeg')
    assert.equal((await sharp(fetched.rawPayload).metadata()).width, 40)

    const one = await lab(order.labCode, 'GET', `/labs/v1/claims/${claim.id}`)
    assert.equal(one.statusCode, 200, one.body)
    assert.deepEqual(json(one).claim, shown)

    // Another lab: not its claim, not its photo (as if neither existed).
    assert.deepEqual(json(await lab(otherLab, 'GET', '/labs/v1/claims')).claims, [])
    assert.equal((await lab(otherLab, 'GET', `/labs/v1/claims/${claim.id}`)).statusCode, 404)
    assert.equal((await lab(otherLab, 'GET', path)).statusCode, 404)
    assert.equal((await lab(order.labCode, 'GET', '/labs/v1/claims/ord_1')).statusCode, 400)
    assert.equal(
      (await t.app.live.inject({ method: 'GET', url: '/labs/v1/claims' })).statusCode,
      401,
      'a lab key is needed',
    )
  })

  test('the lab uploads photos and answers once; the merchant sees the answer in the claim', async () => {
    const claim = await pendingClaim(1)
    const jpeg = await solidJpeg(64, 48, { r: 200, g: 20, b: 20 })
    const uploaded = await lab(order.labCode, 'POST', '/labs/v1/claims/evidence', jpeg.body, 'image/jpeg')
    assert.equal(uploaded.statusCode, 200, uploaded.body)
    const evidence = json(uploaded).evidence
    assert.equal(json(uploaded).outcome, 'Created')
    assert.match(evidence.id, /^evd_\d+$/)
    assert.equal(evidence.width, 64)

    const notAnImage = await lab(order.labCode, 'POST', '/labs/v1/claims/evidence', Buffer.from('hello'), 'image/png')
    assert.equal(notAnImage.statusCode, 400, notAnImage.body)
    assert.equal(json(notAnImage).failures.body[0].code, 'NotAnImage')
    const asJson = await lab(order.labCode, 'POST', '/labs/v1/claims/evidence', { photo: 'x' })
    assert.equal(asJson.statusCode, 415, asJson.body)

    // Another lab cannot answer, nor use this lab's photo.
    const foreign = await lab(otherLab, 'POST', `/labs/v1/claims/${claim.id}/actions/answer`, { answer: 'accept' })
    assert.equal(foreign.statusCode, 404, foreign.body)

    const answered = await lab(order.labCode, 'POST', `/labs/v1/claims/${claim.id}/actions/answer`, {
      answer: 'dispute',
      comment: 'Packed with corner guards; the carrier dented it',
      evidence: [evidence.id],
    })
    assert.equal(answered.statusCode, 200, answered.body)
    const shown = json(answered).claim
    assert.equal(json(answered).outcome, 'Updated')
    assert.equal(shown.answer.answer, 'Disputed')
    assert.equal(shown.answer.comment, 'Packed with corner guards; the carrier dented it')
    assert.deepEqual(
      shown.answer.photos.map((photo: { id: string }) => photo.id),
      [evidence.id],
    )
    assert.equal((await lab(order.labCode, 'GET', new URL(shown.answer.photos[0].url).pathname)).statusCode, 200)

    const [row] = await t.database.db.query<{ document: string; version: number; lab_answer: string }>(
      'SELECT document, version, lab_answer FROM claims WHERE id = $1',
      [parseId('clm', claim.id)],
    )
    assert.equal(row?.lab_answer, 'Disputed')
    assert.equal(Number(row?.version), 2)
    const stored = JSON.parse(row?.document as string) as ClaimView
    assert.deepEqual(Object.keys(stored), Object.keys(claim), 'the wire order kept')
    assert.deepEqual(stored.labAnswer, {
      answer: 'Disputed',
      comment: 'Packed with corner guards; the carrier dented it',
      answeredAt: t.clock.now().toISOString(),
    })
    assert.equal(stored.lastUpdated, t.clock.now().toISOString())

    const again = await lab(order.labCode, 'POST', `/labs/v1/claims/${claim.id}/actions/answer`, { answer: 'accept' })
    assert.equal(again.statusCode, 400, again.body)
    assert.equal(json(again).failures.answer[0].code, 'ClaimAlreadyAnswered')

    // A photo already used by an answer is not used again.
    const other = await pendingClaim(2)
    const reused = await lab(order.labCode, 'POST', `/labs/v1/claims/${other.id}/actions/answer`, {
      answer: 'accept',
      evidence: [evidence.id],
    })
    assert.equal(reused.statusCode, 400, reused.body)
    assert.equal(json(reused).failures['evidence[0]'][0].code, 'EvidenceInUse')
    const unknown = await lab(order.labCode, 'POST', `/labs/v1/claims/${other.id}/actions/answer`, {
      answer: 'accept',
      evidence: ['evd_99999'],
    })
    assert.equal(json(unknown).failures['evidence[0]'][0].code, 'UnknownEvidence')
  })

  test('a claim no longer Pending is not answered (status named); pages follow a cursor', async () => {
    const resolved = await insertClaim(t.database.db, {
      orderId: order.orderId,
      labCode: order.labCode,
      items: [
        {
          itemId: order.itemIds[0] as string,
          shipmentId: order.shipmentId,
          category: 'PrintDefect',
          description: 'Banding',
        },
      ],
      status: 'Resolved',
      at: t.clock.now(),
    })
    const refused = await lab(order.labCode, 'POST', `/labs/v1/claims/${resolved.id}/actions/answer`, {
      answer: 'accept',
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.equal(json(refused).failures.status[0].code, 'ClaimNotPending')
    assert.equal(json(refused).failures.status[0].providedValue, 'Resolved')

    const resolvedOnly = json(await lab(order.labCode, 'GET', '/labs/v1/claims?status=resolved')).claims
    assert.deepEqual(
      resolvedOnly.map((claim: { id: string }) => claim.id),
      [resolved.id],
    )

    const all = json(await lab(order.labCode, 'GET', '/labs/v1/claims?top=100')).claims.map((c: { id: string }) => c.id)
    assert.ok(all.length >= 3)
    const first = json(await lab(order.labCode, 'GET', '/labs/v1/claims?top=2'))
    assert.equal(first.hasMore, true)
    const next = new URL(first.nextUrl)
    assert.equal(next.searchParams.get('before'), first.claims[1].id)
    const second = json(await lab(order.labCode, 'GET', `${next.pathname}${next.search}`))
    assert.deepEqual(
      [...first.claims, ...second.claims].map((claim: { id: string }) => claim.id),
      all.slice(0, first.claims.length + second.claims.length),
    )
    assert.equal((await lab(order.labCode, 'GET', '/labs/v1/claims?top=0')).statusCode, 400)
  })

  test('a claim made against the lab is pushed to it, signed with its push secret', async () => {
    const claim = await pendingClaim(3)
    // As the claims API records it: the claimChanged event returned from the order's change.
    const events = createOrderEventsService({
      clock: t.clock,
      jobs: t.app.jobs,
      vendor: 'printroute',
      sourceOf: (_environment, orderId) => `http://localhost/v4.0/orders/${orderId}`,
      labEvents: t.app.services.labPushes,
    })
    const changer = createOrderChanger({ db: t.database.db, jobs: t.app.jobs, events })
    await changer.change(parseId('ord', order.orderId) as number, () => ({
      changed: false,
      events: [{ kind: 'claimChanged', claimId: claim.id, status: 'Created', claim: { ...claim } }],
    }))
    await pipelineDriver(t).deliverCallbacks()
    const push = receiver.received.find(
      (received) => received.event.type === 'com.printroute.lab.claim.created' && received.event.subject === claim.id,
    )
    assert.ok(push, 'the claim pushed')
    assert.equal(push.url, `/lab/${order.labCode}`)
    // Signed as every push (the test's clock is not today's, so the signature is checked by hand, not its age).
    const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = push.headers
    const key = Buffer.from(pushSecret.slice('whsec_'.length), 'base64')
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${push.body}`).digest('base64')}`
    assert.ok(String(signature).split(' ').includes(expected), 'signed with the lab push secret')
    const verified = JSON.parse(push.body) as {
      data: { claim: { id: string; shipmentIds: string[]; items: { photos: { url: string }[] }[] } }
    }
    assert.deepEqual(verified.data.claim.shipmentIds, [order.shipmentId])
    const listed = json(await lab(order.labCode, 'GET', `/labs/v1/claims/${claim.id}`)).claim
    assert.equal(
      new URL(verified.data.claim.items[0]?.photos[0]?.url as string).pathname,
      new URL(listed.items[0].photos[0].url).pathname,
      'the pushed claim is the claim the lab reads',
    )
  })
})
