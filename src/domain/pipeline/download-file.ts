// The download-file step's transitions (services/pipeline/download-file.ts): one download attempt recorded, a
// failure retried with backoff up to DOWNLOAD_MAX_ATTEMPTS, and the order on to allocation once no file is pending.
import { type JobRequest, jobRequest } from '../jobs.ts'
import type { OrderDocument } from '../order.ts'
import { beginAllocation } from './allocate-order.ts'
import {
  addIssue,
  findAsset,
  ISSUE_CODES,
  NOTHING,
  type PipelinePreflight,
  type PipelineState,
  type StoredFile,
  setDetail,
  type Transition,
  touch,
} from './pipeline-order.ts'

/** Asset downloads are attempted 10 times (specification, "Issues" and "Limits"). */
export const DOWNLOAD_MAX_ATTEMPTS = 10

/** Delay before download attempt `nextAttempt` (2..10): base, 2x base, 4x base, ... */
export function downloadRetryDelaySeconds(baseSeconds: number, failedAttempts: number): number {
  return baseSeconds * 2 ** (failedAttempts - 1)
}

/** The job of download attempt `attempt` of one file (of its `replacement`th replacement, when replaced). */
export function downloadJob(
  orderId: string,
  fileKey: string,
  attempt: number,
  startAfter?: Date,
  replacement?: number,
): JobRequest {
  return jobRequest(
    'download-file',
    replacement ? { orderId, fileKey, attempt, replacement } : { orderId, fileKey, attempt },
    startAfter,
  )
}

/** A URL as issues show it: without its query, which may carry a signature or a token. */
function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/)
  return cut === -1 ? url : url.slice(0, cut)
}

/** Whether an asset still waits for its download. */
export function hasPendingAssets(pipeline: PipelineState): boolean {
  return Object.values(pipeline.files).some((file) => file.kind === 'asset' && file.status === 'pending')
}

function hasFailedAssets(pipeline: PipelineState): boolean {
  return Object.values(pipeline.files).some((file) => file.kind === 'asset' && file.status === 'failed')
}

/** Called when no asset is pending any more: on to allocation, or stop at Error. */
export function finishDownloads(order: OrderDocument, pipeline: PipelineState): JobRequest[] {
  if (pipeline.phase !== 'downloading') return []
  if (hasFailedAssets(pipeline)) {
    setDetail(order, 'downloadAssets', 'Error')
    pipeline.phase = 'failed'
    return []
  }
  setDetail(order, 'downloadAssets', 'Complete')
  return beginAllocation(order, pipeline)
}

/** The PreflightFailed issue's text: the asset, its error codes (each once, in report order), the first message. */
export function preflightFailureText(fileKey: string, preflight: PipelinePreflight): string {
  const errors = preflight.report.checks.filter((check) => check.severity === 'error')
  const codes = [...new Set(errors.map((check) => check.code))]
  const first = errors[0]
  const where = first?.page === undefined ? '' : `page ${first.page}: `
  return `Asset ${fileKey} failed preflight (${codes.join(', ')})${first ? `: ${where}${first.message}` : ''}`
}

export function recordDownloadSuccess(
  order: OrderDocument,
  pipeline: PipelineState,
  fileKey: string,
  stored: StoredFile,
  thumbnailUrl: string | null,
  now: Date,
  /** The LowResolution warning's text when the image prints below the product's minimum: a non-blocking issue. */
  lowResolution: string | null = null,
  /** The asset's preflight (null: none ran): kept; a `Failed` one holds the item with PreflightFailed. */
  preflight: PipelinePreflight | null = null,
): Transition {
  const file = pipeline.files[fileKey]
  if (file?.status !== 'pending' || pipeline.phase === 'cancelled') return NOTHING
  file.status = 'downloaded'
  file.stored = stored
  if (preflight && file.kind === 'asset') file.preflight = preflight
  touch(order, now)
  if (file.kind === 'packingSlip' && order.packingSlip) order.packingSlip.status = 'Success'
  if (file.kind !== 'asset') return { changed: true, jobs: [] }
  const found = findAsset(order, fileKey)
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) {
      asset.status = 'Complete'
      asset.thumbnailUrl = thumbnailUrl
    }
    if (lowResolution) addIssue(order, found.item.id, ISSUE_CODES.lowResolution, `Asset ${fileKey}: ${lowResolution}`)
    if (preflight?.status === 'Failed') {
      // Kept, but held: the asset counts as failed, so the order stops once no download is pending.
      file.status = 'failed'
      if (asset) asset.status = 'Error'
      found.item.status = 'Invalid'
      addIssue(order, found.item.id, ISSUE_CODES.preflightFailed, preflightFailureText(fileKey, preflight))
    } else if (found.item.assets.every((candidate) => candidate.status === 'Complete')) {
      found.item.status = 'Ok'
      found.item.thumbnailUrl = found.item.assets[0]?.thumbnailUrl ?? null
    }
  }
  const jobs = hasPendingAssets(pipeline) ? [] : finishDownloads(order, pipeline)
  return { changed: true, jobs }
}

export function recordDownloadFailure(
  order: OrderDocument,
  pipeline: PipelineState,
  fileKey: string,
  attempt: number,
  reason: string,
  retryBaseSeconds: number,
  now: Date,
  /** `final`: the failure cannot go away by waiting (a sample printroute does not have): no more attempts. */
  options: { final?: boolean } = {},
): Transition {
  const file = pipeline.files[fileKey]
  // Each attempt is recorded once; a re-run of an attempt already recorded changes nothing.
  if (file?.status !== 'pending' || attempt <= file.failedAttempts || pipeline.phase === 'cancelled') return NOTHING
  file.failedAttempts = attempt
  touch(order, now)
  const found = file.kind === 'asset' ? findAsset(order, fileKey) : undefined
  const objectId = found ? found.item.id : order.id
  const what =
    file.kind === 'asset'
      ? `asset ${fileKey}`
      : file.kind === 'packingSlip'
        ? 'the packing slip'
        : fileKey.replace('branding:', 'branding ')
  addIssue(
    order,
    objectId,
    ISSUE_CODES.notDownloaded,
    `Download attempt ${attempt} of ${DOWNLOAD_MAX_ATTEMPTS} failed for ${what} (${withoutQuery(file.url)}): ${reason}` +
      (options.final ? ' (not retried)' : ''),
  )
  if (attempt < DOWNLOAD_MAX_ATTEMPTS && !options.final) {
    const delay = downloadRetryDelaySeconds(retryBaseSeconds, attempt)
    return {
      changed: true,
      jobs: [downloadJob(order.id, fileKey, attempt + 1, new Date(now.getTime() + delay * 1000), file.replacement)],
    }
  }
  file.status = 'failed'
  if (file.kind === 'packingSlip' && order.packingSlip) order.packingSlip.status = 'Error'
  if (file.kind !== 'asset') return { changed: true, jobs: [] }
  addIssue(
    order,
    objectId,
    ISSUE_CODES.failedToDownload,
    `Asset ${fileKey} (${withoutQuery(file.url)}) failed to download after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${reason}`,
  )
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) asset.status = 'Error'
    found.item.status = 'Invalid'
  }
  const jobs = hasPendingAssets(pipeline) ? [] : finishDownloads(order, pipeline)
  return { changed: true, jobs }
}

/** The assets whose download failed for good (not those held by their preflight: they downloaded). */
export function failedDownloads(pipeline: PipelineState): string[] {
  return Object.entries(pipeline.files)
    .filter(([, file]) => file.kind === 'asset' && file.status === 'failed' && file.stored === null)
    .map(([fileKey]) => fileKey)
}

/**
 * An operator's retry of an asset whose download failed (docs/admin.md#acting-on-an-order): the asset is pending
 * again, its FailedToDownload issue goes, the order is back at its downloads, and one more attempt is queued (the
 * attempt after the last failed one: should it fail too, the asset fails again, with its issue). Undefined when
 * the asset's download did not fail, or the order is cancelled.
 */
export function retryFailedDownload(
  order: OrderDocument,
  pipeline: PipelineState,
  fileKey: string,
  now: Date,
): Transition | undefined {
  const file = pipeline.files[fileKey]
  if (!file || pipeline.phase === 'cancelled' || !failedDownloads(pipeline).includes(fileKey)) return undefined
  if (pipeline.phase !== 'failed' && pipeline.phase !== 'downloading') return undefined
  file.status = 'pending'
  const prefix = `Asset ${fileKey} `
  order.status.issues = order.status.issues.filter(
    (issue) => !(issue.errorCode === ISSUE_CODES.failedToDownload && issue.description.startsWith(prefix)),
  )
  const found = findAsset(order, fileKey)
  if (found) {
    const asset = found.item.assets[found.index]
    if (asset) asset.status = 'InProgress'
    found.item.status = 'NotYetDownloaded'
  }
  if (pipeline.phase === 'failed') {
    pipeline.phase = 'downloading'
    setDetail(order, 'downloadAssets', 'InProgress')
  }
  touch(order, now)
  return { changed: true, jobs: [downloadJob(order.id, fileKey, file.failedAttempts + 1)] }
}
