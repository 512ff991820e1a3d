// Every outcome of cancel, updateShippingMethod and updateRecipient, on orders the real pipeline has moved to
// the state each case needs (new, on hold, allocated, partly or wholly with a lab, complete, cancelled).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { percentOfMinorUnits } from '../../src/domain/catalogue-money.ts'
import type { Charge, OrderDocument } from '../../src/domain/order.ts'
import type { ShippingMethod } from '../../src/domain/shipping-methods.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver, twoLabOrder } from '../support/pipeline-driver.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const sumOf = (charges: Charge[]) => charges.reduce((sum, charge) => sum + minor(charge.totalCost.amount), 0n)

for (const kind of databaseKinds) {
  describe(`order actions by state (${kind})`, () => {
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

    /** One phone case to GB (one shipment), or a canvas and a phone case to the US (two labs, two shipments). */
    async function create(shape: 'single' | 'split' = 'single', key = t.account.sandboxKey): Promise<string> {
      const phone = { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }
      const payload =
        shape === 'single'
          ? sampleOrder({ items: [phone] })
          : twoLabOrder(images.url, { canvas: { copies: 2, sizing: 'fitPrintArea' }, shippingMethod: 'Standard' })
      const response = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    async function post(orderId: string, action: string, payload?: unknown) {
      const response = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${orderId}/actions/${action}`,
        ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      })
      return { status: response.statusCode, body: json(response) }
    }

    async function actions(orderId: string) {
      const body = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}/actions` }))
      return {
        cancel: body.cancel.isAvailable,
        recipient: body.changeRecipientDetails.isAvailable,
        shipping: body.changeShippingMethod.isAvailable,
        metadata: body.changeMetaData.isAvailable,
      }
    }

    const order = (orderId: string) => drive.document(orderId)

    describe('actions list', () => {
      test('follows the order: open until a shipment is with its lab, metadata always', async () => {
        const orderId = await create()
        const open = { cancel: 'Yes', recipient: 'Yes', shipping: 'Yes', metadata: 'Yes' }
        const closed = { cancel: 'No', recipient: 'No', shipping: 'No', metadata: 'Yes' }
        assert.deepEqual(await actions(orderId), open)
        await drive.allocate(orderId)
        await drive.render(orderId)
        assert.deepEqual(await actions(orderId), open)
        await drive.submit(orderId)
        assert.deepEqual(await actions(orderId), closed)
        await drive.ship(orderId)
        assert.equal((await order(orderId)).status.stage, 'Complete')
        assert.deepEqual(await actions(orderId), closed)
      })
    })

    describe('cancel', () => {
      test('a new order: Cancelled, nothing was charged so nothing is refunded', async () => {
        const orderId = await create()
        const { status, body } = await post(orderId, 'cancel')
        assert.equal(status, 200)
        assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
        assert.equal(body.outcome, 'Cancelled')
        assert.equal(body.order.status.stage, 'Cancelled')
        assert.deepEqual(body.order.charges, [])
        // The pipeline does not pick it up any more.
        await drive.allocate(orderId)
        const after = await drive.state(orderId)
        assert.equal(after.pipeline.phase, 'cancelled')
        assert.deepEqual(after.document.shipments, [])
        assert.deepEqual(await actions(orderId), { cancel: 'No', recipient: 'No', shipping: 'No', metadata: 'Yes' })
      })

      test('an allocated order: every shipment cancelled and the whole charge refunded', async () => {
        const orderId = await create('split')
        await drive.allocate(orderId)
        const charged = await order(orderId)
        assert.equal(charged.shipments.length, 2)
        assert.equal(charged.charges.length, 1)
        const { body } = await post(orderId, 'cancel', {})
        assert.equal(body.outcome, 'Cancelled')
        assert.equal(body.order.status.stage, 'Cancelled')
        for (const shipment of body.order.shipments) {
          assert.equal(shipment.status, 'Cancelled')
          assert.equal(shipment.cancelled, true)
        }
        const [charge, refund] = body.order.charges as Charge[]
        assert.ok(charge && refund)
        assert.equal(refund.chargeType, 'Refund')
        assert.equal(minor(refund.totalCost.amount), -minor(charge.totalCost.amount))
        assert.equal(minor(refund.totalTax.amount), -minor(charge.totalTax.amount))
        assert.ok(refund.items.every((line) => line.chargeType === 'Refund' && line.cost.amount.startsWith('-')))
        assert.equal(sumOf(body.order.charges), 0n)
        // The shipments' print files are never made, and submitting is a no-op.
        await drive.render(orderId)
        const after = await drive.submit(orderId)
        assert.ok(Object.values(after.pipeline.shipments).every((shipment) => shipment.state === 'cancelled'))
        assert.deepEqual(after.document.shipments, body.order.shipments)
      })

      test('a bodiless cancel works with or without Content-Type, and with [], but not with fields', async () => {
        for (const request of [
          { headers: {} },
          { headers: { 'content-type': 'application/json' } },
          { headers: { 'content-type': 'application/json' }, payload: '[]' },
        ]) {
          const orderId = await create()
          const response = await t.sandbox({
            method: 'POST',
            url: `/v4.0/orders/${orderId}/actions/cancel`,
            ...request,
          })
          assert.equal(json(response).outcome, 'Cancelled', response.body)
        }
        const orderId = await create()
        const { status, body } = await post(orderId, 'cancel', { reason: 'changed my mind' })
        assert.equal(status, 400)
        assert.deepEqual(body.failures, { reason: [{ code: 'UnknownField', providedValue: 'reason' }] })
        assert.equal((await order(orderId)).status.stage, 'InProgress')
      })

      test('a shipment with its lab: FailedToCancel, the order unchanged', async () => {
        const orderId = await create()
        await drive.allocate(orderId)
        await drive.render(orderId)
        const submitted = await drive.submit(orderId)
        const { body } = await post(orderId, 'cancel')
        assert.equal(body.outcome, 'FailedToCancel')
        assert.deepEqual(body.order, submitted.document)
      })

      test('one shipment of two with its lab: the other is cancelled, its shipping refunded, the order goes on', async () => {
        const orderId = await create('split')
        const allocated = await drive.allocate(orderId)
        const [first, second] = allocated.document.shipments
        assert.ok(first && second)
        await drive.render(orderId)
        await drive.submit(orderId, first.id)
        const { body } = await post(orderId, 'cancel')
        assert.equal(body.outcome, 'FailedToCancel')
        assert.equal(body.order.status.stage, 'InProgress')
        const byId = new Map(body.order.shipments.map((shipment: { id: string }) => [shipment.id, shipment]))
        assert.deepEqual(
          [byId.get(first.id), byId.get(second.id)].map((shipment: any) => [shipment.status, shipment.cancelled]),
          [
            ['Processing', false],
            ['Cancelled', true],
          ],
        )
        const [charge, refund] = body.order.charges as Charge[]
        assert.ok(charge && refund)
        const shipping = charge.items.find((line) => line.chargeType === 'Shipping' && line.shipmentId === second.id)
        assert.ok(shipping)
        assert.equal(refund.chargeType, 'Refund')
        assert.deepEqual(
          refund.items.map((line) => [line.chargeType, line.shipmentId, line.itemId, line.cost.amount]),
          [['Refund', second.id, null, `-${shipping.cost.amount}`]],
        )
        // Tax of the refunded shipping comes back too (GB-made shipments to the US carry no tax: 0).
        assert.equal(minor(refund.totalCost.amount), -minor(shipping.cost.amount) + minor(refund.totalTax.amount))
        // The cancelled shipment never reaches its lab; the other completes the order.
        await drive.submit(orderId, second.id)
        const shipped = await drive.ship(orderId)
        assert.equal(shipped.pipeline.shipments[second.id]?.state, 'cancelled')
        assert.equal(shipped.document.status.stage, 'Complete')
      })

      test('complete and cancelled orders: ActionNotAvailable, unchanged', async () => {
        const completeId = await create()
        await drive.allocate(completeId)
        await drive.render(completeId)
        await drive.submit(completeId)
        const complete = await drive.ship(completeId)
        const first = await post(completeId, 'cancel')
        assert.equal(first.body.outcome, 'ActionNotAvailable')
        assert.deepEqual(first.body.order, complete.document)

        const cancelledId = await create()
        await post(cancelledId, 'cancel')
        const again = await post(cancelledId, 'cancel')
        assert.equal(again.status, 200)
        assert.equal(again.body.outcome, 'ActionNotAvailable')
        assert.equal(again.body.order.charges.length, 0)
      })

      test("another account's order does not exist", async () => {
        const other = await t.createAccount()
        const theirs = await create('single', other.sandboxKey)
        const { status, body } = await post(theirs, 'cancel')
        assert.equal(status, 404)
        assert.equal(body.outcome, 'EntityNotFound')
        assert.equal((await order(theirs)).status.stage, 'InProgress')
      })
    })

    describe('updateShippingMethod', () => {
      test('before allocation: Updated with no shipments yet; allocation then uses the new method', async () => {
        const orderId = await create()
        const { body } = await post(orderId, 'updateShippingMethod', { shippingMethod: 'express' })
        assert.deepEqual(Object.keys(body), ['outcome', 'shipmentUpdateResults', 'order', 'traceParent'])
        assert.equal(body.outcome, 'Updated')
        assert.deepEqual(body.shipmentUpdateResults, [])
        assert.equal(body.order.shippingMethod, 'Express')
        const allocated = await drive.allocate(orderId)
        assert.deepEqual(allocated.document.shipments[0]?.carrier, { name: 'DPD Local', service: 'DPD Local Next Day' })
      })

      test('after allocation: the shipment is re-planned, and the charges adjust by the difference', async () => {
        const orderId = await create()
        const allocated = await drive.allocate(orderId)
        const shipmentId = allocated.document.shipments[0]?.id as string
        const firstCharge = allocated.document.charges[0] as Charge
        const shippingBefore = firstCharge.items.find((line) => line.chargeType === 'Shipping') as Charge['items'][0]

        const { body } = await post(orderId, 'updateShipping', { shippingMethod: 'Overnight' })
        assert.equal(body.outcome, 'Updated')
        // Same lab, same items: the shipment keeps its id (and print files) and takes the new carrier.
        assert.deepEqual(body.shipmentUpdateResults, [{ shipmentId, successful: true }])
        assert.deepEqual(body.order.shipments[0].carrier, { name: 'FedEx', service: 'FedEx Next Day' })
        const [, adjustment] = body.order.charges as Charge[]
        assert.ok(adjustment)
        assert.equal(adjustment.chargeType, 'Other')
        assert.equal(adjustment.items.length, 1)
        const line = adjustment.items[0] as Charge['items'][0]
        assert.equal(line.chargeType, 'Shipping')
        assert.equal(line.shipmentId, shipmentId)
        // The lab's own rates for one phone case to GB (GBP, the billing currency), plus 20% GB VAT.
        const shippingBy = (method: ShippingMethod) => {
          const rate = catalogue.shippingRate(labCode, method, 'GB')
          assert.ok(rate)
          return catalogue.shipmentCost(rate, [{ shippingClass, copies: 1 }]).minor
        }
        const labCode = allocated.document.shipments[0]?.fulfillmentLocation.labCode as string
        const shippingClass = catalogue.findProduct(PHONE_CASE)?.shippingClass as string
        assert.equal(minor(shippingBefore.cost.amount), shippingBy('Standard'))
        assert.equal(minor(line.cost.amount), shippingBy('Overnight') - shippingBy('Standard'))
        assert.equal(
          minor(adjustment.totalTax.amount),
          percentOfMinorUnits(shippingBy('Overnight'), 2000) - percentOfMinorUnits(shippingBy('Standard'), 2000),
        )

        // Back to the cheaper method: a refund of the same difference; the charges add up to the Budget price.
        const back = await post(orderId, 'updateShippingMethod', { shippingMethod: 'Budget' })
        const refund = (back.body.order.charges as Charge[])[2] as Charge
        assert.equal(refund.chargeType, 'Refund')
        assert.equal(minor(refund.items[0]?.cost.amount as string), shippingBy('Budget') - shippingBy('Overnight'))
        const itemsTotal = firstCharge.items
          .filter((entry) => entry.chargeType === 'Item')
          .reduce((sum, entry) => sum + minor(entry.cost.amount), 0n)
        const vat = (amount: bigint) => percentOfMinorUnits(amount, 2000)
        const expectedTotal = itemsTotal + vat(itemsTotal) + shippingBy('Budget') + vat(shippingBy('Budget'))
        assert.equal(sumOf(back.body.order.charges), expectedTotal)
      })

      test('a method that cannot serve the items: FailedToUpdate, nothing changes', async () => {
        const orderId = await create('split')
        const allocated = await drive.allocate(orderId)
        const { body } = await post(orderId, 'updateShippingMethod', { shippingMethod: 'Overnight' })
        assert.equal(body.outcome, 'FailedToUpdate')
        assert.deepEqual(
          body.shipmentUpdateResults,
          allocated.document.shipments.map((shipment) => ({ shipmentId: shipment.id, successful: false })),
        )
        assert.deepEqual(body.order, allocated.document)
      })

      test('shipments with their lab: FailedToUpdate; some with their lab: PartiallyUpdated', async () => {
        const whole = await create()
        await drive.allocate(whole)
        await drive.render(whole)
        const submitted = await drive.submit(whole)
        const failed = await post(whole, 'updateShippingMethod', { shippingMethod: 'Express' })
        assert.equal(failed.body.outcome, 'FailedToUpdate')
        assert.deepEqual(failed.body.order, submitted.document)

        const split = await create('split')
        const allocated = await drive.allocate(split)
        const [first, second] = allocated.document.shipments
        assert.ok(first && second)
        await drive.render(split)
        await drive.submit(split, first.id)
        const partial = await post(split, 'updateShippingMethod', { shippingMethod: 'Express' })
        assert.equal(partial.body.outcome, 'PartiallyUpdated')
        const results = new Map(
          partial.body.shipmentUpdateResults.map((result: { shipmentId: string; successful: boolean }) => [
            result.shipmentId,
            result.successful,
          ]),
        )
        assert.equal(results.get(first.id), false)
        assert.equal([...results.values()].filter(Boolean).length, 1)
        assert.equal(partial.body.order.shippingMethod, 'Express')
        const untouched = partial.body.order.shipments.find((shipment: { id: string }) => shipment.id === first.id)
        assert.deepEqual(untouched.carrier, first.carrier)
      })

      test('complete or cancelled: ActionNotAvailable; a bad method: ValidationFailed', async () => {
        const orderId = await create()
        await post(orderId, 'cancel')
        const { body } = await post(orderId, 'updateShippingMethod', { shippingMethod: 'Express' })
        assert.equal(body.outcome, 'ActionNotAvailable')
        assert.equal(body.order.shippingMethod, 'Standard')
        const bad = await post(await create(), 'updateShippingMethod', { shippingMethod: 'Teleport' })
        assert.equal(bad.status, 400)
        assert.ok(bad.body.failures.shippingMethod)
      })
    })

    describe('updateRecipient', () => {
      const newRecipient = {
        name: 'Charles Babbage',
        email: 'charles@example.com',
        address: { line1: '1 Dorset Street', postalOrZipCode: 'W1U 4EG', countryCode: 'gb', townOrCity: 'London' },
      }

      test('a flat recipient body replaces the recipient (absent fields become null)', async () => {
        const orderId = await create()
        const allocated = await drive.allocate(orderId)
        const { body } = await post(orderId, 'updateRecipient', newRecipient)
        assert.equal(body.outcome, 'Updated')
        assert.deepEqual(body.shipmentUpdateResults, [
          { shipmentId: allocated.document.shipments[0]?.id, successful: true },
        ])
        assert.deepEqual(body.order.recipient, {
          name: 'Charles Babbage',
          email: 'charles@example.com',
          phoneNumber: null,
          address: {
            line1: '1 Dorset Street',
            line2: null,
            postalOrZipCode: 'W1U 4EG',
            countryCode: 'GB',
            townOrCity: 'London',
            stateOrCounty: null,
          },
        })
        assert.deepEqual((await order(orderId)).recipient, body.order.recipient)
      })

      test('the wrapped form {recipient: {...}} works too', async () => {
        const orderId = await create()
        const { body } = await post(orderId, 'updateRecipient', { recipient: newRecipient })
        assert.equal(body.outcome, 'Updated')
        assert.deepEqual(body.shipmentUpdateResults, [])
        assert.equal(body.order.recipient.name, 'Charles Babbage')
      })

      test('another destination country is refused, naming the field as sent', async () => {
        const orderId = await create()
        const france = { ...newRecipient, address: { ...newRecipient.address, countryCode: 'FR' } }
        for (const [payload, path] of [
          [france, 'address.countryCode'],
          [{ recipient: france }, 'recipient.address.countryCode'],
        ] as const) {
          const { status, body } = await post(orderId, 'updateRecipient', payload)
          assert.equal(status, 400)
          assert.equal(body.outcome, 'ValidationFailed')
          assert.deepEqual(body.failures, {
            [path]: [{ code: 'ChangeOfDestinationCountryNotPossible', providedValue: 'FR', comparisonValue: 'GB' }],
          })
        }
        assert.equal((await order(orderId)).recipient.name, 'Ada Lovelace')
      })

      test('validated as on create: blank name, unknown field, missing address', async () => {
        const orderId = await create()
        const { status, body } = await post(orderId, 'updateRecipient', {
          ...newRecipient,
          name: '  ',
          nickname: 'Charlie',
        })
        assert.equal(status, 400)
        assert.equal(body.failures.name[0].code, 'MustNotBeEmptyOrWhitespace')
        assert.equal(body.failures.nickname[0].code, 'UnknownField')
        const missing = await post(orderId, 'updateRecipient', { name: 'X' })
        assert.equal(missing.status, 400)
        assert.ok(missing.body.failures.address)
        const empty = await post(orderId, 'updateRecipient')
        assert.equal(empty.status, 400)
      })

      test('with its lab: FailedToUpdate; partly: PartiallyUpdated and the lab keeps the address it was given', async () => {
        const whole = await create()
        await drive.allocate(whole)
        await drive.render(whole)
        await drive.submit(whole)
        const failed = await post(whole, 'updateRecipient', newRecipient)
        assert.equal(failed.body.outcome, 'FailedToUpdate')
        assert.equal(failed.body.order.recipient.name, 'Ada Lovelace')

        const split = await create('split')
        const allocated = await drive.allocate(split)
        const [first] = allocated.document.shipments
        assert.ok(first)
        await drive.render(split)
        await drive.submit(split, first.id)
        const usRecipient = { ...newRecipient, address: { ...newRecipient.address, countryCode: 'US' } }
        const partial = await post(split, 'updateRecipient', usRecipient)
        assert.equal(partial.body.outcome, 'PartiallyUpdated')
        assert.equal(partial.body.order.recipient.name, 'Charles Babbage')
        const state = await drive.state(split)
        assert.equal(state.pipeline.shipments[first.id]?.submitted?.recipient.name, 'Grace Hopper')
      })

      test('cancelled: ActionNotAvailable', async () => {
        const orderId = await create()
        await post(orderId, 'cancel')
        const { body } = await post(orderId, 'updateRecipient', newRecipient)
        assert.equal(body.outcome, 'ActionNotAvailable')
        assert.equal(body.order.recipient.name, 'Ada Lovelace')
      })
    })

    describe('every update action', () => {
      const bodies: Record<string, unknown> = {
        updateShippingMethod: { shippingMethod: 'Express' },
        updateRecipient: {
          name: 'Someone Else',
          address: { line1: '2 Road', postalOrZipCode: 'N1 1AA', countryCode: 'GB', townOrCity: 'London' },
        },
      }

      test('on a complete order: ActionNotAvailable and the order unchanged', async () => {
        const orderId = await create()
        await drive.allocate(orderId)
        await drive.render(orderId)
        await drive.submit(orderId)
        const complete = (await drive.ship(orderId)).document
        for (const [action, body] of Object.entries(bodies)) {
          const answer = await post(orderId, action, body)
          assert.equal(answer.status, 200, action)
          assert.equal(answer.body.outcome, 'ActionNotAvailable', action)
          assert.deepEqual(answer.body.shipmentUpdateResults, [], action)
          assert.deepEqual(answer.body.order, complete, action)
        }
      })

      test("on another account's order: 404 EntityNotFound, nothing changes", async () => {
        const other = await t.createAccount()
        const theirs = await create('single', other.sandboxKey)
        const before = await order(theirs)
        for (const [action, body] of Object.entries(bodies)) {
          const answer = await post(theirs, action, body)
          assert.equal(answer.status, 404, action)
          assert.equal(answer.body.outcome, 'EntityNotFound', action)
        }
        assert.deepEqual(await order(theirs), before)
      })
    })

    describe('on hold', () => {
      test('actions work in the pause window; a cancelled held order is shown, cancelled, at once', async () => {
        const held = await t.createAccount({ pauseWindowSeconds: 3600 })
        const orderId = await create('single', held.sandboxKey)
        const hidden = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` }, held.sandboxKey)
        assert.equal(hidden.statusCode, 404)
        const sendAs = (action: string, payload?: unknown) =>
          t.sandbox(
            {
              method: 'POST',
              url: `/v4.0/orders/${orderId}/actions/${action}`,
              ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}),
            },
            held.sandboxKey,
          )
        assert.equal(json(await sendAs('updateShippingMethod', { shippingMethod: 'Budget' })).outcome, 'Updated')
        const recipient = json(
          await sendAs('updateRecipient', {
            name: 'Held Recipient',
            address: { line1: '3 Lane', postalOrZipCode: 'E1 6AN', countryCode: 'GB', townOrCity: 'London' },
          }),
        )
        assert.equal(recipient.outcome, 'Updated')
        assert.deepEqual(recipient.shipmentUpdateResults, [])
        assert.equal(json(await sendAs('cancel')).outcome, 'Cancelled')
        const shown = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` }, held.sandboxKey)
        assert.equal(shown.statusCode, 200)
        const document = json(shown).order as OrderDocument
        assert.equal(document.status.stage, 'Cancelled')
        assert.equal(document.shippingMethod, 'Budget')
        assert.equal(document.recipient.name, 'Held Recipient')
      })
    })
  })
}
