// Step submit-shipment: a shipment whose print files are ready is handed to its lab. Both connectors list it for
// the lab API (lab_jobs); the simulated one also starts its timer-driven steps (simulated-labs.ts), which report
// through the same entry as a real lab (lab-report.ts). printroute's packing slip of the shipment is made once it
// is submitted, outside the transaction like a print file, and then recorded on the shipment.
import type { Clock } from '../../adapters/clock.ts'
import type { Database, Queryable } from '../../adapters/database.ts'
import type { Environment } from '../../domain/environment.ts'
import { parseId } from '../../domain/ids.ts'
import { shipmentCostOf } from '../../domain/lab-statements.ts'
import { packingSlipBlobKey, packingSlipContent, recordPackingSlipPdf } from '../../domain/packing-slip.ts'
import type { PipelineOrder, Transition } from '../../domain/pipeline/pipeline-order.ts'
import { recordSubmitted } from '../../domain/pipeline/submit-shipment.ts'
import { upsertLabJob } from '../../repositories/lab-jobs.repository.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import { insertShipmentCost } from '../../repositories/shipment-costs.repository.ts'
import type { ServiceLogger } from '../observability.ts'
import { orderLogFields, submitLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'
import type { FileStore, LabConnector, PackingSlipRenderer, PipelineSettings } from './ports.ts'

/** A real lab learns of a shipment by listing its jobs on the lab API: nothing follows the submission. */
const labApiConnector: LabConnector = { afterSubmit: () => [] }

/** The connector a shipment of `environment` is submitted to, and its name for the log. */
export function labConnectorFor(
  environment: Environment,
  settings: Pick<PipelineSettings, 'simulateLiveLabs'>,
  simulatedLabs: LabConnector,
): { connector: LabConnector; name: 'lab API' | 'simulated' } {
  // Sandbox never fulfils for real; Live uses the simulated labs only when configured for a demo.
  return environment === 'sandbox' || settings.simulateLiveLabs
    ? { connector: simulatedLabs, name: 'simulated' }
    : { connector: labApiConnector, name: 'lab API' }
}

export interface SubmitShipmentDeps {
  db: Database
  clock: Clock
  settings: Pick<PipelineSettings, 'simulateLiveLabs'>
  /** Where Sandbox orders (and Live ones in a demo) are submitted (simulated-labs.ts). */
  simulatedLabs: LabConnector
  files: Pick<FileStore, 'put'>
  renderPackingSlip: PackingSlipRenderer
  log: ServiceLogger
  transition: StepTransition
}

export type SubmitShipment = (orderId: string, shipmentId: string) => Promise<void>

export function createSubmitShipment(deps: SubmitShipmentDeps): SubmitShipment {
  const { clock } = deps

  /**
   * Makes, keeps and records the packing slip of a submitted shipment that has none yet: after the submission's
   * transaction (like a print file, made outside one), so a re-run of the job after a crash makes it too. A slip
   * that cannot be made does not hold the shipment back: the lab gets it without one (logged as a warning).
   */
  async function attachPackingSlip(orderId: string, shipmentId: string): Promise<void> {
    const snapshot = await readOrder(deps.db, orderNumberOf(orderId))
    if (!snapshot || snapshot.pipeline.shipments[shipmentId]?.packingSlipPdf) return
    const content = packingSlipContent(snapshot, shipmentId)
    if (!content) return
    const blobKey = packingSlipBlobKey(orderId, shipmentId)
    try {
      await deps.files.put(blobKey, await deps.renderPackingSlip(content), 'application/pdf')
    } catch (error) {
      deps.log.warn(
        { ...orderLogFields(snapshot), step: 'submit', shipmentId, error: (error as Error).message },
        `packing slip of shipment ${shipmentId} could not be made: ${(error as Error).message}; the lab gets none`,
      )
      return
    }
    await deps.transition(snapshot.orderNumber, (order) => recordPackingSlipPdf(order.pipeline, shipmentId, blobKey))
  }

  async function submit(order: PipelineOrder, tx: Queryable, shipmentId: string): Promise<Transition> {
    const result = recordSubmitted(order.document, order.pipeline, shipmentId, clock.now())
    if (!result.changed) return result
    const labCode = order.pipeline.shipments[shipmentId]?.labCode ?? ''
    await upsertLabJob(
      tx,
      {
        shipmentNumber: parseId('shp', shipmentId) ?? 0,
        orderNumber: order.orderNumber,
        labCode,
        environment: order.environment,
        state: 'submitted',
      },
      clock.now(),
    )
    // What the lab is owed for it, recorded with the hand-off (once: a re-run's row is already there).
    const cost = shipmentCostOf(order, shipmentId, clock.now())
    if (cost) await insertShipmentCost(tx, cost)
    const { connector } = labConnectorFor(order.environment, deps.settings, deps.simulatedLabs)
    result.jobs.push(...connector.afterSubmit(order, shipmentId))
    return result
  }

  return async (orderId, shipmentId) => {
    await deps.transition(
      orderNumberOf(orderId),
      (order, tx) => submit(order, tx, shipmentId),
      ({ order }) =>
        submitLine(order, shipmentId, labConnectorFor(order.environment, deps.settings, deps.simulatedLabs).name),
    )
    await attachPackingSlip(orderId, shipmentId)
  }
}
