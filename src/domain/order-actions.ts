// Which order actions are available, derived from the order's state alone (CONTRACT.md, "Endpoints the
// specification leaves open"; issue 4): cancel, change shipping method and change recipient while no
// shipment has been submitted to a lab (on-hold orders included); change metadata always.
import type { Stage } from './order.ts'
import type { PipelineState } from './order-pipeline.ts'

export type Availability = 'Yes' | 'No'

export interface AvailableActions {
  cancel: { isAvailable: Availability }
  changeRecipientDetails: { isAvailable: Availability }
  changeShippingMethod: { isAvailable: Availability }
  changeMetaData: { isAvailable: Availability }
}

/** True once any shipment of the order has been handed to a lab (rejected ones were taken back). */
export function anyShipmentSubmitted(pipeline: PipelineState): boolean {
  return Object.values(pipeline.shipments).some(
    (shipment) => shipment.state !== 'allocated' && shipment.state !== 'rejected',
  )
}

export function availableActions(stage: Stage, pipeline: PipelineState): AvailableActions {
  const changeable: Availability = stage === 'InProgress' && !anyShipmentSubmitted(pipeline) ? 'Yes' : 'No'
  return {
    cancel: { isAvailable: changeable },
    changeRecipientDetails: { isAvailable: changeable },
    changeShippingMethod: { isAvailable: changeable },
    changeMetaData: { isAvailable: 'Yes' },
  }
}
