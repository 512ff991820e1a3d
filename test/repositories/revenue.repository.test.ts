// The revenue repository (src/repositories/revenue.repository.ts) on every configured database, over a real
// charged order: Live documents and hand-offs of a range only ([from, to), Sandbox never), what the lab and product
// groupings learn of the orders' shipments, one order's hand-offs, and the bounds that tell a range holding more.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import {
  listLiveDocumentsIssued,
  listLiveHandoffs,
  listOrderHandoffs,
  shipmentAttribution,
} from '../../src/repositories/revenue.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { insertHandoff } from '../support/shipment-costs.fixture.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const MARCH = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') }

for (const kind of databaseKinds) {
  describe(`revenue repository (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let accountNumber: number
    const live = { order: 0, shipment: '', charge: undefined as Charge | undefined }
    const sandbox = { order: 0, shipment: '' }

    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      const drive = pipelineDriver(t)
      accountNumber = parseId('acc', t.account.id) as number
      const place = async (server: 'live' | 'sandbox') => {
        const response = await t[server]({
          method: 'POST',
          url: '/v4.0/orders',
          headers: { 'content-type': 'application/json' },
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
        })
        const orderId = json(response).order.id as string
        const { document } = await drive.allocate(orderId)
        return { orderId, document }
      }
      const liveOrder = await place('live')
      live.order = parseId('ord', liveOrder.orderId) as number
      live.shipment = liveOrder.document.shipments[0]?.id as string
      live.charge = liveOrder.document.charges[0]
      const sandboxOrder = await place('sandbox')
      sandbox.order = parseId('ord', sandboxOrder.orderId) as number
      sandbox.shipment = sandboxOrder.document.shipments[0]?.id as string
      const db = t.database.db
      const common = { accountId: accountNumber, orderNumber: live.order, shipmentId: live.shipment }
      await insertHandoff(db, { ...common, labCode: 'LAB-A', outcome: 'Rejected', handedAt: MARCH.from })
      await insertHandoff(db, { ...common, labCode: 'LAB-B', handedAt: new Date('2026-03-31T23:59:59.999Z') })
      await insertHandoff(db, { ...common, labCode: 'LAB-C', kind: 'Reprint', handedAt: MARCH.to })
      await insertHandoff(db, {
        accountId: accountNumber,
        orderNumber: sandbox.order,
        shipmentId: sandbox.shipment,
        environment: 'sandbox',
      })
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    test("Live documents issued in the range, with their lines; Sandbox's and other months' are not", async () => {
      const documents = await listLiveDocumentsIssued(t.database.db, MARCH, 10)
      assert.equal(documents.length, 1)
      const [document] = documents
      assert.equal(document?.kind, 'Invoice')
      assert.equal(document?.orderNumber, live.order)
      assert.equal(document?.accountId, accountNumber)
      const charge = live.charge as Charge
      assert.equal(document?.currency, charge.totalCost.currency)
      const untaxed = document?.lines.reduce((sum, line) => sum + line.costMinor, 0n)
      const total = BigInt(charge.totalCost.amount.replace('.', '')) - BigInt(charge.totalTax.amount.replace('.', ''))
      assert.equal(untaxed, total)
      assert.ok(document?.lines.some((line) => line.kind === 'Item' && line.sku === PHONE_CASE))
      assert.ok(document?.lines.every((line) => line.shipmentId === live.shipment))
      const april = { from: MARCH.to, to: new Date('2026-05-01T00:00:00Z') }
      assert.deepEqual(await listLiveDocumentsIssued(t.database.db, april, 10), [])
    })

    test('Live hand-offs made in [from, to), oldest first, their amounts as bigint', async () => {
      const handoffs = await listLiveHandoffs(t.database.db, MARCH, 10)
      assert.deepEqual(
        handoffs.map((handoff) => [handoff.labCode, handoff.outcome, handoff.shipmentId, handoff.orderNumber]),
        [
          ['LAB-A', 'Rejected', live.shipment, live.order],
          ['LAB-B', 'Shipped', live.shipment, live.order],
        ],
      )
      assert.equal(handoffs[1]?.costInPriceCurrencyMinor, 900n)
      assert.equal(handoffs[1]?.priceItemsMinor, 1000n)
      assert.deepEqual(handoffs[1]?.handedAt, new Date('2026-03-31T23:59:59.999Z'))
      assert.equal((await listLiveHandoffs(t.database.db, MARCH, 1)).length, 1)
    })

    test("attribution: a shipment's latest hand-off's lab, whenever made, and its item lines' SKUs", async () => {
      const { attribution, complete } = await shipmentAttribution(t.database.db, MARCH, 10)
      assert.equal(complete, true)
      assert.equal(attribution.labOf.get(live.shipment), 'LAB-C') // handed over again in April
      assert.deepEqual([...(attribution.skusOf.get(live.shipment) ?? [])], [PHONE_CASE])
      assert.equal(attribution.labOf.has(sandbox.shipment), false)
      const bounded = await shipmentAttribution(t.database.db, MARCH, 2)
      assert.equal(bounded.complete, false)
    })

    test("one order's hand-offs, oldest first, whatever their date", async () => {
      const rows = await listOrderHandoffs(t.database.db, live.order)
      assert.deepEqual(
        rows.map((row) => row.labCode),
        ['LAB-A', 'LAB-B', 'LAB-C'],
      )
      assert.equal((await listOrderHandoffs(t.database.db, sandbox.order)).length, 1)
      assert.deepEqual(await listOrderHandoffs(t.database.db, 999_999), [])
    })
  })
}
