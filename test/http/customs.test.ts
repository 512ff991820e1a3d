// Customs and duties over HTTP on the sample catalogue (docs/api.md#customs-and-duties), on both databases: the
// phone case is made only in GB, so it crosses a border to AU, FR and the US. Declared values are given as
// `recipientCost`, so the duties are known whatever the catalogue's prices:
//   AU, 2 x AUD 600.00 = AUD 1200.00 > AUD 1000: duty 5% = 60.00, GST 10% of 1260.00 = 126.00; total 186.00.
//   FR, 2 x EUR 70.00 = EUR 140.00 <= EUR 150: IOSS, nothing more; 2 x EUR 100.00 = EUR 200.00: duty 6.5% = 13.00,
//   VAT 20% of 213.00 = 42.60; total 55.60.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import type { Charge } from '../../src/domain/order.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const AU_ADDRESS = {
  line1: '1 Test Street',
  line2: null,
  postalOrZipCode: '2000',
  countryCode: 'AU',
  townOrCity: 'Sydney',
  stateOrCounty: 'NSW',
}

function failuresOf(response: { statusCode: number; body: string }): Record<string, { code: string }[]> {
  assert.equal(response.statusCode, 400, response.body)
  const body = JSON.parse(response.body)
  assert.equal(body.outcome, 'ValidationFailed')
  return body.failures
}

for (const kind of databaseKinds) {
  describe(`customs and duties (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const phoneCases = (amount: string, currency: string) => ({
      sku: PHONE_CASE,
      copies: 2,
      sizing: 'fillPrintArea',
      recipientCost: { amount, currency },
      assets: [{ printArea: 'default', url: images.url('case.jpg') }],
    })

    function auOrder(overrides: Record<string, unknown> = {}) {
      const order = sampleOrder({ shippingMethod: 'Budget', items: [phoneCases('600.00', 'AUD')], ...overrides })
      ;(order.recipient as { address: unknown }).address = AU_ADDRESS
      return order
    }

    async function quote(body: Record<string, unknown>, key?: string) {
      const response = await t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: body }, key)
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }

    test('FR under and over the IOSS threshold: IOSS at EUR 140.00, duties and VAT at EUR 200.00', async () => {
      const item = (amount: string) => ({
        sku: PHONE_CASE,
        copies: 2,
        assets: [{}],
        recipientCost: { amount, currency: 'EUR' },
      })
      const request = { shippingMethod: 'Budget', destinationCountryCode: 'FR', currencyCode: 'EUR' }
      const [under] = (await quote({ ...request, items: [item('70.00')] })).quotes
      assert.deepEqual(under.shipments[0].customs, {
        incoterm: 'DAP',
        dutiesAndTaxes: { amount: '0.00', currency: 'EUR' },
        collectedBy: 'ioss',
        basis: under.shipments[0].customs.basis,
      })
      const [over] = (await quote({ ...request, items: [item('100.00')], customs: { incoterm: 'DDP' } })).quotes
      assert.deepEqual(over.shipments[0].customs.dutiesAndTaxes, { amount: '55.60', currency: 'EUR' })
      assert.equal(over.shipments[0].customs.collectedBy, 'merchant')
      assert.match(over.shipments[0].customs.basis, /duty EUR 13\.00 \(HS chapter 39 at 6\.5%\)/)
      assert.deepEqual(over.costSummary.dutiesAndTaxes, { amount: '55.60', currency: 'EUR' })
    })

    test('a DDP order is charged its duties as a line of its own, as its DDP quote said; the invoice shows it', async () => {
      const account = await t.createAccount({ billingCurrency: 'AUD' })
      const [locked] = (
        await quote(
          {
            shippingMethod: 'Budget',
            destinationCountryCode: 'AU',
            items: [{ sku: PHONE_CASE, copies: 2, assets: [{}], recipientCost: { amount: '600.00', currency: 'AUD' } }],
            customs: { incoterm: 'DDP' },
          },
          account.sandboxKey,
        )
      ).quotes
      assert.deepEqual(locked.costSummary.dutiesAndTaxes, { amount: '186.00', currency: 'AUD' })

      for (const quoteId of [undefined, locked.id]) {
        const created = await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: auOrder({
              customs: { incoterm: 'DDP', eoriNumber: 'GB123456789000', recipientTaxId: 'ABN 51 824 753 556' },
              ...(quoteId ? { quoteId } : {}),
            }),
          },
          account.sandboxKey,
        )
        assert.equal(created.statusCode, 200, created.body)
        const order = json(created).order
        assert.deepEqual(order.customs, {
          incoterm: 'DDP',
          eoriNumber: 'GB123456789000',
          recipientTaxId: 'ABN 51 824 753 556',
        })
        const allocated = await pipelineDriver(t).allocate(order.id)
        const charge = allocated.document.charges[0] as Charge
        const shipmentId = allocated.document.shipments[0]?.id
        const duties = charge.items.filter((line) => line.chargeType === 'Other')
        assert.deepEqual(duties, [
          {
            id: duties[0]?.id,
            chargeType: 'Other',
            itemId: null,
            shipmentId,
            cost: { amount: '186.00', currency: 'AUD' },
          },
        ])
        if (quoteId) assert.deepEqual(charge.totalCost, locked.costSummary.totalCost)

        const invoices = json(
          await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}/invoices` }, account.sandboxKey),
        ).invoices
        const link = new URL(invoices[0].pdfUrl)
        const pdf = await t.sandbox({ method: 'GET', url: `${link.pathname}${link.search}` }, null)
        assert.equal(pdf.statusCode, 200)
        const text = documentText(await PDFDocument.load(pdf.rawPayload))
        assert.match(text, new RegExp(`Duties and import taxes ${shipmentId} \\(DDP\\)`))
        assert.match(text, /^186\.00$/m)
      }
    })

    test('the duties stay charged once through a shipping method change, and a cancel refunds them', async () => {
      const account = await t.createAccount({ billingCurrency: 'AUD' })
      const created = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: auOrder({ customs: { incoterm: 'DDP' } }) },
        account.sandboxKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id
      const first = (await pipelineDriver(t).allocate(orderId)).document
      const oldShipment = first.shipments[0]?.id
      const changed = json(
        await t.sandbox(
          {
            method: 'POST',
            url: `/v4.0/orders/${orderId}/actions/updateShippingMethod`,
            payload: { shippingMethod: 'Standard' },
          },
          account.sandboxKey,
        ),
      )
      assert.equal(changed.outcome, 'Updated')
      // Re-planned with the same lab, the shipment keeps its id and its duties line: only the shipping changes.
      // Duties charged on any shipment and refunded on any other still net to one shipment's 186.00.
      const dutiesNet = (changed.order.charges as Charge[])
        .flatMap((charge) => charge.items)
        .filter((line) => line.itemId === null && ['186.00', '-186.00'].includes(line.cost.amount))
        .reduce((sum, line) => sum + Math.round(Number(line.cost.amount) * 100), 0)
      assert.equal(dutiesNet, 18600)
      assert.equal(changed.order.charges.length, 2, 'the new shipping was charged')
      assert.ok(oldShipment)

      const cancelled = json(
        await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.sandboxKey),
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      const cents = (amount: string) => Math.round(Number(amount) * 100)
      const net = (cancelled.order.charges as Charge[]).reduce((sum, charge) => sum + cents(charge.totalCost.amount), 0)
      assert.equal(net, 0, 'everything, duties included, is refunded')
    })

    test('a DAP order (or one without customs) is charged no duties', async () => {
      const account = await t.createAccount({ billingCurrency: 'AUD' })
      for (const customs of [{ incoterm: 'DAP' }, undefined]) {
        const created = await t.sandbox(
          { method: 'POST', url: '/v4.0/orders', payload: auOrder(customs ? { customs } : {}) },
          account.sandboxKey,
        )
        assert.equal(created.statusCode, 200, created.body)
        const order = json(created).order
        assert.equal('customs' in order, customs !== undefined)
        const charge = (await pipelineDriver(t).allocate(order.id)).document.charges[0] as Charge
        assert.deepEqual(
          charge.items.map((line) => line.chargeType),
          ['Item', 'Shipping'],
        )
      }
    })

    test('bad customs input is a 400 naming the field', async () => {
      const create = (payload: Record<string, unknown>) => t.sandbox({ method: 'POST', url: '/v4.0/orders', payload })
      const exw = failuresOf(await create(auOrder({ customs: { incoterm: 'EXW' } })))
      assert.ok(
        Object.keys(exw).some((path) => path.startsWith('customs.incoterm')),
        JSON.stringify(exw),
      )
      assert.equal(
        failuresOf(await create(auOrder({ customs: { incoterm: 'DAP', iossNumber: 'IM2760000001' } })))[
          'customs.iossNumber'
        ]?.[0]?.code,
        'NotAvailableForDestination',
      )
      const toFrance = sampleOrder({ customs: { incoterm: 'DAP', iossNumber: 'NOT-AN-IOSS' } })
      ;(toFrance.recipient as { address: Record<string, unknown> }).address = {
        ...AU_ADDRESS,
        countryCode: 'FR',
        postalOrZipCode: '75001',
        townOrCity: 'Paris',
        stateOrCounty: null,
      }
      assert.equal(failuresOf(await create(toFrance))['customs.iossNumber']?.[0]?.code, 'InvalidFormat')
      const xyz = auOrder({ items: [phoneCases('10.00', 'XYZ')] })
      assert.equal(failuresOf(await create(xyz))['items[0].recipientCost.currency']?.[0]?.code, 'UnknownCurrency')
      const badQuote = await t.sandbox({
        method: 'POST',
        url: '/v4.0/quotes',
        payload: {
          destinationCountryCode: 'AU',
          items: [{ sku: PHONE_CASE, copies: 1, assets: [{}] }],
          customs: { incoterm: 'FOB' },
        },
      })
      assert.ok(Object.keys(failuresOf(badQuote)).some((path) => path.startsWith('customs.incoterm')))
    })
  })
}
