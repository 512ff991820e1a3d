// The start-order step's transitions (services/pipeline/start-order.ts): the job that puts a new order into the
// pipeline, and its first transition, which queues every file for download.
import { type JobRequest, jobRequest } from '../jobs.ts'
import type { OrderDocument } from '../order.ts'
import { downloadJob, finishDownloads, hasPendingAssets } from './download-file.ts'
import {
  type FileKind,
  NOTHING,
  type PipelineFile,
  type PipelineState,
  setDetail,
  type Transition,
  touch,
} from './pipeline-order.ts'

/**
 * The job that puts a new order into the pipeline: now, or when its pause window ends. `traceId` (the creating
 * request's) becomes the order's `pipeline.traceId`.
 */
export function startOrderJob(orderId: string, onHoldUntil: Date | null, traceId?: string): JobRequest {
  return jobRequest('start-order', traceId ? { orderId, traceId } : { orderId }, onHoldUntil ?? undefined)
}

/** The order enters the pipeline: every file is queued for download. */
export function startPipeline(order: OrderDocument, pipeline: PipelineState, now: Date): Transition {
  if (pipeline.phase !== 'waiting') return NOTHING
  pipeline.phase = 'downloading'
  for (const item of order.items) {
    for (const asset of item.assets) {
      pipeline.files[asset.id] = newFile('asset', asset.url, asset.md5Hash)
    }
  }
  if (order.packingSlip) pipeline.files.packingSlip = newFile('packingSlip', order.packingSlip.url, null)
  if (order.branding) {
    const seen = new Set<string>()
    for (const [key, entry] of Object.entries(order.branding)) {
      // The colour slip appears under both spellings with the same URL: download it once.
      const name = key === 'packing_slip_color' ? 'packing_slip_colour' : key
      if (!entry || seen.has(name)) continue
      seen.add(name)
      pipeline.files[`branding:${name}`] = newFile('branding', entry.url, null)
    }
  }
  setDetail(order, 'downloadAssets', 'InProgress')
  touch(order, now)
  const jobs = Object.keys(pipeline.files).map((fileKey) => downloadJob(order.id, fileKey, 1))
  // An order without assets (not possible through the API today) goes straight on.
  if (!hasPendingAssets(pipeline)) jobs.push(...finishDownloads(order, pipeline))
  return { changed: true, jobs }
}

function newFile(kind: FileKind, url: string, expectedMd5: string | null): PipelineFile {
  return { kind, url, expectedMd5, failedAttempts: 0, status: 'pending', stored: null }
}
