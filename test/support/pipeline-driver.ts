// Moves orders through the real pipeline step by step, without workers: each step calls the same service
// function a job would, so a test can stop an order exactly where it needs it (allocated, print files made,
// one shipment with its lab, shipped) and then act on it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import sharp from 'sharp'
import { parseId } from '../../src/domain/ids.ts'
import type { OrderDocument } from '../../src/domain/order.ts'
import type { PipelineOrder } from '../../src/domain/order-pipeline.ts'
import { readOrder } from '../../src/repositories/pipeline.repository.ts'
import type { TestApp } from './test-app.ts'

export interface ImageServer {
  url(name: string): string
  close(): Promise<void>
}

/**
 * An HTTP server on 127.0.0.1 answering every path with one small generated 300x500 JPEG, or with the file
 * given for that path (`/name`).
 */
export async function startImageServer(
  files: Record<string, { body: Buffer; type: string }> = {},
): Promise<ImageServer> {
  const image = await sharp({ create: { width: 300, height: 500, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .jpeg()
    .toBuffer()
  const server: Server = createServer((request, response) => {
    const { body, type } = files[(request.url ?? '').split('?')[0] ?? ''] ?? { body: image, type: 'image/jpeg' }
    response.writeHead(200, { 'content-type': type, 'content-length': body.length })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** A phone case: the smallest print file of the sample catalogue, so rendering is quick. */
export const PHONE_CASE = 'GLOBAL-TECH-IP11P-FC-CP'

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

  return { state, document, allocate, render, submit, ship }
}

export type PipelineDriver = ReturnType<typeof pipelineDriver>
