// Step download-file: one attempt at one of the order's files (an asset, the packing slip, a branding file).
// The file is kept in the blob store; an image asset is thumbnailed and measured for the LowResolution warning.
// Every asset is preflighted; a PDF asset is kept with the report's safe box fixes applied (the copy the print file
// step passes to the lab), else byte for byte as downloaded.
// The attempt is then recorded: the file, or a failure retried with backoff up to DOWNLOAD_MAX_ATTEMPTS.
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { recordDownloadFailure, recordDownloadSuccess } from '../../domain/pipeline/download-file.ts'
import type {
  PipelineFile,
  PipelineOrder,
  PipelinePreflight,
  StoredFile,
} from '../../domain/pipeline/pipeline-order.ts'
import { NOTHING } from '../../domain/pipeline/pipeline-order.ts'
import { checkResolution } from '../../domain/resolution.ts'
import {
  downloadRetryBaseSecondsOf,
  simulatedDownloadFailure,
  simulatedPreflightInspection,
} from '../../domain/sandbox-scenarios.ts'
import { readOrder } from '../../repositories/orders.repository.ts'
import type { ServiceMetrics } from '../observability.ts'
import { downloadLine } from './log-lines.ts'
import { orderNumberOf, type StepTransition } from './order-transition.ts'
import type {
  AssetFetcher,
  AssetPreflight,
  FileLinker,
  FileStore,
  PipelineSettings,
  PreflightSubject,
  PrintFileRenderer,
  ScratchFileProvider,
} from './ports.ts'

export interface DownloadFileDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  fetcher: AssetFetcher
  files: Pick<FileStore, 'put'>
  withScratchFile: ScratchFileProvider
  renderer: Pick<PrintFileRenderer, 'renderThumbnail' | 'probe'>
  fileLinks: Pick<FileLinker, 'token'>
  settings: Pick<PipelineSettings, 'downloadRetryBaseSeconds'>
  metrics: Pick<ServiceMetrics, 'assetDownload'>
  transition: StepTransition
  /** Checks every asset after its download (docs/pipeline.md#preflight); none when absent. */
  preflight?: AssetPreflight
}

/** One attempt; `replacement` (absent: 0) names which replacement of the asset it is for (replaceAsset). */
export type DownloadFile = (orderId: string, fileKey: string, attempt: number, replacement?: number) => Promise<void>

/**
 * What one attempt did: the file kept, with its thumbnail's link and the LowResolution message of a small image;
 * or why not, and whether it is final (no later attempt can succeed).
 */
type DownloadOutcome =
  | {
      stored: StoredFile
      thumbnailUrl: string | null
      lowResolution: string | null
      preflight?: PipelinePreflight | null
    }
  | { stored?: undefined; failure: string | undefined; final: boolean }

export function assetBlobKey(orderId: string, fileKey: string): string {
  return `assets/${orderId}/${fileKey.replace(':', '-')}`
}

/** The LowResolution message for an asset of the order whose image has this size; null when sharp enough. */
function resolutionWarningOf(
  catalogue: Catalogue,
  document: PipelineOrder['document'],
  assetId: string,
  source: { width: number; height: number },
): string | null {
  const item = document.items.find((candidate) => candidate.assets.some((asset) => asset.id === assetId))
  const asset = item?.assets.find((candidate) => candidate.id === assetId)
  const product = item && catalogue.findProduct(item.sku)
  const target = item && asset && catalogue.findVariant(item.sku, item.attributes)?.printAreaSizes[asset.printArea]
  if (!item || !asset || !product || !target) return null
  return (
    checkResolution({ product, printArea: asset.printArea, target, source, sizing: item.sizing }).warning?.message ??
    null
  )
}

/** What an asset of the order is checked against: its item's SKU and variant, its print area and page count. */
function preflightSubjectOf(document: PipelineOrder['document'], assetId: string): PreflightSubject | null {
  const item = document.items.find((candidate) => candidate.assets.some((asset) => asset.id === assetId))
  const asset = item?.assets.find((candidate) => candidate.id === assetId)
  if (!item || !asset) return null
  return { sku: item.sku, printArea: asset.printArea, pageCount: asset.pageCount ?? null, attributes: item.attributes }
}

/** The preflight of an asset kept at `path`: the Sandbox scenario's made-up measures, or the file's own. */
async function preflightOf(
  preflight: AssetPreflight | undefined,
  order: PipelineOrder,
  fileKey: string,
  path: string,
  contentType: string,
  thumbnailKeyPrefix?: string,
): Promise<PipelinePreflight | null> {
  const subject = preflight && preflightSubjectOf(order.document, fileKey)
  if (!preflight || !subject) return null
  const simulated = simulatedPreflightInspection(order.sandboxScenario)
  if (simulated) return preflight.judge(simulated, subject)
  return preflight.checkFile(path, contentType, subject, thumbnailKeyPrefix)
}

export function createDownloadFile(deps: DownloadFileDeps): DownloadFile {
  /** Thumbnails and measures an image asset just kept; an image that cannot be read fails the attempt. */
  async function withThumbnail(
    path: string,
    order: PipelineOrder,
    orderId: string,
    fileKey: string,
    stored: StoredFile,
  ): Promise<DownloadOutcome> {
    try {
      const thumbnailKey = `thumbnails/${orderId}/${fileKey}.jpg`
      await deps.files.put(thumbnailKey, await deps.renderer.renderThumbnail(path), 'image/jpeg')
      // Stored as a token: every read of the order turns it into a link valid from then.
      const thumbnailUrl = deps.fileLinks.token(order.environment, thumbnailKey)
      const { width, height } = await deps.renderer.probe(path)
      const lowResolution = resolutionWarningOf(deps.catalogue, order.document, fileKey, { width, height })
      return { stored: { ...stored, width, height }, thumbnailUrl, lowResolution }
    } catch (error) {
      // An image that cannot even be thumbnailed is refused now, as a failed attempt: it will not print.
      return { failure: `the file is not a readable image (${(error as Error).message})`, final: false }
    }
  }

  /**
   * A PDF asset: preflighted, given the report's safe box fixes (SetTrimBox, SetBleedBox) on printroute's copy,
   * then kept, so the print file step passes the fixed copy to the lab. The stored bytes and md5 stay the
   * download's (what the merchant's md5 was checked against); a file that needs no fix is kept byte for byte. A
   * retried attempt downloads and fixes afresh, so it keeps the same file.
   */
  async function keepPdfAsset(path: string, order: PipelineOrder, fileKey: string, stored: StoredFile) {
    // A PDF's page thumbnails are kept beside it (`<blob key>.page-<n>.png`), so the retention deletes them with it.
    const thumbnailKeyPrefix = `${stored.blobKey}.page-`
    const preflight = await preflightOf(deps.preflight, order, fileKey, path, stored.contentType, thumbnailKeyPrefix)
    const subject = preflightSubjectOf(order.document, fileKey)
    const kept = (checked: PipelinePreflight | null): DownloadOutcome => ({
      stored,
      thumbnailUrl: null,
      lowResolution: null,
      preflight: checked,
    })
    const assetPreflight = deps.preflight
    // Measures made up by a Sandbox scenario are no ground to change the real file.
    const simulated = simulatedPreflightInspection(order.sandboxScenario) !== undefined
    if (!assetPreflight || !preflight || !subject || simulated || preflight.report.fixes.length === 0) {
      await deps.files.put(stored.blobKey, path, stored.contentType)
      return kept(preflight)
    }
    return deps.withScratchFile(async (fixedPath) => {
      const fixed = await assetPreflight.applyFixes(path, fixedPath, subject, preflight)
      await deps.files.put(stored.blobKey, fixed.written ? fixedPath : path, stored.contentType)
      return kept(fixed.preflight)
    })
  }

  /** One attempt, in a scratch file of its own. */
  async function attempt(
    order: PipelineOrder,
    orderId: string,
    fileKey: string,
    file: PipelineFile,
    attemptNumber: number,
  ): Promise<DownloadOutcome> {
    // A Sandbox scenario can fail the attempt without any request (docs/sandbox.md).
    const simulatedFailure =
      file.kind === 'asset' ? simulatedDownloadFailure(order.sandboxScenario, file.url, attemptNumber) : undefined
    return deps.withScratchFile(async (path): Promise<DownloadOutcome> => {
      if (simulatedFailure !== undefined) return { failure: simulatedFailure, final: false }
      try {
        const downloaded = await deps.fetcher.download(file.url, path, { expectedMd5: file.expectedMd5 })
        const blobKey = assetBlobKey(orderId, fileKey)
        const stored: StoredFile = {
          blobKey,
          contentType: downloaded.contentType,
          bytes: downloaded.bytes,
          md5: downloaded.md5,
          width: null,
          height: null,
        }
        if (file.kind === 'asset' && downloaded.contentType === 'application/pdf') {
          return await keepPdfAsset(path, order, fileKey, stored)
        }
        await deps.files.put(blobKey, path, downloaded.contentType)
        if (file.kind !== 'asset') return { stored, thumbnailUrl: null, lowResolution: null }
        const outcome = await withThumbnail(path, order, orderId, fileKey, stored)
        if (!outcome.stored) return outcome
        return {
          ...outcome,
          preflight: await preflightOf(deps.preflight, order, fileKey, path, downloaded.contentType),
        }
      } catch (error) {
        // A URL under printroute's own /samples/ naming no sample will not appear by waiting.
        return { failure: (error as Error).message, final: (error as { code?: unknown }).code === 'UnknownSample' }
      }
    })
  }

  return async (orderId, fileKey, attemptNumber, replacement = 0) => {
    const orderNumber = orderNumberOf(orderId)
    const snapshot = await readOrder(deps.db, orderNumber)
    const file = snapshot?.pipeline.files[fileKey]
    if (!snapshot || !file || file.status !== 'pending' || attemptNumber <= file.failedAttempts) return
    // An attempt queued for the file the merchant has since replaced: the replacement has jobs of its own.
    if ((file.replacement ?? 0) !== replacement) return
    const started = performance.now()
    const outcome = await attempt(snapshot, orderId, fileKey, file, attemptNumber)
    const ms = Math.round(performance.now() - started)
    deps.metrics.assetDownload(outcome.stored ? 'ok' : 'failed')
    const now = deps.clock.now()
    await deps.transition(
      orderNumber,
      (order) =>
        // Replaced while this attempt ran (replaceAsset): its file is no longer the asset's, so nothing is recorded.
        (order.pipeline.files[fileKey]?.replacement ?? 0) !== replacement
          ? NOTHING
          : outcome.stored
            ? recordDownloadSuccess(
                order.document,
                order.pipeline,
                fileKey,
                outcome.stored,
                outcome.thumbnailUrl,
                now,
                outcome.lowResolution,
                outcome.preflight ?? null,
              )
            : recordDownloadFailure(
                order.document,
                order.pipeline,
                fileKey,
                attemptNumber,
                outcome.failure ?? 'unknown error',
                downloadRetryBaseSecondsOf(order.sandboxScenario, deps.settings.downloadRetryBaseSeconds),
                now,
                { final: outcome.final },
              ),
      ({ order, result }) =>
        downloadLine(
          order,
          result.jobs,
          { fileKey, kind: file.kind, url: file.url, attempt: attemptNumber, ms },
          { stored: outcome.stored, failure: outcome.stored ? undefined : outcome.failure },
        ),
    )
  }
}
