// A shipment's move to another lab as pure rules (domain/shipment-move.ts): print files kept where the new lab wants
// the same format and colour, made again where it does not; the billing lines follow the items without changing an
// amount; the old lab's job kept as cancelled and moved when the lab had it.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { newOrder, now } from '../../test/support/pipeline-order.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { loadCatalogue } from '../catalogue/catalogue.loader.ts'
import type { PipelineOrder } from './pipeline/pipeline-order.ts'
import { applyMove, moveReasonOf, planMove, ShipmentMoveRefused, shipmentMoveRefusal } from './shipment-move.ts'

tier('pure')

const catalogue = loadCatalogue()

/** A fine-art poster to Germany at nl1 (jpeg, sRGB), its print file made, submitted, billed. */
function posterAtNl1(): PipelineOrder {
  const { order, pipeline } = newOrder(1)
  order.recipient.address.countryCode = 'DE'
  order.shipments = [
    {
      id: 'shp_1',
      dispatchDate: null,
      carrier: { name: 'DPD NL', service: 'DPD Classic Europe' },
      fulfillmentLocation: { countryCode: 'NL', labCode: 'nl1' },
      tracking: null,
      items: [{ itemId: 'ori_1' }],
      status: 'Processing',
      cancelled: false,
    },
  ]
  pipeline.phase = 'producing'
  pipeline.shipments.shp_1 = {
    labCode: 'nl1',
    state: 'submitted',
    printFiles: { ast_1: { blobKey: 'print/ast_1.jpg', width: 10, height: 10, format: 'jpeg' } },
    formats: { ast_1: 'jpeg' },
  }
  pipeline.billing = {
    currency: 'GBP',
    settlement: 'invoice',
    unpaid: '0',
    lines: {
      'item:ori_1': { itemId: 'ori_1', shipmentId: 'shp_1', cost: '1500', tax: '300' },
      'shipping:shp_1': { itemId: null, shipmentId: 'shp_1', cost: '500', tax: '100' },
    },
  } as unknown as NonNullable<PipelineOrder['pipeline']['billing']>
  return {
    orderNumber: 1,
    accountId: 1,
    environment: 'live',
    onHoldUntil: null,
    sandboxScenario: null,
    document: order,
    pipeline,
  }
}

function planned(order: PipelineOrder, labCode: string) {
  const plan = planMove(catalogue, order, 'shp_1', labCode, { unavailableLabs: {}, now })
  assert.ok(plan.ok, plan.ok ? '' : plan.refusal)
  return plan.move
}

describe('moving a shipment to another lab', () => {
  test('to a lab with the same format and colour: the print file is kept and the shipment is submitted again', () => {
    const order = posterAtNl1()
    const applied = applyMove(catalogue, order, 'shp_1', 'shp_2', planned(order, 'uk6'), 'closed', now)
    assert.deepEqual(applied.rerenderedAssetIds, [])
    assert.equal(order.pipeline.shipments.shp_2?.printFiles.ast_1?.blobKey, 'print/ast_1.jpg')
    assert.deepEqual(
      applied.jobs.map((job) => job.name),
      ['submit-shipment'],
    )
    assert.equal(applied.labHadJob, true)
    assert.equal(order.pipeline.shipments.shp_1?.state, 'cancelled')
    assert.deepEqual(order.pipeline.shipments.shp_1?.moved?.itemIds, ['ori_1'])
    assert.deepEqual(
      order.document.shipments.map((shipment) => [shipment.id, shipment.fulfillmentLocation.labCode]),
      [['shp_2', 'uk6']],
    )
    const lines = order.pipeline.billing?.lines ?? {}
    assert.deepEqual(Object.keys(lines).sort(), ['item:ori_1', 'shipping:shp_2'])
    assert.equal(lines['item:ori_1']?.shipmentId, 'shp_2')
    assert.deepEqual([lines['item:ori_1']?.cost, lines['shipping:shp_2']?.cost], ['1500', '500'], 'amounts untouched')
  })

  test('to a lab with another format and colour (de1: TIFF, CMYK): the print file is made again', () => {
    const order = posterAtNl1()
    const applied = applyMove(catalogue, order, 'shp_1', 'shp_2', planned(order, 'de1'), 'closed', now)
    assert.deepEqual(applied.rerenderedAssetIds, ['ast_1'])
    assert.deepEqual(
      applied.jobs.map((job) => job.name),
      ['render-print-file'],
    )
    assert.equal(order.pipeline.shipments.shp_2?.printFiles.ast_1, null)
    assert.equal(order.pipeline.shipments.shp_2?.formats.ast_1, 'tiff')
    assert.equal(order.pipeline.phase, 'rendering')
  })

  test('refusals: shipped, started, already moved, a lab that cannot take it, no reason', () => {
    const order = posterAtNl1()
    const us = planMove(catalogue, order, 'shp_1', 'us1', { unavailableLabs: {}, now })
    assert.equal(us.ok, false)
    assert.match(us.ok ? '' : us.refusal, /lab us1 does not ship GLOBAL-FAP-16x24 to DE by Standard/)
    const paused = planMove(catalogue, order, 'shp_1', 'uk6', { unavailableLabs: { uk6: 'LabPaused' }, now })
    assert.match(paused.ok ? '' : paused.refusal, /lab uk6 is paused/)
    assert.match(
      (() => {
        const same = planMove(catalogue, order, 'shp_1', 'nl1', { unavailableLabs: {}, now })
        return same.ok ? '' : same.refusal
      })(),
      /already at lab nl1/,
    )
    const held = order.pipeline.shipments.shp_1
    assert.ok(held)
    held.itemStates = { ori_1: 'printed' }
    assert.match(shipmentMoveRefusal(order, 'shp_1', now) ?? '', /reported item ori_1 of shipment shp_1 printed/)
    delete held.itemStates
    held.cancellationRequested = { at: now.toISOString(), answer: 'tooLate', answeredAt: now.toISOString() }
    assert.match(shipmentMoveRefusal(order, 'shp_1', now) ?? '', /answered tooLate/)
    delete held.cancellationRequested
    assert.equal(shipmentMoveRefusal(order, 'shp_1', now), undefined)
    applyMove(catalogue, order, 'shp_1', 'shp_2', planned(order, 'uk6'), 'closed', now)
    assert.match(shipmentMoveRefusal(order, 'shp_1', now) ?? '', /already moved to lab uk6 \(shipment shp_2\)/)
    assert.throws(() => moveReasonOf('   '), ShipmentMoveRefused)
    assert.throws(() => moveReasonOf('x'.repeat(501)), /longer than 500 characters/)
    assert.equal(moveReasonOf('  flood '), 'flood')
  })
})
