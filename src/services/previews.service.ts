// Previews and mockups of an order item before it is ordered (docs/api.md#previews), and the resolution check
// behind every LowResolution warning that needs a download (previews and quotes; orders check after their own
// download, in the pipeline). Images are fetched by the pipeline's fetcher (same address rules and size limit),
// the preview is the print file's own rendering at a reduced scale (adapters/image-renderer.ts, renderPreview),
// the mockup is drawn from it (domain/mockups.ts, adapters/mockup-renderer.ts). Results are cached by image hash,
// SKU, attributes, sizing, print area and what they depend on in the catalogue for PREVIEW_CACHE_SECONDS (table
// preview_cache, blobs under `product-previews/`, named afresh for every render), and the expire-previews job
// removes them.
import { createHash } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import type { Product, Variant } from '../domain/catalogue.types.ts'
import { catalogueValidationFailed, matchPreviewItem } from '../domain/catalogue-matching.ts'
import type { Environment } from '../domain/environment.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { type MockupPlan, mockupColourOf, planMockup } from '../domain/mockups.ts'
import { normaliseAmount } from '../domain/money.ts'
import { validationFailed } from '../domain/outcomes.ts'
import { type PrintFilePlan, placementOnSource, previewSize } from '../domain/print-geometry.ts'
import { randomHex } from '../domain/random-hex.ts'
import { checkResolution, type ResolutionWarning } from '../domain/resolution.ts'
import type { SizingMode } from '../domain/shipping-methods.ts'
import { SPINE_PRINT_AREA } from '../domain/spine.ts'
import {
  type CachedPreview,
  deleteExpiredPreview,
  deleteExpiredPreviews,
  findCachedPreview,
  insertCachedPreview,
} from '../repositories/previews.repository.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'
import { refuseUnknownSampleUrl, type UnknownSampleUrlCheck } from './own-samples.ts'
import type { AssetFetcher, FileStore, ScratchFileProvider } from './pipeline/ports.ts'

/** How long a preview, its mockup and their links last. */
export const PREVIEW_CACHE_SECONDS = 24 * 3600
/** Longer edge of a product preview: the print-file previews' size, so the two look alike. */
export const PRODUCT_PREVIEW_EDGE = 800
/**
 * Part of every cache key: raise it when the preview's or the mockup's drawing changes, so that entries made the
 * old way are not served again (they expire on their own).
 */
export const PREVIEW_RENDERER_VERSION = 1
const BLOB_PREFIX = 'product-previews/'

export interface PreviewRenderer {
  probe(input: string): Promise<{ width: number; height: number; format: string }>
  renderPreview(
    input: string,
    options: { width: number; height: number; sizing: SizingMode; maxEdge?: number },
  ): Promise<{
    data: Buffer
    width: number
    height: number
    source: { width: number; height: number }
    plan: PrintFilePlan
  }>
}

export type MockupDrawer = (
  plan: MockupPlan,
  images: {
    preview: Buffer
    book?: { cover: Buffer | null; spine: Buffer | null; coverSize: { width: number; height: number } }
  },
) => Promise<{ data: Buffer; width: number; height: number }>

export interface PreviewLinker {
  /** A signed /files link to `key` on `environment`'s address that works until `expiresAt`. */
  url(environment: Environment, key: string, expiresAt: Date): string
}

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

/** An order's item (docs/api.md#previews): what only orders use is checked as on an order, then ignored. */
export interface PreviewInput {
  merchantReference?: string | null
  sku: string
  copies?: number
  sizing: SizingMode
  recipientCost?: { amount: string; currency: string } | null
  attributes?: Record<string, string> | null
  assets: { printArea?: string; url: string; md5Hash?: string | null; pageCount?: number | null }[]
}

export interface Preview {
  printArea: string
  previewUrl: string
  mockupUrl: string
  width: number
  height: number
  rotated: boolean
  crop: { left: number; top: number; width: number; height: number }
  effectiveDpi: number
  warnings: ResolutionWarning[]
  expiresAt: string
}

/** What the cache keeps of a preview besides its two images. */
interface CachedResult {
  width: number
  height: number
  rotated: boolean
  crop: Preview['crop']
  effectiveDpi: number
  warnings: ResolutionWarning[]
}

/** An asset fetched to a scratch file and read: its bytes' hash and its upright size. */
interface FetchedImage {
  path: string
  sha256: string
  source: { width: number; height: number }
}

/** Runs `use` with one scratch file per entry (nested, so each is removed once `use` settles). */
function withScratchFiles<R>(
  provide: ScratchFileProvider,
  count: number,
  use: (paths: string[]) => Promise<R>,
  paths: string[] = [],
): Promise<R> {
  if (paths.length >= count) return use(paths)
  return provide((path) => withScratchFiles(provide, count, use, [...paths, path]))
}

/** The failure for an asset that could not be used, by the error's code (download and renderer errors). */
function assetFailure(
  error: unknown,
  url: string,
): { code: 'NotDownloaded' | 'NotAnImage' | 'ImageTooLarge'; comparisonValue: string } {
  const code = (error as { code?: unknown }).code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'ImageTooLarge') return { code: 'ImageTooLarge', comparisonValue: message }
  if (code === 'UnreadableImage') return { code: 'NotAnImage', comparisonValue: message }
  return { code: 'NotDownloaded', comparisonValue: `${url} could not be downloaded: ${message}` }
}

export function createPreviewsService(deps: PreviewsDeps) {
  const { db, clock, catalogue } = deps
  const log = deps.log ?? silentLogger

  /**
   * Downloads each URL into its scratch file and reads its header; every problem is added to `failures` under
   * `<path>.url`. Undefined for an asset that failed.
   */
  async function fetchImages(
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

  /**
   * What a preview and its mockup depend on in the catalogue besides the variant's identity: the print areas'
   * pixel sizes (every area: a book's mockup draws cover and spine), the minimum resolution behind the warnings,
   * the category and size that shape the mockup, and the colour it draws. A catalogue that changes any of them
   * (a restart with another file) makes new entries instead of serving the old answer.
   */
  function catalogueIdentity(product: Product, variant: Variant): unknown {
    return [
      product.category,
      product.productDimensions,
      product.minimumDpi,
      Object.entries(variant.printAreaSizes).map(([area, size]) => [
        area,
        size.horizontalResolution,
        size.verticalResolution,
      ]),
      mockupColourOf(product, variant, catalogue.colours)?.rgb ?? null,
    ]
  }

  function cacheKeyOf(parts: {
    sha256: string
    product: Product
    variant: Variant
    sizing: SizingMode
    printArea: string
    companion: string | null
  }): string {
    const identity = JSON.stringify([
      PREVIEW_RENDERER_VERSION,
      PRODUCT_PREVIEW_EDGE,
      parts.sha256,
      parts.variant.key,
      catalogueIdentity(parts.product, parts.variant),
      parts.sizing,
      parts.printArea,
      parts.companion,
    ])
    return createHash('sha256').update(identity).digest('hex')
  }

  async function deleteFiles(keys: readonly string[], why: string): Promise<void> {
    for (const key of keys) {
      try {
        await deps.files.delete(key)
      } catch (error) {
        log.warn({ err: error, key }, why)
      }
    }
  }

  /**
   * Records a render whose files are written. An expired entry under the same key goes first, with its files (its
   * links have stopped working). When another request stored the key meanwhile, its entry is the answer and this
   * render's files are removed: a live entry is never replaced, so no link handed out loses its file.
   */
  async function saveRender(entry: CachedPreview, now: Date): Promise<CachedPreview> {
    for (let attempt = 0; attempt < 3; attempt++) {
      await deleteFiles(await deleteExpiredPreview(db, entry.cacheKey, now), 'deleting an expired preview image failed')
      if (await insertCachedPreview(db, entry, now)) return entry
      const stored = await findCachedPreview(db, entry.cacheKey, now)
      if (stored) {
        await deleteFiles([entry.previewKey, entry.mockupKey], 'deleting an unused preview image failed')
        return stored
      }
    }
    throw new Error(`the preview cache entry ${entry.cacheKey} could be neither stored nor read`)
  }

  /**
   * LowResolution warnings of items whose assets carry URLs (quotes): each URL is downloaded and its header read.
   * `at(item, asset)` names the asset's request path for a failure (a URL that cannot be downloaded, or not an
   * image: 400, as for previews). Warnings come back with their item's `index` in the request.
   */
  async function resolutionWarnings(
    items: {
      index: number
      product: Product
      variant: Variant
      sizing: SizingMode
      assets: { printArea: string; url: string | null }[]
    }[],
    at: (itemIndex: number, assetIndex: number) => string,
  ): Promise<{ itemIndex: number; warning: ResolutionWarning }[]> {
    const wanted = items.flatMap((item) =>
      item.assets.flatMap((asset, assetIndex) =>
        asset.url === null
          ? []
          : [
              {
                item,
                itemIndex: item.index,
                printArea: asset.printArea,
                url: asset.url,
                at: at(item.index, assetIndex),
              },
            ],
      ),
    )
    if (wanted.length === 0) return []
    return withScratchFiles(deps.withScratchFile, wanted.length, async (paths) => {
      const failures: Failures = {}
      const fetched = await fetchImages(
        wanted.map((asset, index) => ({ url: asset.url, path: paths[index] as string, at: asset.at })),
        failures,
        false,
      )
      if (hasFailures(failures)) throw validationFailed(failures, 'The quote could not be made')
      return wanted.flatMap((asset, index) => {
        const image = fetched[index]
        const target = asset.item.variant.printAreaSizes[asset.printArea]
        if (!image || !target) return []
        const { warning } = checkResolution({
          product: asset.item.product,
          printArea: asset.printArea,
          target,
          source: image.source,
          sizing: asset.item.sizing,
        })
        return warning ? [{ itemIndex: asset.itemIndex, warning }] : []
      })
    })
  }

  return {
    async createPreviews(environment: Environment, input: PreviewInput): Promise<Preview[]> {
      const matched = matchPreviewItem(catalogue, {
        sku: input.sku,
        attributes: input.attributes ?? {},
        assets: input.assets.map((asset) => ({ printArea: asset.printArea, pageCount: asset.pageCount ?? null })),
      })
      if (input.recipientCost && normaliseAmount(input.recipientCost.amount) === undefined) {
        addFailure(matched.failures, 'recipientCost.amount', {
          code: 'InvalidFormat',
          providedValue: input.recipientCost.amount,
        })
      }
      if (!matched.item || hasFailures(matched.failures)) {
        throw catalogueValidationFailed(catalogue, matched.failures, 'The preview could not be made')
      }
      const { product, variant } = matched.item
      const printAreas = matched.item.assets.map((asset) => asset.printArea)
      const isBook = product.category.toLowerCase() === 'photobook'

      return withScratchFiles(deps.withScratchFile, input.assets.length, async (paths) => {
        const failures: Failures = {}
        const fetched = await fetchImages(
          input.assets.map((asset, index) => ({
            url: asset.url,
            path: paths[index] as string,
            at: `assets[${index}]`,
          })),
          failures,
          true,
        )
        if (hasFailures(failures)) throw validationFailed(failures, 'The preview could not be made')
        const images = fetched as FetchedImage[]
        const now = clock.now()
        const expiresAt = new Date(now.getTime() + PREVIEW_CACHE_SECONDS * 1000)
        const hashOf = (area: string) => images[printAreas.indexOf(area)]?.sha256 ?? null

        // First every preview (from the cache or made now): a book's mockup draws its cover and spine together.
        const entries = []
        const previewImages = new Map<string, Buffer>()
        for (const [index, image] of images.entries()) {
          const printArea = printAreas[index] as string
          const companion = isBook ? hashOf(printArea === SPINE_PRINT_AREA ? 'default' : SPINE_PRINT_AREA) : null
          const cacheKey = cacheKeyOf({
            sha256: image.sha256,
            product,
            variant,
            sizing: input.sizing,
            printArea,
            companion,
          })
          const cached = await findCachedPreview(db, cacheKey, now)
          if (cached) {
            entries.push({ printArea, cacheKey, cached, made: null })
            if (isBook) previewImages.set(printArea, await deps.files.get(cached.previewKey))
            continue
          }
          const size = variant.printAreaSizes[printArea]
          if (!size) throw new Error(`${variant.key} has no size for print area ${printArea}`)
          const rendered = await deps.renderer
            .renderPreview(image.path, {
              width: size.horizontalResolution,
              height: size.verticalResolution,
              sizing: input.sizing,
              maxEdge: PRODUCT_PREVIEW_EDGE,
            })
            .catch((error: unknown) => {
              // What only decoding finds (a truncated file, more pixels than the limit) is the image's fault too.
              const code = (error as { code?: unknown }).code
              if (code !== 'ImageTooLarge' && code !== 'UnreadableImage') throw error
              const url = input.assets[index]?.url ?? ''
              const refused: Failures = {}
              addFailure(refused, `assets[${index}].url`, { providedValue: url, ...assetFailure(error, url) })
              throw validationFailed(refused, 'The preview could not be made')
            })
          previewImages.set(printArea, rendered.data)
          const resolution = checkResolution({
            product,
            printArea,
            target: size,
            source: rendered.source,
            sizing: input.sizing,
          })
          const { margins: _margins, ...crop } = placementOnSource(rendered.source, rendered.plan)
          const result: CachedResult = {
            width: rendered.width,
            height: rendered.height,
            rotated: rendered.plan.rotate === 90,
            crop,
            effectiveDpi: resolution.effectiveDpi,
            warnings: resolution.warning ? [resolution.warning] : [],
          }
          entries.push({ printArea, cacheKey, cached: null, made: { result, preview: rendered.data } })
        }

        const previews: Preview[] = []
        for (const entry of entries) {
          let stored = entry.cached
          if (entry.made) {
            const preview = entry.made.preview
            const plan = planMockup({
              product,
              variant,
              printArea: entry.printArea,
              preview: { width: entry.made.result.width, height: entry.made.result.height },
              colours: catalogue.colours,
            })
            const cover = variant.printAreaSizes.default
            const mockup = await deps.drawMockup(plan, {
              preview,
              ...(plan.kind === 'book'
                ? {
                    book: {
                      cover: previewImages.get('default') ?? null,
                      spine: previewImages.get(SPINE_PRINT_AREA) ?? null,
                      coverSize: cover
                        ? previewSize(cover.horizontalResolution, cover.verticalResolution, PRODUCT_PREVIEW_EDGE)
                        : { width: PRODUCT_PREVIEW_EDGE, height: PRODUCT_PREVIEW_EDGE },
                    },
                  }
                : {}),
            })
            // Names of this render's own: deleting an earlier render's files (the expiry job, a replaced expired
            // entry) can never remove these, whatever the order the two happen in.
            const token = randomHex(8)
            const previewKey = `${BLOB_PREFIX}${entry.cacheKey}/${token}-preview.jpg`
            const mockupKey = `${BLOB_PREFIX}${entry.cacheKey}/${token}-mockup.jpg`
            await deps.files.put(previewKey, preview, 'image/jpeg')
            await deps.files.put(mockupKey, mockup.data, 'image/jpeg')
            stored = await saveRender(
              { cacheKey: entry.cacheKey, result: JSON.stringify(entry.made.result), previewKey, mockupKey, expiresAt },
              now,
            )
          }
          if (!stored) throw new Error('a preview was neither cached nor made')
          const result = JSON.parse(stored.result) as CachedResult
          previews.push({
            printArea: entry.printArea,
            previewUrl: deps.fileLinks.url(environment, stored.previewKey, stored.expiresAt),
            mockupUrl: deps.fileLinks.url(environment, stored.mockupKey, stored.expiresAt),
            width: result.width,
            height: result.height,
            rotated: result.rotated,
            crop: result.crop,
            effectiveDpi: result.effectiveDpi,
            warnings: result.warnings,
            expiresAt: stored.expiresAt.toISOString(),
          })
        }
        return previews
      })
    },

    /**
     * A quote's LowResolution warnings (docs/api.md#quotes): undefined when no asset of the request has a url, so
     * the answer stays as it was; otherwise each warning names its quote item. The quote's items have been matched
     * already (the quote answered), so each matches here too.
     */
    async quoteWarnings(
      items: {
        sku: string
        attributes?: Record<string, string> | null
        sizing?: SizingMode
        assets: { printArea?: string; url?: string }[]
      }[],
      quoted: readonly { id: string }[],
    ): Promise<(ResolutionWarning & { itemId: string })[] | undefined> {
      if (!items.some((item) => item.assets.some((asset) => asset.url !== undefined))) return undefined
      const checked = items.flatMap((item, index) => {
        const matched = matchPreviewItem(catalogue, {
          sku: item.sku,
          attributes: item.attributes ?? {},
          assets: item.assets,
        })
        if (!matched.item) return []
        const areas = matched.item.assets
        return [
          {
            index,
            product: matched.item.product,
            variant: matched.item.variant,
            sizing: item.sizing ?? 'fillPrintArea',
            assets: item.assets.map((asset, index) => ({
              printArea: areas[index]?.printArea ?? 'default',
              url: asset.url ?? null,
            })),
          },
        ]
      })
      const found = await resolutionWarnings(checked, (item, asset) => `items[${item}].assets[${asset}]`)
      return found.map(({ itemIndex, warning }) => {
        const { code, ...rest } = warning
        return { code, itemId: quoted[itemIndex]?.id ?? '', ...rest }
      })
    },

    /** Deletes expired cache entries and their images; returns how many images were deleted. */
    async expirePreviews(): Promise<number> {
      const keys = await deleteExpiredPreviews(db, clock.now())
      await deleteFiles(keys, 'deleting an expired preview image failed')
      return keys.length
    },
  }
}

export type PreviewsService = ReturnType<typeof createPreviewsService>
