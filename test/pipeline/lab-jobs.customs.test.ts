// A cross-border lab job's customs declaration and commercial invoice (docs/labs.md#customs), on the real listening
// servers and every database backend: a Live order from the GB phone-case lab to Ireland, one item with the
// merchant's declared value (`recipientCost`) and one without (its price is declared), shipped DDP with an IOSS
// number. The job lists each item with its HS code, origin, weight and declared value; the commercial invoice PDF,
// read back, shows the same; its link cannot be altered and expires; a domestic job has neither.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const TTL_SECONDS = 3_600
/** The lab that makes phone cases for GB and Ireland (catalogue sample). */
const CASE_LAB = 'prodigi_gb2'
const IOSS = 'IM0123456789'

async function fetchLink(url: string) {
  const response = await fetch(url)
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers: Object.fromEntries(response.headers), body: bytes.toString('utf8'), bytes }
}

const IRISH_RECIPIENT = {
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
}

for (const kind of databaseKinds) {
  describe(`a cross-border lab job's customs declaration and commercial invoice (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let addresses: { live: string; sandbox: string }
    let labKey: string
    before(async () => {
      t = await startTestApp({ kind, fileLinkTtlSeconds: TTL_SECONDS })
      addresses = await listenOnLoopback(t)
      images = await startImageServer({}, await solidJpeg(540, 1035, { r: 200, g: 80, b: 40 }))
      labKey = (await t.app.services.labs.createLabKey(CASE_LAB, TEST_ACTOR)).key
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** A Live order submitted to the phone-case lab: the order as the merchant reads it, and the lab's job. */
    async function submittedJob(overrides: Record<string, unknown>) {
      const payload = sampleOrder(overrides)
      const created = await t.live({ method: 'POST', url: '/v4.0/orders', payload })
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      const driver = pipelineDriver(t)
      await driver.allocate(orderId)
      await driver.render(orderId)
      const submitted = await driver.submit(orderId)
      const shipment = submitted.document.shipments[0]
      assert.ok(shipment)
      assert.equal(shipment.fulfillmentLocation.labCode, CASE_LAB)
      const listed = await t.live({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': labKey } }, null)
      const job = json(listed).jobs.find((candidate: { shipmentId: string }) => candidate.shipmentId === shipment.id)
      assert.ok(job, `${shipment.id} is listed`)
      const read = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` })
      return { order: json(read).order, job }
    }

    const caseItem = (copies: number, extra: Record<string, unknown> = {}) => ({
      sku: PHONE_CASE,
      copies,
      sizing: 'fillPrintArea',
      assets: [{ url: images.url('case.jpg') }],
      ...extra,
    })

    let crossBorder: Awaited<ReturnType<typeof submittedJob>>

    test('the job declares each item: HS code, origin, weight, and its recipientCost or else its price', async () => {
      crossBorder = await submittedJob({
        recipient: IRISH_RECIPIENT,
        customs: { incoterm: 'DDP', iossNumber: IOSS },
        items: [caseItem(2, { recipientCost: { amount: '19.50', currency: 'EUR' } }), caseItem(1)],
      })
      const { order, job } = crossBorder
      // The price of the item without a declared value: what printroute charged for it, per copy.
      const charged = order.charges
        .flatMap(
          (charge: { items: { itemId: string | null; cost: { amount: string; currency: string } }[] }) => charge.items,
        )
        .find((line: { itemId: string | null }) => line.itemId === order.items[1].id)
      assert.ok(charged, 'the second item was charged')
      const { commercialInvoice, ...declaration } = job.customs
      assert.deepEqual(declaration, {
        originCountryCode: 'GB',
        destinationCountryCode: 'IE',
        incoterm: 'DDP',
        iossNumber: IOSS,
        items: [
          {
            itemId: order.items[0].id,
            description: 'iPhone 11 Pro snap case, full-colour print',
            copies: 2,
            declaredValue: { amount: '19.50', currency: 'EUR' },
            hsCode: '392690',
            originCountryCode: 'GB',
            unitValue: { amount: '19.50', currency: 'EUR' },
            totalValue: { amount: '39.00', currency: 'EUR' },
            valueSource: 'recipientCost',
            weightGrams: 60,
          },
          {
            itemId: order.items[1].id,
            description: 'iPhone 11 Pro snap case, full-colour print',
            copies: 1,
            declaredValue: null,
            hsCode: '392690',
            originCountryCode: 'GB',
            unitValue: charged.cost,
            totalValue: charged.cost,
            valueSource: 'itemPrice',
            weightGrams: 60,
          },
        ],
        totalValue: declaration.totalValue,
        totalWeightGrams: 180,
      })
      assert.match(declaration.totalValue.amount, /^\d+\.\d\d$/)
      assert.ok(Number(declaration.totalValue.amount) > 0)
      assert.ok(
        (commercialInvoice.url as string).startsWith(
          `${addresses.live}/files/commercial-invoices/${order.id}/${job.shipmentId}.pdf?`,
        ),
        commercialInvoice.url,
      )
    })

    test('the commercial invoice PDF shows the sender, recipient, every item as declared, totals and terms', async () => {
      const { order, job } = crossBorder
      const served = await fetchLink(job.customs.commercialInvoice.url)
      assert.equal(served.status, 200, served.body)
      assert.equal(served.headers['content-type'], 'application/pdf')
      const lines = documentText(await PDFDocument.load(served.bytes)).split('\n')
      const text = lines.join('\n')
      for (const expected of [
        'Commercial invoice',
        `Shipment ${job.shipmentId}   Order ${order.id}`,
        'Reason for export: Sale of goods',
        'Incoterm: DDP   From GB to IE',
        `IOSS number: ${IOSS}`,
        'Ada Lovelace',
        'D02 X285  IE',
        `Total value: ${job.customs.totalValue.amount} ${job.customs.totalValue.currency}`,
        'Total weight: 180 g',
      ]) {
        assert.ok(
          lines.some((line) => line.includes(expected)),
          `${expected} in\n${text}`,
        )
      }
      assert.match(text, /Date: \d{4}-\d{2}-\d{2}/)
      // Each cell of an item row is its own text run: the row reads as consecutive runs.
      const hasRow = (cells: string[]) =>
        lines.some((_, index) => cells.every((cell, offset) => lines[index + offset] === cell))
      for (const item of job.customs.items) {
        const cells = [
          '392690',
          'GB',
          String(item.copies),
          `${item.unitValue.amount} ${item.unitValue.currency}`,
          `${item.totalValue.amount} ${item.totalValue.currency}`,
          String(item.weightGrams * item.copies),
        ]
        assert.ok(hasRow(cells), `${cells.join(' | ')} in\n${text}`)
      }
      assert.ok(lines.includes(IRISH_RECIPIENT.address.line1))
      assert.ok(lines.includes('Gifts and tech lab, London'), 'the sender is the lab')
    })

    test("the lab portal's job page links the commercial invoice", async () => {
      const signedIn = await t.app.live.inject({
        method: 'POST',
        url: '/labs/portal/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ labKey }).toString(),
      })
      assert.equal(signedIn.statusCode, 303, signedIn.body)
      const session = signedIn.cookies.find((candidate) => candidate.name === 'printroute_lab_session')
      assert.ok(session)
      const page = await t.app.live.inject({
        method: 'GET',
        url: `/labs/portal/jobs/${crossBorder.job.shipmentId}`,
        headers: { cookie: `${session.name}=${session.value}` },
      })
      assert.equal(page.statusCode, 200, page.body)
      const link = /<a href="([^"]+)">Commercial invoice \(PDF\)<\/a>/.exec(page.body)?.[1]
      assert.ok(link, 'the job page links the commercial invoice')
      assert.match(page.body, /DDP to IE/)
      const served = await fetchLink(link.replaceAll('&amp;', '&'))
      assert.equal(served.status, 200, served.body)
      assert.equal(served.headers['content-type'], 'application/pdf')
    })

    test('the link is bound to Live, cannot be altered, and expires like any file link', async () => {
      const link = crossBorder.job.customs.commercialInvoice.url as string
      const onSandbox = new URL(link)
      onSandbox.port = new URL(addresses.sandbox).port
      assertErrorBody(await fetchLink(onSandbox.toString()), 'EntityNotFound', 404)
      const expires = Number(new URL(link).searchParams.get('expires'))
      const tampered = [
        link.replace(/expires=\d+/, `expires=${expires + 1}`),
        link.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`),
        link.replace(`${crossBorder.job.shipmentId}.pdf`, 'shp_999999.pdf'),
        link.split('?')[0] as string,
      ]
      for (const bad of tampered) assertErrorBody(await fetchLink(bad), 'EntityNotFound', 404)
      t.clock.advanceSeconds(TTL_SECONDS)
      assertErrorBody(await fetchLink(link), 'LinkExpired', 410)
    })

    test('an item the lab gave back is no longer declared', async () => {
      const { order, job } = await submittedJob({ recipient: IRISH_RECIPIENT, items: [caseItem(1), caseItem(3)] })
      assert.equal(job.customs.items.length, 2)
      const [kept, given] = order.items
      const rejected = await t.live(
        {
          method: 'POST',
          url: `/labs/v1/jobs/${job.shipmentId}/reject`,
          headers: { 'x-api-key': labKey, 'content-type': 'application/json' },
          payload: { reason: 'out of cases', items: [{ itemId: given.id, reason: 'OutOfStock' }] },
        },
        null,
      )
      assert.equal(rejected.statusCode, 200, rejected.body)
      const listed = await t.live({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': labKey } }, null)
      const after = json(listed).jobs.find(
        (candidate: { shipmentId: string }) => candidate.shipmentId === job.shipmentId,
      )
      assert.ok(after, 'the job is still open for the kept item')
      assert.deepEqual(
        after.items.map((item: { itemId: string; state: string }) => [item.itemId, item.state]),
        [
          [kept.id, 'open'],
          [given.id, 'rejected'],
        ],
      )
      assert.deepEqual(
        after.customs.items.map((item: { itemId: string }) => item.itemId),
        [kept.id],
      )
      assert.equal(after.customs.totalWeightGrams, 60)
    })

    test('a domestic job has no customs declaration', async () => {
      const { job } = await submittedJob({ items: [caseItem(1)] })
      assert.equal(job.recipient.address.countryCode, 'GB')
      assert.equal(job.customs, undefined)
    })
  })
}
