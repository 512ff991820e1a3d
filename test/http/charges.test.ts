// Charges and their settlement (docs/billing.md): the first charge when an order enters fulfilment, priced by the
// pricing code quotes use; Sandbox never bills; Live invoice accounts are written to the ledger; prepaid orders
// the balance cannot cover wait for a payment on printroute's payment page or a top-up.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SIMULATED_DECLINED_CARD } from '../../src/adapters/payment-provider.ts'
import { allocateShipments } from '../../src/domain/allocation/allocation.ts'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge, OrderDocument } from '../../src/domain/order.ts'
import { priceAllocation } from '../../src/domain/pricing.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number

for (const kind of databaseKinds) {
  describe(`charges and payments (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind, publicUrls: { live: 'https://live.printroute.test' } })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    /** The two-lab order with 2 canvases: two labs, two currencies, two shipments. */
    const splitOrder = () => twoLabOrder(images.url, { canvas: { copies: 2 } })

    function phoneOrder() {
      return sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
    }

    async function create(server: 'sandbox' | 'live', payload: Record<string, unknown>, key: string): Promise<string> {
      const response = await t[server](
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    test('entering fulfilment charges the order: Item and Shipping lines, priced like a quote, in the billing currency', async () => {
      const account = await t.createAccount({ billingCurrency: 'EUR' })
      const orderId = await create('sandbox', splitOrder(), account.sandboxKey)
      assert.deepEqual((await drive.document(orderId)).charges, [])
      const order = (await drive.allocate(orderId)).document
      assert.equal(order.charges.length, 1)
      const charge = order.charges[0] as Charge
      assert.deepEqual(Object.keys(charge), [
        'id',
        'chargeType',
        'prodigiInvoiceNumber',
        'totalCost',
        'totalTax',
        'items',
      ])
      assert.match(charge.id, /^chg_\d+$/)
      assert.equal(charge.chargeType, 'Item')
      // Every charge has its document (docs/billing.md#invoices): a Sandbox order's first is SBX-INV-.
      assert.match(charge.prodigiInvoiceNumber ?? '', /^SBX-INV-\d{6}$/)
      for (const line of charge.items) {
        assert.deepEqual(Object.keys(line), ['id', 'chargeType', 'itemId', 'shipmentId', 'cost'])
        assert.match(line.id, /^chi_\d+$/)
        assert.equal(line.cost.currency, 'EUR')
      }
      // One Item line per item, in the shipment that makes it; one Shipping line per shipment.
      const shipmentOf = new Map(
        order.shipments.flatMap((shipment) => shipment.items.map((entry) => [entry.itemId, shipment.id] as const)),
      )
      const itemLines = charge.items.filter((line) => line.chargeType === 'Item')
      const shippingLines = charge.items.filter((line) => line.chargeType === 'Shipping')
      assert.deepEqual(
        itemLines.map((line) => [line.itemId, line.shipmentId]),
        order.items.map((item) => [item.id, shipmentOf.get(item.id)]),
      )
      assert.deepEqual(
        shippingLines.map((line) => [line.itemId, line.shipmentId]).sort(),
        order.shipments.map((shipment) => [null, shipment.id]).sort(),
      )
      // The same allocation priced directly by the pricing code gives the same amounts.
      const result = allocateShipments(catalogue, {
        destinationCountryCode: 'US',
        shippingMethod: 'Standard',
        items: order.items.map((item) => ({
          itemId: item.id,
          variant: catalogue.findVariant(item.sku, item.attributes) as never,
          copies: item.copies,
          pageCount: null,
        })),
      })
      assert.ok(result.ok)
      const priced = priceAllocation(
        catalogue,
        result.shipments,
        new Map(order.items.map((item) => [item.id, item.copies])),
        'US',
        'EUR',
      )
      const lineCost = (line: Charge['items'][0]) => minor(line.cost.amount)
      assert.equal(
        itemLines.map(lineCost).reduce((a, b) => a + b),
        priced.totals.items,
      )
      assert.equal(
        shippingLines.map(lineCost).reduce((a, b) => a + b),
        priced.totals.shipping,
      )
      assert.equal(minor(charge.totalTax.amount), priced.totals.tax)
      assert.equal(minor(charge.totalCost.amount), priced.totals.total)
      // totalCost = lines + tax, exactly.
      assert.equal(
        minor(charge.totalCost.amount),
        charge.items.map(lineCost).reduce((a, b) => a + b) + minor(charge.totalTax.amount),
      )
      // Sandbox shows charges and never bills.
      assert.deepEqual(await listLedger(t.database.db, accountNumber(account)), [])
    })

    test('GB orders carry 20% VAT on items and shipping', async () => {
      const orderId = await create('sandbox', phoneOrder(), t.account.sandboxKey)
      const charge = (await drive.allocate(orderId)).document.charges[0] as Charge
      const lines = charge.items.reduce((sum, line) => sum + minor(line.cost.amount), 0n)
      assert.ok(lines > 0n)
      // Each line's tax is rounded once; for these round amounts 20% is exact.
      assert.equal(minor(charge.totalTax.amount) * 5n, lines)
    })

    test('Live invoice accounts: every charge and refund goes to the ledger, the balance does not move', async () => {
      const orderId = await create('live', phoneOrder(), t.account.liveKey)
      const charged = (await drive.allocate(orderId)).document
      const total = minor((charged.charges[0] as Charge).totalCost.amount)
      assert.equal(withoutResolutionWarnings(charged.status.issues).length, 0)
      const cancel = json(
        await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, t.account.liveKey),
      )
      assert.equal(cancel.outcome, 'Cancelled')
      const ledger = await listLedger(t.database.db, accountNumber(t.account))
      assert.deepEqual(
        ledger.map((entry) => [
          entry.entry,
          entry.amountMinor,
          entry.currency,
          entry.chargeId,
          entry.balanceAfterMinor,
        ]),
        [
          ['invoice-charge', -total, 'GBP', charged.charges[0]?.id, 0n],
          ['invoice-refund', total, 'GBP', cancel.order.charges[1].id, 0n],
        ],
      )
    })

    test('Live prepaid with enough balance: paid from the balance, no hold', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      await t.app.services.payments.topUp(accountNumber(account), 100_000n, 'bank transfer 42', TEST_ACTOR)
      const orderId = await create('live', phoneOrder(), account.liveKey)
      const charged = await drive.allocate(orderId)
      const total = minor((charged.document.charges[0] as Charge).totalCost.amount)
      assert.deepEqual(withoutResolutionWarnings(charged.document.status.issues), [])
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 100_000n - total)
      await drive.render(orderId)
      const submitted = await drive.submit(orderId)
      assert.ok(Object.values(submitted.pipeline.shipments).every((shipment) => shipment.state === 'submitted'))
    })

    test('Live prepaid without balance: held with RequiresPaymentAuthorisation until paid on the payment page', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      await t.app.services.payments.topUp(accountNumber(account), 500n, null, TEST_ACTOR)
      const orderId = await create('live', phoneOrder(), account.liveKey)
      const held = await drive.allocate(orderId)
      const total = (held.document.charges[0] as Charge).totalCost
      const issue = held.document.status.issues.find((entry) => entry.errorCode === 'RequiresPaymentAuthorisation')
      assert.ok(issue)
      assert.equal(issue.objectId, orderId)
      assert.deepEqual(issue.authorisationDetails?.paymentDetails, total)
      const url = new URL(issue.authorisationDetails?.authorisationUrl as string)
      assert.equal(url.origin, 'https://live.printroute.test')
      assert.equal(url.pathname, `/payments/${orderId}`)
      // Listed under awaitingPayment, and not handed to any lab, even with every print file made.
      const list = async () =>
        json(await t.live({ method: 'GET', url: '/v4.0/orders?status=awaitingPayment' }, account.liveKey)).orders.map(
          (order: OrderDocument) => order.id,
        )
      assert.deepEqual(await list(), [orderId])
      await drive.render(orderId)
      const notSubmitted = await drive.submit(orderId)
      assert.ok(Object.values(notSubmitted.pipeline.shipments).every((shipment) => shipment.state === 'allocated'))
      assert.equal(notSubmitted.document.status.details.inProduction, 'NotStarted')
      // The balance was not touched: a charge is taken whole or not at all.
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 500n)

      // The page shows the amount; a wrong token shows nothing.
      const page = await t.live({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
      assert.equal(page.statusCode, 200)
      assert.match(page.headers['content-type'] as string, /text\/html/)
      assert.ok(page.body.includes(`${total.amount} ${total.currency}`))
      const forged = await t.live({ method: 'GET', url: `${url.pathname}?token=forged` }, null)
      assert.equal(forged.statusCode, 404)
      assert.equal((await t.sandbox({ method: 'GET', url: `${url.pathname}${url.search}` }, null)).statusCode, 404)

      const pay = async (card: string, amount = total.amount) =>
        json(
          await t.live(
            {
              method: 'POST',
              url: url.pathname,
              payload: {
                token: url.searchParams.get('token'),
                amount,
                card: { number: card, expiry: '12/39', cvc: '123' },
              },
              headers: { 'content-type': 'application/json' },
            },
            null,
          ),
        )
      assert.equal((await pay(SIMULATED_DECLINED_CARD)).outcome, 'Declined')
      assert.equal((await pay('4242 4242 4242 4241')).outcome, 'Declined') // fails the Luhn check
      assert.equal((await pay('4242424242424242', '0.01')).outcome, 'AmountChanged')
      assert.deepEqual(await list(), [orderId])

      const paid = await pay('4242 4242 4242 4242')
      assert.equal(paid.outcome, 'Paid', JSON.stringify(paid))
      const released = await drive.state(orderId)
      assert.deepEqual(withoutResolutionWarnings(released.document.status.issues), [])
      assert.deepEqual(await list(), [])
      assert.equal(released.document.status.details.inProduction, 'InProgress')
      const submitted = await drive.submit(orderId)
      assert.ok(Object.values(submitted.pipeline.shipments).every((shipment) => shipment.state === 'submitted'))
      assert.equal((await pay('4242424242424242')).outcome, 'NothingDue')
      // The card paid exactly what was due; the earlier balance is untouched.
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.map((entry) => [entry.entry, entry.amountMinor]),
        [
          ['top-up', 500n],
          ['card-payment', minor(total.amount)],
          ['balance-charge', -minor(total.amount)],
        ],
      )
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 500n)
    })

    test('a top-up releases the held orders it covers, oldest first; a cancel clears what is due', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const first = await create('live', phoneOrder(), account.liveKey)
      const second = await create('live', phoneOrder(), account.liveKey)
      const third = await create('live', phoneOrder(), account.liveKey)
      for (const orderId of [first, second, third]) await drive.allocate(orderId)
      const due = minor(((await drive.document(first)).charges[0] as Charge).totalCost.amount)

      // Cancelling a held order refunds what it owed: nothing is due, nothing is credited.
      const cancelled = json(
        await t.live({ method: 'POST', url: `/v4.0/orders/${third}/actions/cancel` }, account.liveKey),
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      assert.deepEqual(withoutResolutionWarnings(cancelled.order.status.issues), [])

      // Enough for one order and a bit: the oldest is paid, the next still waits.
      const result = await t.app.services.payments.topUp(accountNumber(account), due + 1n, 'top-up', TEST_ACTOR)
      assert.deepEqual(result.releasedOrderIds, [first])
      assert.equal(result.balanceMinor, 1n)
      assert.equal(withoutResolutionWarnings((await drive.document(first)).status.issues).length, 0)
      assert.equal(
        withoutResolutionWarnings((await drive.document(second)).status.issues)[0]?.errorCode,
        'RequiresPaymentAuthorisation',
      )
    })

    test('a shipping method change on a held order changes the amount due', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const orderId = await create('live', phoneOrder(), account.liveKey)
      const held = await drive.allocate(orderId)
      const before = withoutResolutionWarnings(held.document.status.issues)[0]?.authorisationDetails
      const response = json(
        await t.live(
          {
            method: 'POST',
            url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
            payload: { shippingMethod: 'Express' },
            headers: { 'content-type': 'application/json' },
          },
          account.liveKey,
        ),
      )
      assert.equal(response.outcome, 'Updated')
      const charges = response.order.charges as Charge[]
      const totalDue = charges.reduce((sum, charge) => sum + minor(charge.totalCost.amount), 0n)
      const issue = withoutResolutionWarnings(response.order.status.issues as any[])[0]
      assert.equal(minor(issue.authorisationDetails.paymentDetails.amount), totalDue)
      // Same link: a URL already forwarded to whoever pays keeps working.
      assert.equal(issue.authorisationDetails.authorisationUrl, before?.authorisationUrl)
      assert.notEqual(issue.authorisationDetails.paymentDetails.amount, before?.paymentDetails.amount)
    })
  })
}
