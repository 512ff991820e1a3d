// The images behind previews and resolution checks: each asset URL downloaded into a scratch file of its own by
// the pipeline's fetcher (same address rules and size limit) and its header read.
import { addFailure, type Failures } from '../../domain/failures.ts'
import type { PrintAreaRequest, PrintFilePlan, PrintLayout } from '../../domain/print-geometry.ts'
import type { SizingMode } from '../../domain/shipping-methods.ts'
import { refuseUnknownSampleUrl, type UnknownSampleUrlCheck } from '../own-samples.ts'
import type { AssetFetcher, ScratchFileProvider } from '../pipeline/ports.ts'

export interface PreviewRenderer {
  probe(input: string): Promise<{ width: number; height: number; format: string }>
  renderPreview(
    input: string,
    options: { width: number; height: number; sizing: SizingMode; maxEdge?: number; area?: PrintAreaRequest | null },
  ): Promise<{
    data: Buffer
    width: number
    height: number
    source: { width: number; height: number }
    plan: PrintFilePlan
    /** Areas with a spec: the preview's layout (the print file's, scaled down). */
    layout?: PrintLayout
    /** Areas with a spec: the preview without its guide lines, which the mockup is drawn from. */
    plain?: Buffer
  }>
}

/** An asset fetched to a scratch file and read: its bytes' hash and its upright size. */
export interface FetchedImage {
  path: string
  sha256: string
  source: { width: number; height: number }
}

export interface ImageFetchDeps {
  fetcher: AssetFetcher
  renderer: Pick<PreviewRenderer, 'probe'>
  sha256File: (path: string) => Promise<string>
  /** Recognises URLs under printroute's own /samples/ naming no sample; none recognised when absent. */
  unknownSampleUrl?: UnknownSampleUrlCheck
}

/** Runs `use` with one scratch file per entry (nested, so each is removed once `use` settles). */
export function withScratchFiles<R>(
  provide: ScratchFileProvider,
  count: number,
  use: (paths: string[]) => Promise<R>,
  paths: string[] = [],
): Promise<R> {
  if (paths.length >= count) return use(paths)
  return provide((path) => withScratchFiles(provide, count, use, [...paths, path]))
}

/** The failure for an asset that could not be used, by the error's code (download and renderer errors). */
export function assetFailure(
  error: unknown,
  url: string,
): { code: 'NotDownloaded' | 'NotAnImage' | 'ImageTooLarge'; comparisonValue: string } {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'ImageTooLarge') return { code: 'ImageTooLarge', comparisonValue: message }
  if (code === 'UnreadableImage') return { code: 'NotAnImage', comparisonValue: message }
  return { code: 'NotDownloaded', comparisonValue: `${url} could not be downloaded: ${message}` }
}

/**
 * Downloads each URL into its scratch file and reads its header; every problem is added to `failures` under
 * `<path>.url`. Undefined for an asset that failed.
 */
export async function fetchImages(
  deps: ImageFetchDeps,
  assets: { url: string; path: string; at: string }[],
  failures: Failures,
  withHash: boolean,
): Promise<(FetchedImage | undefined)[]> {
  const fetched: (FetchedImage | undefined)[] = []
  for (const asset of assets) {
    if (refuseUnknownSampleUrl(deps.unknownSampleUrl, failures, `${asset.at}.url`, asset.url)) {
      fetched.push(undefined)
      continue
    }
    try {
      const download = await deps.fetcher.download(asset.url, asset.path, {})
      if (download.contentType === 'application/pdf') {
        throw Object.assign(new Error('a PDF has no preview: previews and resolution checks are for images'), {
          code: 'UnreadableImage',
        })
      }
      const probe = await deps.renderer.probe(asset.path)
      fetched.push({
        path: asset.path,
        sha256: withHash ? await deps.sha256File(asset.path) : '',
        source: { width: probe.width, height: probe.height },
      })
    } catch (error) {
      const { code, comparisonValue } = assetFailure(error, asset.url)
      addFailure(failures, `${asset.at}.url`, { code, providedValue: asset.url, comparisonValue })
      fetched.push(undefined)
    }
  }
  return fetched
}
