// The lab side of the pipeline: the lab API on the Live address (a real lab picks up its jobs and reports
// them), re-allocation when a lab cannot make an item, ItemUnavailable when no lab can. Each step runs as its job
// would (the step helper, no live queue): what is proved is what each step and each lab report does.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

/** An 800x1200 JPEG at every path but the packing slip, which is a PDF. */
async function imageServer(): Promise<ImageServer> {
  const slip = { body: Buffer.from('%PDF-1.4\n% packing slip\n'), type: 'application/pdf' }
  return startImageServer({ '/slip.pdf': slip }, await solidJpeg(800, 1200, { r: 200, g: 80, b: 40 }))
}

const GB_ORDER = (url: (name: string) => string, overrides: Record<string, unknown> = {}) =>
  sampleOrder({
    items: [{ sku: 'GLOBAL-FAP-16x24', copies: 1, sizing: 'fillPrintArea', assets: [{ url: url('print.jpg') }] }],
    packingSlip: { url: url('slip.pdf') },
    branding: { flyer: { url: url('flyer.jpg') } },
    ...overrides,
  })

/**
 * Allocates the order, makes its print files and submits it, allocation round after round, while its lab (a
 * simulated one, in Sandbox) rejects it, until it is with a lab that took it or no lab is left (ItemUnavailable).
 */
async function submitUntilTaken(drive: PipelineDriver, orderId: string, simulated: boolean) {
  // More rounds than the sample catalogue has labs: each rejection leaves one lab out.
  for (let round = 0; round < 20; round++) {
    const allocated = await drive.allocate(orderId)
    if (allocated.document.shipments.length === 0) return allocated
    await drive.render(orderId)
    await drive.submit(orderId)
    if (!simulated) return drive.state(orderId)
    const worked = await drive.simulateLabs(orderId, { carrierScans: false })
    if (worked.document.shipments.length > 0) return worked
  }
  throw new Error(`order ${orderId} was still being rejected after 20 rounds`)
}

describe('the lab API (Live)', () => {
  let images: ImageServer
  let t: TestApp
  let labKey: string
  const lab = (method: 'GET' | 'POST', url: string, payload?: unknown, key: string | null = labKey) =>
    t.app.live.inject({
      method,
      url,
      headers: { ...(key ? { 'x-api-key': key } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: payload as object } : {}),
    })

  before(async () => {
    images = await imageServer()
    t = await startTestApp({ realClock: true })
  })
  after(async () => {
    await t.close()
    await images.close()
  })

  test('a lab lists its shipment with print files, recipient, packing slip and branding, and reports it shipped', async () => {
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      payload: GB_ORDER(images.url),
      headers: { 'content-type': 'application/json' },
    })
    const orderId = json(created).order.id
    const get = async () => json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    const allocated = await get()
    const shipment = allocated.shipments[0]
    labKey = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key

    assert.equal((await lab('GET', '/labs/v1/jobs', undefined, null)).statusCode, 401)
    assert.equal(
      (await lab('GET', '/labs/v1/jobs', undefined, t.account.liveKey)).statusCode,
      401,
      'merchant keys are not lab keys',
    )
    await drive.render(orderId)
    await drive.submit(orderId)
    const listed = await lab('GET', '/labs/v1/jobs')
    assert.equal(listed.statusCode, 200, listed.body)
    const job = json(listed).jobs.find((candidate: any) => candidate.shipmentId === shipment.id)
    assert.ok(job, 'the shipment in the lab job list')
    const submitted = await get()
    assert.equal(job.orderId, orderId)
    assert.equal(job.recipient.name, 'Ada Lovelace')
    assert.equal(job.items[0].sku, 'GLOBAL-FAP-16x24')
    assert.match(job.items[0].printFiles[0].url, /\/files\/print-files\//)
    assert.match(job.packingSlip.url, /\/files\/assets\//)
    assert.ok(job.branding.flyer.url)
    const printFile = new URL(job.items[0].printFiles[0].url)
    const file = await t.app.live.inject({ method: 'GET', url: `${printFile.pathname}${printFile.search}` })
    assert.equal(file.statusCode, 200)
    const metadata = await sharp(file.rawPayload).metadata()
    // Laid out from the 16x24 in print's spec: the 406.4 x 609.6 mm trim is 4800 x 7200 px at 300 dpi, with 3 mm of
    // bleed (round(35.43) = 35 px) on every side.
    assert.deepEqual([metadata.width, metadata.height], [4800 + 70, 7200 + 70])
    assert.equal(submitted.packingSlip.status, 'Success')

    assert.equal(json(await lab('POST', `/labs/v1/jobs/${shipment.id}/acknowledge`)).outcome, 'Updated')
    assert.equal(
      json(await lab('POST', `/labs/v1/jobs/${shipment.id}/acknowledge`)).outcome,
      'Ok',
      'a repeat changes nothing',
    )
    assert.equal(json(await lab('POST', `/labs/v1/jobs/${shipment.id}/in-production`)).outcome, 'Updated')
    const bad = await lab('POST', `/labs/v1/jobs/${shipment.id}/shipped`, { carrier: { name: '' } })
    assert.equal(bad.statusCode, 400)
    const shipped = await lab('POST', `/labs/v1/jobs/${shipment.id}/shipped`, {
      carrier: { name: 'Royal Mail', service: 'Tracked 48' },
      tracking: { number: 'RM123456789GB', url: 'https://www.royalmail.com/portal/rm/track?trackNumber=RM123456789GB' },
      dispatchDate: '2026-11-21T10:00:00Z',
    })
    assert.equal(json(shipped).outcome, 'Updated', shipped.body)
    const complete = await get()
    assert.equal(complete.status.stage, 'Complete')
    assert.equal(complete.shipments[0].status, 'Shipped')
    assert.deepEqual(complete.shipments[0].carrier, { name: 'Royal Mail', service: 'Tracked 48' })
    assert.equal(complete.shipments[0].tracking.number, 'RM123456789GB')
    assert.equal(complete.shipments[0].dispatchDate, '2026-11-21T10:00:00.000Z')
    assert.deepEqual(json(await lab('GET', '/labs/v1/jobs')).jobs, [], 'shipped jobs leave the list')

    const otherLab = (
      await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode === 'us1' ? 'uk6' : 'us1', TEST_ACTOR)
    ).key
    const foreign = await lab('POST', `/labs/v1/jobs/${shipment.id}/acknowledge`, undefined, otherLab)
    assert.equal(foreign.statusCode, 404, 'a lab sees only its own shipments')
  })

  test('Sandbox shipments never reach the lab API: not listed, not reportable', async () => {
    // Submitted to its simulated lab, whose steps are not run: the Sandbox shipment stays open at its lab.
    const created = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: GB_ORDER(images.url),
      headers: { 'content-type': 'application/json' },
    })
    const orderId = json(created).order.id
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    await drive.render(orderId)
    await drive.submit(orderId)
    const submitted = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    assert.equal(submitted.status.details.inProduction, 'InProgress', 'submitted to the simulated lab')
    const shipment = submitted.shipments[0]
    const key = (await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)).key
    const asLab = (method: 'GET' | 'POST', url: string) =>
      t.app.live.inject({ method, url, headers: { 'x-api-key': key } })
    assert.deepEqual(json(await asLab('GET', '/labs/v1/jobs')).jobs, [])
    assert.equal((await asLab('POST', `/labs/v1/jobs/${shipment.id}/acknowledge`)).statusCode, 404)
  })

  test('a lab that rejects a shipment hands it to the next-best lab', async () => {
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      payload: GB_ORDER(images.url, { packingSlip: null, branding: null }),
      headers: { 'content-type': 'application/json' },
    })
    const orderId = json(created).order.id
    const get = async () => json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
    const drive = pipelineDriver(t)
    await submitUntilTaken(drive, orderId, false)
    const first = await get()
    assert.ok(first.shipments.length > 0, 'allocated')
    const rejectedLab = first.shipments[0].fulfillmentLocation.labCode
    const key = (await t.app.services.labs.createLabKey(rejectedLab, TEST_ACTOR)).key
    const jobs = json(await lab('GET', '/labs/v1/jobs', undefined, key)).jobs as { shipmentId: string }[]
    assert.ok(
      jobs.find((candidate) => candidate.shipmentId === first.shipments[0].id),
      'the shipment in the lab job list',
    )
    const rejected = await lab('POST', `/labs/v1/jobs/${first.shipments[0].id}/reject`, { reason: 'printer down' }, key)
    assert.equal(json(rejected).outcome, 'Updated', rejected.body)
    // The rejection's allocation round, its print file and the submission to the next lab.
    await submitUntilTaken(drive, orderId, false)
    const moved = await get()
    assert.equal(moved.shipments.length, 1, 're-allocated')
    assert.notEqual(moved.shipments[0].id, first.shipments[0].id)
    assert.equal(moved.status.details.inProduction, 'InProgress')
    assert.notEqual(moved.shipments[0].fulfillmentLocation.labCode, rejectedLab)
    assert.equal(moved.status.stage, 'InProgress')
    assert.deepEqual(withoutResolutionWarnings(moved.status.issues), [])
  })
})

describe('simulated labs in Sandbox', () => {
  test('labs told to reject every shipment pass the work on until none is left: ItemUnavailable', async () => {
    const images = await imageServer()
    const t = await startTestApp({ realClock: true, pipeline: { simulatedRejectRate: 1 } })
    try {
      const created = json(
        await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [
              {
                sku: 'GLOBAL-TECH-IP11P-FC-CP',
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ url: images.url('a.jpg') }],
              },
            ],
          }),
          headers: { 'content-type': 'application/json' },
        }),
      )
      await submitUntilTaken(pipelineDriver(t), created.order.id, true)
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${created.order.id}` })).order
      assert.equal(order.status.details.allocateProductionLocation, 'Error', 'ItemUnavailable')
      assert.equal(order.status.issues.at(-1).errorCode, 'order.items.ItemUnavailable')
      assert.deepEqual(order.shipments, [])
    } finally {
      await t.close()
      await images.close()
    }
  })

  test('an item a lab has no stock of moves to another lab; with no lab left it is ItemUnavailable', async () => {
    const images = await imageServer()
    const t = await startTestApp({
      realClock: true,
      pipeline: { simulatedUnavailableSkus: ['GLOBAL-TECH-IP11P-FC-CP', 'global-fap-8x10'] },
    })
    try {
      const create = async (sku: string, attributes: Record<string, string> = {}) =>
        json(
          await t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder({
              items: [{ sku, copies: 1, sizing: 'fillPrintArea', attributes, assets: [{ url: images.url('a.jpg') }] }],
            }),
            headers: { 'content-type': 'application/json' },
          }),
        ).order.id
      const get = async (orderId: string) =>
        json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
      // Every simulated lab is out of this SKU: each of the seven labs that make it refuses in turn (each round
      // renders its print file again: an 8x10, not a poster, keeps that quick), then nobody is left.
      const drive = pipelineDriver(t)
      const fineArt = await create('GLOBAL-FAP-8x10')
      await submitUntilTaken(drive, fineArt, true)
      const unavailable = await get(fineArt)
      assert.equal(unavailable.status.details.allocateProductionLocation, 'Error', 'ItemUnavailable')
      assert.equal(unavailable.status.issues.at(-1).errorCode, 'order.items.ItemUnavailable')
      assert.equal(unavailable.status.issues.at(-1).objectId, unavailable.items[0].id)
      assert.deepEqual(unavailable.shipments, [])
      // A SKU with stock still completes.
      const photo = await create('GLOBAL-PHO-4x6', { finish: 'gloss' })
      await submitUntilTaken(drive, photo, true)
      const done = await get(photo)
      assert.equal(done.status.stage, 'Complete')
      assert.equal(done.shipments.length, 1)
    } finally {
      await t.close()
      await images.close()
    }
  })
})
