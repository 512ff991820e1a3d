// What a lab job tells a lab beyond the order (docs/pipeline.md#labs): the ship-by date from the delivery promise
// or, without one, from the lab's calendar counted from submission; the priority of the shipping method; and each
// print file's SHA-256, size, pixel size, effective dpi and colour space, checked here against the file the lab
// downloads through its signed link. Live orders moved through the real pipeline steps under a fixed clock, on
// every configured database.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { changedSampleCatalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

/** The lab that makes phone cases for GB. */
const CASE_LAB = 'prodigi_gb2'

/**
 * The sample catalogue with the phone-case lab working Saturdays too (so Friday's work can leave on Saturday and
 * still arrive when promised), and with no transit days for its Budget rate to GB (so Budget shipments have no
 * promise and their ship-by date comes from the calendar).
 */
function catalogue() {
  return changedSampleCatalogue('sample catalogue with a Saturday phone-case lab', (file) => {
    const lab = file.labs.find((candidate: { code: string }) => candidate.code === CASE_LAB)
    lab.calendar.workingDays = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
    const budget = lab.shippingRates.find(
      (rate: { method: string; zone: string }) => rate.method === 'Budget' && rate.zone === 'uk',
    )
    delete budget.transitDays
  })
}

for (const kind of databaseKinds) {
  describe(`what a lab job carries (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let labKey: string
    before(async () => {
      t = await startTestApp({ kind, catalogue: catalogue() })
      // The test clock starts on Sunday 1 March 2026, 09:00 UTC: move to Wednesday 4 March, 09:00 (10:00 in
      // London is before the 14:00 cut-off), so 2 production days end on Friday 6 March.
      t.clock.advanceSeconds(3 * 86_400)
      // 540 x 1035 px onto the phone case's 1080 x 2070 px print area: half the pixels, so 150 dpi.
      images = await startImageServer({}, await solidJpeg(540, 1035, { r: 200, g: 80, b: 40 }))
      labKey = (await t.app.services.labs.createLabKey(CASE_LAB, TEST_ACTOR)).key
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const drive = () => pipelineDriver(t)

    async function createOrder(shippingMethod: string): Promise<string> {
      const payload = sampleOrder({
        shippingMethod,
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id
    }

    async function jobOf(shipmentId: string) {
      const listed = await t.app.live.inject({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': labKey } })
      assert.equal(listed.statusCode, 200, listed.body)
      const job = json(listed).jobs.find((candidate: { shipmentId: string }) => candidate.shipmentId === shipmentId)
      assert.ok(job, `${shipmentId} is listed`)
      return job
    }

    /** A Live order of one phone case, allocated, rendered and submitted: the lab's job for it. */
    async function submittedJob(shippingMethod: string) {
      const orderId = await createOrder(shippingMethod)
      await drive().allocate(orderId)
      await drive().render(orderId)
      const submitted = await drive().submit(orderId)
      const shipment = submitted.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.labCode, CASE_LAB)
      return { orderId, shipment, job: await jobOf(shipment.id) }
    }

    test('a Standard job: new keys after the old ones, ship by from the promise, every print file fact true to the file', async () => {
      const { shipment, job } = await submittedJob('Standard')
      assert.deepEqual(Object.keys(job), [
        'shipmentId',
        'orderId',
        'state',
        'shippingMethod',
        'carrier',
        'recipient',
        'items',
        'packingSlip',
        'branding',
        'shipBy',
        'priority',
        'packingSlipPdf',
        'parcels',
      ])
      assert.equal(job.priority, 'normal')
      // Promised: dispatch Friday 6 March, 2 to 3 carrier days, so by Wednesday 11 March. Dispatched on Saturday
      // (the lab works Saturdays) the parcel still arrives by then; Sunday is not worked.
      assert.equal(shipment.estimatedDispatchDate, '2026-03-06')
      assert.equal(shipment.estimatedDelivery?.to, '2026-03-11')
      assert.equal(job.shipBy, '2026-03-07')

      const printFile = job.items[0].printFiles[0]
      assert.deepEqual(Object.keys(printFile), [
        'printArea',
        'url',
        'format',
        'sha256',
        'bytes',
        'pixelSize',
        'dpi',
        'colourSpace',
        'sourceDpi',
        'manifest',
      ])
      const link = new URL(printFile.url)
      const downloaded = await t.app.live.inject({ method: 'GET', url: `${link.pathname}${link.search}` })
      assert.equal(downloaded.statusCode, 200)
      const bytes = downloaded.rawPayload
      assert.equal(printFile.sha256, createHash('sha256').update(bytes).digest('hex'))
      assert.equal(printFile.bytes, bytes.length)
      const metadata = await sharp(bytes).metadata()
      assert.deepEqual(printFile.pixelSize, { width: metadata.width, height: metadata.height })
      // The phone case's print area laid out from its specification: 71.4 x 144 mm at 350 dpi (984 x 1984 px) plus
      // 4 mm (55 px) of bleed on each side.
      assert.deepEqual(printFile.pixelSize, { width: 1094, height: 2094 })
      assert.equal(printFile.colourSpace, metadata.space)
      assert.equal(printFile.colourSpace, 'srgb')
      // The file opens at its print size (the specification's 350 px per inch); the source filled into it gives
      // fewer source pixels per printed inch, its own figure.
      assert.equal(printFile.dpi, 350)
      assert.equal(metadata.density, 350)
      // 540 source pixels across 1,094 file pixels at 350 dpi: 172.8, rounded down.
      assert.equal(printFile.sourceDpi, 172)
      assert.equal(printFile.manifest?.outputSha256, printFile.sha256)
      assert.equal(printFile.manifest?.colour.space, 'srgb')
      assert.equal(printFile.manifest?.target.dpi, 350)
    })

    test('a job crossing a border carries the customs data printroute holds; a domestic job none', async () => {
      const domestic = await submittedJob('Standard')
      assert.equal(domestic.job.customs, undefined, 'GB lab to a GB recipient')

      const payload = sampleOrder({
        recipient: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          phoneNumber: '+353 1 555 0100',
          address: {
            line1: '1 Test Street',
            line2: null,
            postalOrZipCode: 'D02 X285',
            countryCode: 'IE',
            townOrCity: 'Dublin',
            stateOrCounty: null,
          },
        },
        items: [
          {
            sku: PHONE_CASE,
            copies: 2,
            sizing: 'fillPrintArea',
            recipientCost: { amount: '19.50', currency: 'EUR' },
            assets: [{ url: images.url('case.jpg') }],
          },
          { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] },
        ],
      })
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const order = json(created).order
      await drive().allocate(order.id)
      await drive().render(order.id)
      const submitted = await drive().submit(order.id)
      const shipment = submitted.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.countryCode, 'GB')
      const job = await jobOf(shipment.id)
      // The fields first given stay as they were; the declaration's own are tested in lab-jobs.customs.test.ts.
      const firstFields = {
        originCountryCode: job.customs.originCountryCode,
        destinationCountryCode: job.customs.destinationCountryCode,
        items: job.customs.items.map((item: Record<string, unknown>) => ({
          itemId: item.itemId,
          description: item.description,
          copies: item.copies,
          declaredValue: item.declaredValue,
        })),
      }
      assert.deepEqual(firstFields, {
        originCountryCode: 'GB',
        destinationCountryCode: 'IE',
        items: [
          {
            itemId: order.items[0].id,
            description: 'iPhone 11 Pro snap case, full-colour print',
            copies: 2,
            declaredValue: { amount: '19.50', currency: 'EUR' },
          },
          {
            itemId: order.items[1].id,
            description: 'iPhone 11 Pro snap case, full-colour print',
            copies: 1,
            declaredValue: null,
          },
        ],
      })
    })

    test('priority follows the shipping method; each faster promise also lets Friday work leave on Saturday', async () => {
      const expected = {
        StandardPlus: { priority: 'high', promisedDispatch: '2026-03-06', shipBy: '2026-03-07' },
        Express: { priority: 'urgent', promisedDispatch: '2026-03-06', shipBy: '2026-03-07' },
        Overnight: { priority: 'urgent', promisedDispatch: '2026-03-06', shipBy: '2026-03-07' },
      } as const
      for (const [method, want] of Object.entries(expected)) {
        const { shipment, job } = await submittedJob(method)
        assert.equal(job.shippingMethod, method)
        assert.equal(job.priority, want.priority, method)
        assert.equal(shipment.estimatedDispatchDate, want.promisedDispatch)
        assert.equal(job.shipBy, want.shipBy, method)
      }
    })

    test('without a promise the ship-by date is the lab calendar from submission; an older print file omits its facts', async () => {
      const orderId = await createOrder('Budget')
      await drive().allocate(orderId)
      const rendered = await drive().render(orderId)
      const shipment = rendered.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.estimatedDispatchDate ?? null, null)
      assert.equal(rendered.pipeline.shipments[shipment.id]?.promise, undefined, 'no transit days: no promise')
      // Submitted on Friday 6 March at 15:00 UTC, after the cut-off: production starts on Saturday 7 and its 2
      // working days are Monday 9 and Tuesday 10 (Sunday is not worked).
      t.clock.advanceSeconds(2 * 86_400 + 6 * 3600)
      await drive().submit(orderId)
      const job = await jobOf(shipment.id)
      assert.equal(job.priority, 'normal')
      assert.equal(job.shipBy, '2026-03-10')

      // A print file made before its facts were kept, and a shipment submitted before its time was: the keys are
      // left out rather than guessed.
      const assetId = Object.keys(rendered.pipeline.shipments[shipment.id]?.printFiles ?? {})[0]
      assert.ok(assetId)
      await t.database.db.query(
        `UPDATE orders
            SET pipeline = pipeline #- $1::text[] #- $2::text[] #- $3::text[] #- $4::text[] #- $5::text[]
          WHERE id = $6`,
        [
          ['shipments', shipment.id, 'printFiles', assetId, 'sha256'],
          ['shipments', shipment.id, 'printFiles', assetId, 'bytes'],
          ['shipments', shipment.id, 'printFiles', assetId, 'dpi'],
          ['shipments', shipment.id, 'printFiles', assetId, 'colourSpace'],
          ['shipments', shipment.id, 'submitted', 'at'],
          Number(orderId.slice('ord_'.length)),
        ],
      )
      const older = await jobOf(shipment.id)
      assert.deepEqual(Object.keys(older.items[0].printFiles[0]), ['printArea', 'url', 'format'])
      assert.equal('shipBy' in older, false, 'no promise and no submission time: no ship-by date')
      assert.equal(older.priority, 'normal')
    })
  })
}
