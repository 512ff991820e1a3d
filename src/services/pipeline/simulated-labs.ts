// The simulated labs: the connector Sandbox orders (and Live ones in a demo) are submitted to instead of the
// lab API. Each shipment goes through timer-driven steps, one simulated-lab-step job each, that report to the
// pipeline through the entry a real lab's report takes (lab-report.ts, `reportLab`): acknowledge (or refuse),
// produce, ship, then the carrier's scans until the parcel is delivered (or, by scenario, comes back). What a
// simulated lab answers is decided here (Sandbox scenarios, out-of-stock SKUs, the reject rate); the report then
// changes the order exactly as a real lab's would.
import { createHash } from 'node:crypto'
import type { Clock } from '../../adapters/clock.ts'
import {
  type JobRequest,
  jobRequest,
  nextSimulatedLabStep,
  type SimulatedLabStep,
  scanStatusOf,
} from '../../domain/jobs.ts'
import type { LabReport } from '../../domain/pipeline/lab-report.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import { labStepWaitsForAdvance, simulatedCarrierScan } from '../../domain/sandbox-scenarios.ts'
import type { ReportLab } from './lab-report.ts'

export interface SimulatedLabSettings {
  /** The time between a simulated lab's steps. */
  simulatedLabStepSeconds: number
  /** SKUs the simulated labs report out of stock (tests, demos). */
  simulatedUnavailableSkus: readonly string[]
  /** Share (0 to 1) of shipments a simulated lab rejects, chosen by shipment id so runs repeat exactly. */
  simulatedRejectRate: number
}

/** What a simulated lab needs of the pipeline: the order, and where its reports go (the lab API's entry too). */
export interface SimulatedLabPipeline {
  /** The order as it stands, unlocked. */
  orderOf(orderId: string): Promise<PipelineOrder | undefined>
  reportLab: ReportLab
}

export interface SimulatedLabs {
  /** A shipment was submitted: its lab starts working on it after one step's time (the LabConnector). */
  afterSubmit(order: PipelineOrder, shipmentId: string): JobRequest[]
  /**
   * One step of a simulated lab on a shipment, reported to `pipeline`; nothing when the shipment is not where
   * that step applies (a timer firing after the order was advanced, a repeat).
   */
  runStep(pipeline: SimulatedLabPipeline, orderId: string, shipmentId: string, step: SimulatedLabStep): Promise<void>
}

/** A stable number in [0, 1) for a shipment, so a simulated lab's choice repeats on a re-run. */
export function simulatedDraw(shipmentId: string): number {
  return createHash('sha256').update(shipmentId).digest().readUInt32BE(0) / 2 ** 32
}

/** A simulated lab's refusal of a shipment, or undefined when it takes it. */
function refusalOf(
  order: PipelineOrder,
  shipment: PipelineOrder['document']['shipments'][number],
  settings: SimulatedLabSettings,
): LabReport | undefined {
  const unavailable = shipment.items
    .map((entry) => order.document.items.find((item) => item.id === entry.itemId))
    .filter(
      (item) => item && settings.simulatedUnavailableSkus.some((sku) => sku.toLowerCase() === item.sku.toLowerCase()),
    )
    .map((item) => item?.id as string)
  if (unavailable.length > 0) return { kind: 'rejected', reason: 'out of stock', unavailableItemIds: unavailable }
  // Sandbox scenario labRejects: the first lab the order is given rejects it; the next one takes it.
  const firstLab = Object.values(order.pipeline.shipments).every((candidate) => candidate.state !== 'rejected')
  if (order.sandboxScenario === 'labRejects' && firstLab) {
    return { kind: 'rejected', reason: 'simulated rejection (Sandbox scenario labRejects)', unavailableItemIds: [] }
  }
  if (simulatedDraw(shipment.id) < settings.simulatedRejectRate) {
    return { kind: 'rejected', reason: 'simulated rejection', unavailableItemIds: [] }
  }
  return undefined
}

export function createSimulatedLabs(deps: { clock: Clock; settings: SimulatedLabSettings }): SimulatedLabs {
  const { clock, settings } = deps

  /**
   * The job of the lab's next step, after one step's time; none while a Sandbox scenario makes the shipment wait
   * for the order to be advanced (docs/sandbox.md).
   */
  function stepJobs(order: PipelineOrder, shipmentId: string, step: SimulatedLabStep | undefined): JobRequest[] {
    if (step === undefined || labStepWaitsForAdvance(order.sandboxScenario, order.document, shipmentId)) return []
    const startAfter = new Date(clock.now().getTime() + settings.simulatedLabStepSeconds * 1000)
    return [jobRequest('simulated-lab-step', { orderId: order.document.id, shipmentId, step }, startAfter)]
  }

  return {
    afterSubmit(order, shipmentId) {
      return stepJobs(order, shipmentId, 'acknowledge')
    },

    async runStep(pipeline, orderId, shipmentId, step) {
      const order = await pipeline.orderOf(orderId)
      const shipment = order?.document.shipments.find((candidate) => candidate.id === shipmentId)
      const inPipeline = order?.pipeline.shipments[shipmentId]
      if (!order || !shipment || !inPipeline) return
      const scenario = order.sandboxScenario
      if (nextSimulatedLabStep(inPipeline.state, shipment.deliveryStatus, scenario) !== step) return
      const now = clock.now()
      if (step === 'acknowledge') {
        const refusal = refusalOf(order, shipment, settings)
        if (refusal) await pipeline.reportLab(orderId, shipmentId, refusal)
        else
          await pipeline.reportLab(
            orderId,
            shipmentId,
            { kind: 'acknowledged' },
            stepJobs(order, shipmentId, 'produce'),
          )
      } else if (step === 'produce') {
        await pipeline.reportLab(orderId, shipmentId, { kind: 'inProduction' }, stepJobs(order, shipmentId, 'ship'))
      } else if (step === 'ship') {
        const trackingNumber = `SIM${shipmentId.replace('shp_', '').padStart(10, '0')}`
        await pipeline.reportLab(
          orderId,
          shipmentId,
          {
            kind: 'shipped',
            carrier: null,
            tracking: { number: trackingNumber, url: `https://tracking.example.com/track?number=${trackingNumber}` },
            dispatchDate: now,
          },
          stepJobs(order, shipmentId, nextSimulatedLabStep('shipped', undefined, scenario)),
        )
      } else {
        // A carrier scan: the shipment stays `shipped`; its deliveryStatus says which scan comes next.
        const status = scanStatusOf(step)
        if (!status) return
        const scan = simulatedCarrierScan(scenario, order.document, shipment, inPipeline.promise, status, now)
        await pipeline.reportLab(
          orderId,
          shipmentId,
          { kind: 'tracking', events: [scan], fromStatus: shipment.deliveryStatus ?? null },
          stepJobs(order, shipmentId, nextSimulatedLabStep('shipped', status, scenario)),
        )
      }
    },
  }
}
