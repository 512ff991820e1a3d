// Late-delivery credits (docs/billing.md#late-delivery-credits): a shipment on a guaranteed method (the sample
// catalogue guarantees Express and Overnight at 50%) delivered after its promise is credited by itself, in the change
// that records the Delivered scan: one credit on the order, one Refund charge with its credit note, one creditIssued
// event in the feed, the ledger or the balance moved as a refund moves them. Nothing when on time, on a method
// without a guarantee, or for a repeated report. The Sandbox scenario lateDelivery shows it with an SBX credit note.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fastJson from 'fast-json-stringify'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge, OrderDocument, TrackingEvent } from '../../src/domain/order.ts'
import { lateDeliveryCreditMinor } from '../../src/domain/order-credits.ts'
import { OrderSchema } from '../../src/http/schemas/order.schema.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { startAdminPages } from '../support/admin-pages.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { shippedOrder } from '../support/shipped-order.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const CREDIT_ISSUED = 'com.printroute.order.credits.credit#Issued'
const serializeOrder = fastJson(OrderSchema as object)

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number

/** The day after `date` ("YYYY-MM-DD") at noon UTC: a delivery after a promise ending on `date` is late. */
const dayAfter = (date: string, days = 1) => {
  const day = new Date(`${date}T12:00:00.000Z`)
  day.setUTCDate(day.getUTCDate() + days)
  return day.toISOString()
}

for (const kind of databaseKinds) {
  describe(`late-delivery credits (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const phoneOrder = (shippingMethod: string) =>
      sampleOrder({
        shippingMethod,
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })

    /** A Live order on `method`, made, shipped and scanned in transit; its one shipment and the promise's last day. */
    async function shippedLiveOrder(method: string, key: string) {
      const { orderId, order: shipped } = await shippedOrder(t, phoneOrder(method), { key })
      const [shipment] = shipped.document.shipments
      assert.ok(shipment, 'one shipment')
      const promisedTo = shipped.pipeline.shipments[shipment.id]?.promise?.estimatedDelivery.to
      assert.ok(promisedTo, 'the sample catalogue promises a delivery date')
      await scan(orderId, shipment.id, {
        time: '2026-03-02T18:00:00.000Z',
        status: 'InTransit',
        description: 'Picked up',
      })
      return { orderId, shipmentId: shipment.id, promisedTo }
    }

    const scan = (orderId: string, shipmentId: string, ...events: TrackingEvent[]) =>
      t.app.services.pipeline.reportLab(orderId, shipmentId, { kind: 'tracking', events })

    const delivered = (time: string): TrackingEvent => ({ time, status: 'Delivered', description: 'Delivered' })

    async function orderOf(orderId: string, key: string): Promise<OrderDocument> {
      const response = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order
    }

    async function creditEvents(server: 'live' | 'sandbox', orderId: string, key: string) {
      const response = await t[server]({ method: 'GET', url: `/v4.0/events?orderId=${orderId}` }, key)
      assert.equal(response.statusCode, 200, response.body)
      return (json(response).events as { type: string; data: Record<string, unknown> }[]).filter(
        (event) => event.type === CREDIT_ISSUED,
      )
    }

    /** 50% of what the shipment's shipping was charged (cost plus its tax), rounded half-up once. */
    async function expectedCredit(orderId: string, shipmentId: string): Promise<bigint> {
      const line = (await drive.state(orderId)).pipeline.billing?.lines[`shipping:${shipmentId}`]
      assert.ok(line, 'the shipment has a shipping line')
      const charged = BigInt(line.cost) + BigInt(line.tax)
      assert.ok(charged > 0n)
      return lateDeliveryCreditMinor(charged, 5000)
    }

    test('Express delivered late on an invoice account: one credit, one credit note, one event, the next invoice reduced', async () => {
      const key = t.account.liveKey
      const { orderId, shipmentId, promisedTo } = await shippedLiveOrder('Express', key)
      const amount = await expectedCredit(orderId, shipmentId)
      const ledgerBefore = (await listLedger(t.database.db, accountNumber(t.account))).length
      const result = await scan(orderId, shipmentId, delivered(dayAfter(promisedTo)))
      assert.equal(result.changed, true)

      const order = await orderOf(orderId, key)
      assert.equal(order.shipments[0]?.deliveredLate, true)
      assert.equal(JSON.stringify(order), serializeOrder(order), 'credits[] last, keys in the wire order')
      assert.equal(Object.keys(order).at(-1), 'credits')
      const credits = order.credits ?? []
      assert.equal(credits.length, 1)
      const credit = credits[0] as NonNullable<OrderDocument['credits']>[number]
      assert.match(credit.id, /^crd_\d+$/)
      assert.equal(credit.reason, 'LateDelivery')
      assert.equal(credit.shipmentId, shipmentId)
      assert.deepEqual(credit.amount, { amount: (Number(amount) / 100).toFixed(2), currency: 'GBP' })
      assert.match(credit.creditNote ?? '', /^CN-\d{6}$/)
      assert.equal(credit.claimId, undefined)
      // The credit is a Refund charge on the order, numbered by its credit note.
      const refund = order.charges.at(-1) as Charge
      assert.equal(order.charges.length, 2)
      assert.equal(refund.chargeType, 'Refund')
      assert.equal(refund.prodigiInvoiceNumber, credit.creditNote)
      assert.equal(minor(refund.totalCost.amount), -amount)
      const invoices = json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/invoices` }, key)).invoices
      assert.deepEqual(
        invoices.map((invoice: { number: string; kind: string }) => [invoice.number, invoice.kind]).at(-1),
        [credit.creditNote, 'CreditNote'],
      )
      // An invoice account: the credit goes to the ledger for the next invoice.
      const ledger = (await listLedger(t.database.db, accountNumber(t.account))).slice(ledgerBefore)
      assert.deepEqual(
        ledger.map((entry) => [entry.entry, entry.amountMinor, entry.chargeId]),
        [['invoice-refund', amount, refund.id]],
      )
      // One event, to webhook endpoints and the feed, carrying the credit beside the order.
      const events = await creditEvents('live', orderId, key)
      assert.equal(events.length, 1)
      const event = events[0] as (typeof events)[number]
      assert.deepEqual(event.data.credit, credit)
      assert.deepEqual(Object.keys(event.data), ['order', 'credit', 'traceParent'])
      assert.deepEqual((event.data.order as OrderDocument).credits, [credit], 'the order as it stood, with the credit')

      // The console's order page lists the credit with its credit note.
      const pages = await startAdminPages((scope, console) =>
        registerOrdersPages(scope, console, t.app.services.adminViews.orders),
      )
      try {
        const consolePage = await pages.request(`/admin/orders/${orderId}`)
        assert.equal(consolePage.status, 200)
        const row = /<tr data-credit="crd_\d+">.*?<\/tr>/s.exec(consolePage.body)?.[0] ?? ''
        assert.ok(row.includes(`<code>${credit.id}</code>`), row)
        assert.ok(row.includes(`credit note ${credit.creditNote}`), row)
        assert.ok(row.includes('Late delivery (guaranteed method)'), row)
        assert.ok(row.includes(shipmentId), row)
      } finally {
        await pages.close()
      }

      // The same Delivered report again, and another Delivered scan later: nothing more.
      assert.equal((await scan(orderId, shipmentId, delivered(dayAfter(promisedTo)))).changed, false)
      assert.equal((await scan(orderId, shipmentId, delivered(dayAfter(promisedTo, 2)))).changed, true)
      const again = await orderOf(orderId, key)
      assert.equal(again.credits?.length, 1)
      assert.equal(again.charges.length, 2)
      assert.equal((await creditEvents('live', orderId, key)).length, 1)
    })

    test('a prepaid account: the balance grows by the credit', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      await t.app.services.payments.topUp(accountNumber(account), 100_000n, 'bank transfer', TEST_ACTOR)
      const { orderId, shipmentId, promisedTo } = await shippedLiveOrder('Overnight', account.liveKey)
      const amount = await expectedCredit(orderId, shipmentId)
      const balance = await readBalance(t.database.db, accountNumber(account))
      await scan(orderId, shipmentId, delivered(dayAfter(promisedTo, 3)))
      const order = await orderOf(orderId, account.liveKey)
      assert.equal(order.credits?.length, 1)
      assert.equal(await readBalance(t.database.db, accountNumber(account)), balance + amount)
    })

    test('Express delivered on time: no credit, no key, no event', async () => {
      const key = t.account.liveKey
      const { orderId, shipmentId, promisedTo } = await shippedLiveOrder('Express', key)
      await scan(orderId, shipmentId, delivered(`${promisedTo}T09:00:00.000Z`))
      const order = await orderOf(orderId, key)
      assert.equal(order.shipments[0]?.deliveredLate, false)
      assert.equal(Object.hasOwn(order, 'credits'), false)
      assert.equal(order.charges.length, 1)
      assert.deepEqual(await creditEvents('live', orderId, key), [])
    })

    test('Standard (no guarantee) delivered late: late, yet no credit', async () => {
      const key = t.account.liveKey
      const { orderId, shipmentId, promisedTo } = await shippedLiveOrder('Standard', key)
      await scan(orderId, shipmentId, delivered(dayAfter(promisedTo, 4)))
      const order = await orderOf(orderId, key)
      assert.equal(order.shipments[0]?.deliveredLate, true)
      assert.equal(Object.hasOwn(order, 'credits'), false)
      assert.equal(order.charges.length, 1)
      assert.deepEqual(await creditEvents('live', orderId, key), [])
    })

    test('Sandbox scenario lateDelivery on Express: the simulated lab delivers late, the credit has an SBX credit note', async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: phoneOrder('Express'),
        headers: { 'content-type': 'application/json', 'x-sandbox-scenario': 'lateDelivery' },
      })
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      await drive.allocate(orderId)
      await drive.render(orderId)
      await drive.submit(orderId)
      const done = await drive.simulateLabs(orderId)
      const shipment = done.document.shipments[0]
      assert.equal(shipment?.deliveredLate, true)
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order as OrderDocument
      assert.equal(order.credits?.length, 1)
      const credit = order.credits?.[0]
      assert.equal(credit?.reason, 'LateDelivery')
      assert.equal(credit?.shipmentId, shipment?.id)
      assert.equal(minor(credit?.amount.amount ?? '0'), await expectedCredit(orderId, shipment?.id ?? ''))
      assert.match(credit?.creditNote ?? '', /^SBX-CN-\d{6}$/)
      assert.equal(order.charges.at(-1)?.prodigiInvoiceNumber, credit?.creditNote)
      assert.equal(JSON.stringify(order), serializeOrder(order))
      const events = await creditEvents('sandbox', orderId, t.account.sandboxKey)
      assert.deepEqual(
        events.map((event) => event.data.credit),
        [credit],
      )
    })
  })
}
