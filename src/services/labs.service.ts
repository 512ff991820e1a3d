// The lab side of the pipeline: lab keys, the jobs a lab sees, and its reports. Every report goes through
// the same pipeline functions the simulated labs use.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { parseId } from '../domain/ids.ts'
import type { Recipient } from '../domain/order.ts'
import type { LabReport } from '../domain/order-pipeline.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { findLabJob, listLabJobs } from '../repositories/lab-jobs.repository.ts'
import { findLabCodeByKeyHash, insertLabKey } from '../repositories/lab-keys.repository.ts'
import { readOrder } from '../repositories/orders.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import type { PipelineService } from './pipeline/index.ts'
import { hashSecretKey, newSecretKey } from './secret-keys.ts'

/** Lab job states a lab still has to act on. */
const OPEN_STATES = ['submitted', 'acknowledged', 'inProduction'] as const

export class LabError extends Error {}

/** A shipment as the lab API lists it: what the lab was given at submission and where its files are. */
export interface LabJobView {
  shipmentId: string
  orderId: string
  state: string
  shippingMethod: string
  carrier: { name: string; service: string }
  recipient: Recipient
  items: {
    itemId: string
    sku: string
    copies: number
    attributes: Record<string, string>
    printFiles: { printArea: string; url: string; format: string }[]
  }[]
  packingSlip: { url: string } | null
  branding: Record<string, { url: string }> | null
}

/** The lab side of the pipeline: lab keys, the shipments a lab sees, and its reports. */
export interface LabsService {
  /** A new key for a catalogue lab; the only time the key is shown. */
  createLabKey(labCode: string): Promise<{ key: string; prefix: string }>
  /** The lab code a lab key belongs to; undefined for an unknown key. */
  authenticateLab(key: string): Promise<string | undefined>
  /** The Live shipments a lab still has to make or ship, with everything it needs to do so. */
  listJobs(labCode: string): Promise<LabJobView[]>
  /** Applies a lab's report on one of its shipments; whether the order changed. */
  report(labCode: string, shipmentId: string, report: LabReport): Promise<{ changed: boolean }>
}

export function createLabsService(deps: {
  db: Database
  clock: Clock
  catalogue: Catalogue
  pipeline: PipelineService
  /** One line per lab API call; silent when absent. */
  log?: ServiceLogger
}): LabsService {
  const { db, clock, catalogue, pipeline } = deps
  const log = deps.log ?? silentLogger

  async function jobOf(labCode: string, shipmentId: string) {
    const number = parseId('shp', shipmentId)
    const job = number === undefined ? undefined : await findLabJob(db, number)
    // Sandbox shipments go to the simulated labs only: a real lab never sees or reports them.
    if (!job || job.labCode !== labCode || job.environment !== 'live')
      throw new ServiceError('EntityNotFound', `Shipment ${shipmentId} is not assigned to lab ${labCode}`)
    return job
  }

  return {
    async createLabKey(labCode: string): Promise<{ key: string; prefix: string }> {
      const lab = catalogue.findLab(labCode)
      if (!lab) throw new LabError(`The catalogue has no lab ${labCode}`)
      const { key, prefix } = newSecretKey('lab')
      await insertLabKey(db, { labCode: lab.code, prefix, keyHash: hashSecretKey(key), createdAt: clock.now() })
      return { key, prefix }
    },

    async authenticateLab(key: string): Promise<string | undefined> {
      return findLabCodeByKeyHash(db, hashSecretKey(key))
    },

    /** The shipments a lab still has to make or ship, with everything it needs to do so. */
    async listJobs(labCode: string): Promise<LabJobView[]> {
      const jobs = (await listLabJobs(db, labCode, OPEN_STATES)).filter((job) => job.environment === 'live')
      const result: LabJobView[] = []
      for (const job of jobs) {
        const order = await readOrder(db, job.orderNumber)
        const shipmentId = `shp_${job.shipmentNumber}`
        const shipment = order?.document.shipments.find((candidate) => candidate.id === shipmentId)
        if (!order || !shipment) continue
        const printFiles = pipeline.printFileUrls(order, shipmentId)
        const extras = pipeline.extraFileUrls(order)
        // What the lab was given at submission: a later (partial) recipient or method change does not reach it.
        const submitted = order.pipeline.shipments[shipmentId]?.submitted
        result.push({
          shipmentId,
          orderId: order.document.id,
          state: job.state,
          shippingMethod: submitted?.shippingMethod ?? order.document.shippingMethod,
          carrier: shipment.carrier,
          recipient: submitted?.recipient ?? order.document.recipient,
          items: shipment.items.map(({ itemId }) => {
            const item = order.document.items.find((candidate) => candidate.id === itemId)
            return {
              itemId,
              sku: item?.sku ?? '',
              copies: item?.copies ?? 0,
              attributes: item?.attributes ?? {},
              printFiles: (item?.assets ?? []).flatMap((asset) => {
                const file = printFiles.find((candidate) => candidate.assetId === asset.id)
                return file ? [{ printArea: asset.printArea, url: file.url, format: file.format }] : []
              }),
            }
          }),
          packingSlip: extras.packingSlip,
          branding: extras.branding,
        })
      }
      // The signed file URLs of the answer are not logged: they are the lab's access to the files.
      log.info(
        {
          labCode,
          step: 'lab-api',
          call: 'list',
          orderIds: [...new Set(result.map((job) => job.orderId))],
          shipmentIds: result.map((job) => job.shipmentId),
        },
        `lab API: lab ${labCode} listed ${result.length} open shipment${result.length === 1 ? '' : 's'}`,
      )
      return result
    },

    async report(labCode: string, shipmentId: string, report: LabReport): Promise<{ changed: boolean }> {
      const job = await jobOf(labCode, shipmentId)
      if (report.kind === 'rejected') {
        const order = await readOrder(db, job.orderNumber)
        const shipment = order?.document.shipments.find((candidate) => candidate.id === shipmentId)
        const inShipment = new Set(shipment?.items.map((entry) => entry.itemId))
        const unknown = report.unavailableItemIds.filter((itemId) => !inShipment.has(itemId))
        if (unknown.length > 0) {
          throw new ServiceError(
            'ValidationFailed',
            `Items ${unknown.join(', ')} are not in shipment ${shipmentId}`,
            {},
            {
              unavailableItemIds: unknown.map((itemId) => ({ code: 'InvalidValue', providedValue: itemId })),
            },
          )
        }
      }
      const orderId = `ord_${job.orderNumber}`
      const result = await pipeline.reportLab(orderId, shipmentId, report)
      log.info(
        { orderId, labCode, step: 'lab-api', call: report.kind, shipmentId, changed: result.changed },
        `lab API: lab ${labCode} reports ${report.kind} for ${shipmentId}: ${result.changed ? 'Updated' : 'Ok (no change)'}`,
      )
      return result
    },
  }
}
