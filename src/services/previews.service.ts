// Previews and mockups of an order item before it is ordered (docs/api.md#previews), and the resolution check
// behind every LowResolution warning that needs a download (previews and quotes; orders check after their own
// download, in the pipeline). Images are fetched by the pipeline's fetcher (same address rules and size limit),
// the preview is the print file's own rendering at a reduced scale (adapters/image-renderer.ts, renderPreview),
// the mockup is drawn from it (domain/mockups.ts, adapters/mockup-renderer.ts). Results are cached by image hash,
// SKU, attributes, sizing, print area and what they depend on in the catalogue for PREVIEW_CACHE_SECONDS (table
// preview_cache, blobs under `product-previews/`, named afresh for every render), and the expire-previews job
// removes them. The parts live in previews/: fetching images, the cache, making previews, quote warnings.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { Environment } from '../domain/environment.ts'
import type { ResolutionWarning } from '../domain/resolution.ts'
import { deleteExpiredPreviews } from '../repositories/previews.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import type { UnknownSampleUrlCheck } from './own-samples.ts'
import type { AssetFetcher, FileStore, ScratchFileProvider } from './pipeline/ports.ts'
import {
  type MockupDrawer,
  makePreviews,
  type Preview,
  type PreviewInput,
  type PreviewLinker,
} from './previews/make-previews.ts'
import { deleteFiles } from './previews/preview-cache.ts'
import type { PreviewRenderer } from './previews/preview-images.ts'
import { type QuotedItem, quoteWarnings } from './previews/resolution-warnings.ts'

export interface PreviewsDeps {
  db: Database
  clock: Clock
  catalogue: Catalogue
  fetcher: AssetFetcher
  files: FileStore
  withScratchFile: ScratchFileProvider
  sha256File: (path: string) => Promise<string>
  renderer: PreviewRenderer
  drawMockup: MockupDrawer
  fileLinks: PreviewLinker
  log?: ServiceLogger
  /** Recognises URLs under printroute's own /samples/ naming no sample; none recognised when absent. */
  unknownSampleUrl?: UnknownSampleUrlCheck
}

/** Previews for POST /v4.0/previews, LowResolution warnings for quotes, and the cache's expiry. */
export interface PreviewsService {
  /**
   * The preview and mockup of each asset of an order item (docs/api.md#previews), from the cache or made now.
   * Throws ValidationFailed for an item the catalogue does not match or an asset that is no usable image.
   */
  createPreviews(environment: Environment, input: PreviewInput): Promise<Preview[]>
  /**
   * A quote's LowResolution warnings (docs/api.md#quotes), each naming its quote item (`quoted`, in the request's
   * order); undefined when no asset of the request has a url, so the answer stays as it was.
   */
  quoteWarnings(
    items: QuotedItem[],
    quoted: readonly { id: string }[],
  ): Promise<(ResolutionWarning & { itemId: string })[] | undefined>
  /** Deletes expired cache entries and their images; returns how many images were deleted. */
  expirePreviews(): Promise<number>
}

export function createPreviewsService(options: PreviewsDeps): PreviewsService {
  const deps = { ...options, log: options.log ?? silentLogger }
  return {
    createPreviews: (environment, input) => makePreviews(deps, environment, input),
    quoteWarnings: (items, quoted) => quoteWarnings(deps, items, quoted),
    async expirePreviews() {
      const keys = await deleteExpiredPreviews(deps.db, deps.clock.now())
      await deleteFiles(deps, keys, 'deleting an expired preview image failed')
      return keys.length
    },
  }
}
