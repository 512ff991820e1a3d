// Moves orders through the real pipeline step by step, without workers: each step calls the same service
// function a job would, so a test can stop an order exactly where it needs it (allocated, print files made,
// one shipment with its lab, shipped) and then act on it.
import { parseId } from '../../src/domain/ids.ts'
import { nextSimulatedLabStep, type SimulatedLabStep } from '../../src/domain/jobs.ts'
import type { OrderDocument } from '../../src/domain/order.ts'
import { DOWNLOAD_MAX_ATTEMPTS } from '../../src/domain/pipeline/download-file.ts'
import type { PipelineOrder } from '../../src/domain/pipeline/pipeline-order.ts'
import { labStepWaitsForAdvance } from '../../src/domain/sandbox-scenarios.ts'
import { listOverdueDeliveries } from '../../src/repositories/callback-deliveries.repository.ts'
import { readOrder } from '../../src/repositories/orders.repository.ts'
import { sampleOrder, type TestApp } from './test-app.ts'

/** A phone case: the smallest print file of the sample catalogue, so rendering is quick. */
export const PHONE_CASE = 'GLOBAL-TECH-IP11P-FC-CP'

/**
 * A black-wrap canvas item. To GB by Standard two sample labs make and ship it (nl1, uk6; the cheaper, uk6, gets
 * it), by Budget only uk6.
 */
export function blackCanvasItem(url: string) {
  return {
    sku: 'GLOBAL-CAN-10x10',
    copies: 1,
    sizing: 'fillPrintArea',
    attributes: { wrap: 'Black' },
    assets: [{ url }],
  }
}

export const US_RECIPIENT = {
  name: 'Grace Hopper',
  address: {
    line1: '1 Main St',
    postalOrZipCode: '10001',
    countryCode: 'US',
    townOrCity: 'New York',
    stateOrCounty: 'NY',
  },
}

/**
 * A canvas and a phone case to the US: two labs, so two shipments. `canvas` changes the canvas item (copies,
 * sizing); the rest overrides the order's fields.
 */
export function twoLabOrder(
  url: (name: string) => string,
  { canvas = {}, ...overrides }: { canvas?: Record<string, unknown> } & Record<string, unknown> = {},
) {
  return sampleOrder({
    recipient: US_RECIPIENT,
    items: [
      {
        sku: 'GLOBAL-CAN-10x10',
        copies: 1,
        sizing: 'fillPrintArea',
        attributes: { wrap: 'Black' },
        assets: [{ url: url('canvas.jpg') }],
        ...canvas,
      },
      { sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: url('case.jpg') }] },
    ],
    ...overrides,
  })
}

export function pipelineDriver(t: TestApp) {
  const pipeline = t.app.services.pipeline

  /** The order's pipeline state, its document as the API serves it now (file tokens made into links). */
  async function state(orderId: string): Promise<PipelineOrder> {
    const order = await readOrder(t.database.db, parseId('ord', orderId) as number)
    if (!order) throw new Error(`no order ${orderId}`)
    return { ...order, document: JSON.parse(t.app.services.fileLinks.refresh(JSON.stringify(order.document))) }
  }

  async function document(orderId: string): Promise<OrderDocument> {
    return (await state(orderId)).document
  }

  /**
   * Starts the order and makes each file's download attempts in turn, as its job would, until every file is
   * downloaded or has failed for good (DOWNLOAD_MAX_ATTEMPTS): the order then goes on to allocation or stops. The
   * backoff between attempts is the queue's part, not run here.
   */
  async function download(orderId: string): Promise<PipelineOrder> {
    await pipeline.startOrder(orderId)
    for (let attempt = 1; attempt <= DOWNLOAD_MAX_ATTEMPTS; attempt++) {
      const files = Object.entries((await state(orderId)).pipeline.files)
      const pending = files.filter(([, file]) => file.status === 'pending')
      if (pending.length === 0) break
      // A replaced asset (replaceAsset) is attempted under its replacement's number, as its jobs carry it.
      for (const [fileKey, file] of pending) await pipeline.downloadFile(orderId, fileKey, attempt, file.replacement)
    }
    return state(orderId)
  }

  /** Downloads every file and allocates the order: shipments and the first charge appear. */
  async function allocate(orderId: string): Promise<PipelineOrder> {
    await pipeline.startOrder(orderId)
    const started = await state(orderId)
    for (const fileKey of Object.keys(started.pipeline.files)) await pipeline.downloadFile(orderId, fileKey, 1)
    const downloaded = await state(orderId)
    await pipeline.allocateOrder(orderId, downloaded.pipeline.allocationRound)
    return state(orderId)
  }

  /** Makes every print file still missing; the order is then ready to be submitted (unless awaiting payment). */
  async function render(orderId: string): Promise<PipelineOrder> {
    const current = await state(orderId)
    for (const [shipmentId, shipment] of Object.entries(current.pipeline.shipments)) {
      for (const [assetId, file] of Object.entries(shipment.printFiles)) {
        if (!file) await pipeline.renderPrintFile(orderId, shipmentId, assetId)
      }
    }
    return state(orderId)
  }

  /** Submits one shipment (or all) to its lab, as the submit job would. */
  async function submit(orderId: string, shipmentId?: string): Promise<PipelineOrder> {
    const current = await state(orderId)
    const ids = shipmentId ? [shipmentId] : Object.keys(current.pipeline.shipments)
    for (const id of ids) await pipeline.submitShipment(orderId, id)
    return state(orderId)
  }

  /** The lab makes and ships every submitted shipment. */
  async function ship(orderId: string): Promise<PipelineOrder> {
    const current = await state(orderId)
    for (const [shipmentId, shipment] of Object.entries(current.pipeline.shipments)) {
      if (shipment.state === 'cancelled' || shipment.state === 'rejected') continue
      await pipeline.reportLab(orderId, shipmentId, { kind: 'acknowledged' })
      await pipeline.reportLab(orderId, shipmentId, { kind: 'inProduction' })
      await pipeline.reportLab(orderId, shipmentId, {
        kind: 'shipped',
        carrier: null,
        tracking: { number: `T${shipmentId}`, url: `https://tracking.example.com/${shipmentId}` },
        dispatchDate: new Date('2026-03-02T10:00:00Z'),
      })
    }
    return state(orderId)
  }

  /**
   * The simulated labs (Sandbox) work on every shipment with a step left, one step each in turn, as their timers'
   * jobs would, until none has a step left or waits for the order to be advanced (a Sandbox scenario's). A
   * rejection leaves the order for its next allocation round. `carrierScans: false` stops each at Shipped.
   */
  async function simulateLabs(orderId: string, { carrierScans = true } = {}): Promise<PipelineOrder> {
    // Far more rounds than any simulated path has steps: only a step that changes nothing could reach it.
    for (let round = 0; round < 50; round++) {
      const current = await state(orderId)
      const steps: { shipmentId: string; step: SimulatedLabStep }[] = []
      for (const shipment of current.document.shipments) {
        const inPipeline = current.pipeline.shipments[shipment.id]
        if (!inPipeline || (inPipeline.state === 'shipped' && !carrierScans)) continue
        if (labStepWaitsForAdvance(current.sandboxScenario, current.document, shipment.id)) continue
        const step = nextSimulatedLabStep(inPipeline.state, shipment.deliveryStatus, current.sandboxScenario)
        if (step) steps.push({ shipmentId: shipment.id, step })
      }
      if (steps.length === 0) return current
      for (const { shipmentId, step } of steps) {
        await t.app.services.simulatedLabs.runStep(pipeline, orderId, shipmentId, step)
      }
    }
    throw new Error(`the simulated labs did not settle order ${orderId}`)
  }

  /**
   * The next attempt of every pending callback delivery (merchants' callbacks, webhook endpoints, labs' pushes),
   * oldest first, as each delivery's job would make it when due: one round, so a failed attempt stays pending
   * for the next call. Returns the deliveries attempted.
   */
  async function deliverCallbacks(): Promise<{ id: number; attempts: number }[]> {
    const pending = await listOverdueDeliveries(t.database.db, {
      // Whenever it is due: a far date both databases take (PGlite refuses JavaScript's latest one).
      dueBefore: new Date('9999-12-31T00:00:00Z'),
      afterId: 0,
      limit: 10_000,
    })
    for (const delivery of pending) await t.app.services.callbacks.deliver(delivery.id, delivery.attempts + 1)
    return pending
  }

  return { state, document, download, allocate, render, submit, ship, simulateLabs, deliverCallbacks }
}

export type PipelineDriver = ReturnType<typeof pipelineDriver>
