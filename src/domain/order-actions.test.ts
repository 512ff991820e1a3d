import assert from 'node:assert/strict'
import { test } from 'node:test'
import { STAGES } from './order.ts'
import { availableActions } from './order-actions.ts'
import { emptyPipeline, type PipelineState, type ShipmentState } from './order-pipeline.ts'

function withShipments(...states: ShipmentState[]): PipelineState {
  const pipeline = emptyPipeline()
  states.forEach((state, index) => {
    pipeline.shipments[`shp_${index + 1}`] = { labCode: 'uk6', state, printFiles: {}, formats: {} }
  })
  return pipeline
}

const SHIPMENT_STATES: ShipmentState[] = [
  'allocated',
  'submitted',
  'acknowledged',
  'inProduction',
  'shipped',
  'rejected',
]

test('metadata can always be changed', () => {
  for (const stage of STAGES) {
    for (const state of SHIPMENT_STATES) {
      assert.equal(availableActions(stage, withShipments(state)).changeMetaData.isAvailable, 'Yes')
    }
  }
})

test('cancel, recipient and shipping method are available while nothing has reached a lab', () => {
  for (const stage of STAGES) {
    for (const pipeline of [
      emptyPipeline(),
      withShipments(),
      withShipments('allocated'),
      withShipments('rejected', 'allocated'),
    ]) {
      const expected = stage === 'InProgress' ? 'Yes' : 'No'
      const actions = availableActions(stage, pipeline)
      assert.equal(actions.cancel.isAvailable, expected, stage)
      assert.equal(actions.changeRecipientDetails.isAvailable, expected, stage)
      assert.equal(actions.changeShippingMethod.isAvailable, expected, stage)
    }
  }
})

test('once any shipment is with a lab, only metadata can change', () => {
  for (const submitted of ['submitted', 'acknowledged', 'inProduction', 'shipped'] as ShipmentState[]) {
    for (const stage of STAGES) {
      const actions = availableActions(stage, withShipments('allocated', submitted))
      assert.equal(actions.cancel.isAvailable, 'No', submitted)
      assert.equal(actions.changeRecipientDetails.isAvailable, 'No', submitted)
      assert.equal(actions.changeShippingMethod.isAvailable, 'No', submitted)
    }
  }
})
