// printroute's packing slip of a shipment (docs/print-files.md, "Packing slips"), on the real listening servers
// and every database backend: made when a Live shipment is submitted, linked in its lab job as `packingSlipPdf`
// beside the merchant's own `packingSlip`, served as application/pdf under a signed link that expires and cannot
// be altered, and showing the order, the shipment, the recipient and exactly the shipment's items.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { PACKING_SLIP_PAGE_SIZE } from '../../src/adapters/packing-slip-pdf.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { documentText, qrCodesOnPage } from '../support/pdf-reading.ts'
import { type PipelineDriver, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const TTL_SECONDS = 3_600

interface Served {
  status: number
  headers: Record<string, string>
  body: string
  bytes: Buffer
}

async function fetchLink(url: string): Promise<Served> {
  const response = await fetch(url)
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, headers: Object.fromEntries(response.headers), body: bytes.toString('utf8'), bytes }
}

for (const kind of databaseKinds) {
  describe(`printroute's packing slip in the lab job (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let driver: PipelineDriver
    let addresses: { live: string; sandbox: string }
    let orderId: string
    let jobs: any[]

    before(async () => {
      t = await startTestApp({ kind, fileLinkTtlSeconds: TTL_SECONDS })
      addresses = await listenOnLoopback(t)
      const merchantSlip = { body: Buffer.from('%PDF-1.4\n% the merchant slip\n'), type: 'application/pdf' }
      images = await startImageServer({ '/slip.pdf': merchantSlip })
      driver = pipelineDriver(t)
      const created = await t.live({
        method: 'POST',
        url: '/v4.0/orders',
        payload: twoLabOrder(images.url, { packingSlip: { url: images.url('slip.pdf') } }),
      })
      orderId = json(created).order.id
      await driver.allocate(orderId)
      await driver.render(orderId)
      const submitted = await driver.submit(orderId)
      jobs = []
      for (const shipment of submitted.document.shipments) {
        const { key } = await t.app.services.labs.createLabKey(shipment.fulfillmentLocation.labCode, TEST_ACTOR)
        const listed = await t.live({ method: 'GET', url: '/labs/v1/jobs', headers: { 'x-api-key': key } }, null)
        jobs.push(...json(listed).jobs.filter((job: any) => job.shipmentId === shipment.id))
      }
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    test('each shipment of a Live order has its slip: the order, the shipment, the recipient, its own items', async () => {
      const order = await driver.document(orderId)
      assert.equal(jobs.length, 2, 'two labs, two shipments')
      for (const job of jobs) {
        // Appended after the keys that came before it; only the later optional keys follow it.
        const keys = Object.keys(job)
        const slipAt = keys.indexOf('packingSlipPdf')
        assert.equal(keys[slipAt - 1], 'priority', keys.join())
        for (const later of keys.slice(slipAt + 1))
          assert.ok(['cancellationRequested', 'customs', 'parcels'].includes(later), later)
        assert.match(job.packingSlip.url, /\/files\/assets\//, "the merchant's own slip is still linked")
        const link = job.packingSlipPdf.url as string
        assert.ok(link.startsWith(`${addresses.live}/files/print-files/${orderId}/${job.shipmentId}/`), link)
        const served = await fetchLink(link)
        assert.equal(served.status, 200)
        assert.equal(served.headers['content-type'], 'application/pdf')
        const pdf = await PDFDocument.load(served.bytes)
        const { width, height } = pdf.getPage(0).getSize()
        assert.deepEqual([width, height], [PACKING_SLIP_PAGE_SIZE.width, PACKING_SLIP_PAGE_SIZE.height])
        const lines = documentText(pdf).split('\n')
        for (const expected of [`Order ${orderId}`, 'Merchant reference: MR-1001', `Shipment ${job.shipmentId}`]) {
          assert.ok(lines.includes(expected), `${expected} in\n${lines.join('\n')}`)
        }
        for (const expected of ['Grace Hopper', '1 Main St', 'New York', '10001  US'])
          assert.ok(lines.includes(expected))
        const shipment = order.shipments.find((candidate) => candidate.id === job.shipmentId)
        const itemIds = shipment?.items.map((entry) => entry.itemId) ?? []
        assert.ok(itemIds.length > 0)
        for (const item of order.items) {
          const printed = lines.some((line) => line.startsWith(`Item ${item.id}`))
          assert.equal(printed, itemIds.includes(item.id), `${item.id} on the slip of ${job.shipmentId} or not`)
          if (itemIds.includes(item.id))
            assert.ok(lines.some((line) => line.includes(`  ${item.sku}  x ${item.copies}`)))
        }
        assert.deepEqual(qrCodesOnPage(pdf, 0), [job.shipmentId], 'the QR code holds the shipment id')
      }
    })

    test('the link is bound to Live, cannot be altered, and expires like any file link', async () => {
      const link = jobs[0].packingSlipPdf.url as string
      const onSandbox = new URL(link)
      onSandbox.port = new URL(addresses.sandbox).port
      const elsewhere = assertErrorBody(await fetchLink(onSandbox.toString()), 'EntityNotFound', 404)
      assert.match(elsewhere.statusText, /belongs to the Live environment/)
      const expires = Number(new URL(link).searchParams.get('expires'))
      const tampered = [
        link.replace(/expires=\d+/, `expires=${expires + 1}`),
        link.replace('packing-slip.pdf', 'packing-slip2.pdf'),
        link.replace(jobs[0].shipmentId, jobs[1].shipmentId),
        link.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`),
      ]
      for (const bad of tampered) assertErrorBody(await fetchLink(bad), 'EntityNotFound', 404)
      t.clock.advanceSeconds(TTL_SECONDS)
      assertErrorBody(await fetchLink(link), 'LinkExpired', 410)
    })
  })
}
