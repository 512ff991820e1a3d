// POST /v4.0/previews (docs/api.md#previews): an order's item drawn before it is ordered. Each asset's preview is
// the print file's own rendering at a reduced scale (adapters/image-renderer.ts, renderPreview), its mockup is
// drawn from it (domain/mockups.ts, adapters/mockup-renderer.ts); both come from the cache when they can.
import type { Clock } from '../../adapters/clock.ts'
import type { Database } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { Product, Variant } from '../../domain/catalogue.types.ts'
import { catalogueValidationFailed, matchPreviewItem } from '../../domain/catalogue-matching.ts'
import type { Environment } from '../../domain/environment.ts'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import { type MockupPlan, planMockup } from '../../domain/mockups.ts'
import { normaliseAmount } from '../../domain/money.ts'
import { validationFailed } from '../../domain/outcomes.ts'
import { type PrintLayout, placementOnSource, previewSize, printAreaRequestOf } from '../../domain/print-geometry.ts'
import { checkResolution } from '../../domain/resolution.ts'
import type { SizingMode } from '../../domain/shipping-methods.ts'
import { SPINE_PRINT_AREA } from '../../domain/spine.ts'
import { type CachedPreview, findCachedPreview } from '../../repositories/previews.repository.ts'
import type { ServiceLogger } from '../observability.ts'
import type { FileStore, ScratchFileProvider } from '../pipeline/ports.ts'
import {
  type CachedResult,
  PREVIEW_CACHE_SECONDS,
  PRODUCT_PREVIEW_EDGE,
  previewCacheKey,
  renderBlobKeys,
  saveRender,
} from './preview-cache.ts'
import {
  assetFailure,
  type FetchedImage,
  fetchImages,
  type ImageFetchDeps,
  type PreviewRenderer,
  withScratchFiles,
} from './preview-images.ts'

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

/** One print area's answer: what the cache keeps of its preview, and links to its two images. */
export interface Preview extends CachedResult {
  printArea: string
  previewUrl: string
  mockupUrl: string
  expiresAt: string
}

export interface MakePreviewsDeps extends ImageFetchDeps {
  renderer: PreviewRenderer
  db: Database
  clock: Clock
  catalogue: Catalogue
  files: Pick<FileStore, 'get' | 'put' | 'delete'>
  withScratchFile: ScratchFileProvider
  drawMockup: MockupDrawer
  fileLinks: PreviewLinker
  log: ServiceLogger
}

/** The item being previewed, matched in the catalogue, and its images fetched. */
interface PreviewRequest {
  input: PreviewInput
  product: Product
  variant: Variant
  /** The print area of each asset, in the request's order. */
  printAreas: string[]
  isBook: boolean
  images: FetchedImage[]
  now: Date
}

/** A preview made now: what the cache keeps, its image, and its layout when the area has a spec. */
interface MadePreview {
  result: CachedResult
  preview: Buffer
  /** The picture the mockup is drawn from: the preview without its guide lines (the product has none). */
  plain: Buffer
  layout: PrintLayout | null
}

/** A preview found in the cache, or made now (its files not yet written). */
type PreviewEntry = { printArea: string; cacheKey: string } & (
  | { cached: CachedPreview; made: null }
  | { cached: null; made: MadePreview }
)

/** The item matched in the catalogue, or ValidationFailed with what does not match. */
function matchItem(catalogue: Catalogue, input: PreviewInput) {
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
  return matched.item
}

export async function makePreviews(
  deps: MakePreviewsDeps,
  environment: Environment,
  input: PreviewInput,
): Promise<Preview[]> {
  const { product, variant, assets } = matchItem(deps.catalogue, input)
  const printAreas = assets.map((asset) => asset.printArea)
  const isBook = product.category.toLowerCase() === 'photobook'

  return withScratchFiles(deps.withScratchFile, input.assets.length, async (paths) => {
    const failures: Failures = {}
    const fetched = await fetchImages(
      deps,
      input.assets.map((asset, index) => ({ url: asset.url, path: paths[index] as string, at: `assets[${index}]` })),
      failures,
      true,
    )
    if (hasFailures(failures)) throw validationFailed(failures, 'The preview could not be made')
    const request = {
      input,
      product,
      variant,
      printAreas,
      isBook,
      images: fetched as FetchedImage[],
      now: deps.clock.now(),
    }
    const expiresAt = new Date(request.now.getTime() + PREVIEW_CACHE_SECONDS * 1000)

    // First every preview (from the cache or made now): a book's mockup draws its cover and spine together.
    const entries: PreviewEntry[] = []
    const previewImages = new Map<string, Buffer>()
    for (const index of request.images.keys()) entries.push(await findOrRender(deps, request, index, previewImages))

    const previews: Preview[] = []
    for (const entry of entries) {
      const stored = entry.made ? await drawAndStore(deps, request, entry, previewImages, expiresAt) : entry.cached
      previews.push(previewOf(deps.fileLinks, environment, entry.printArea, stored))
    }
    return previews
  })
}

/** The preview of the request's `index`th image: from the cache, or rendered now (added to `previewImages`). */
async function findOrRender(
  deps: MakePreviewsDeps,
  request: PreviewRequest,
  index: number,
  previewImages: Map<string, Buffer>,
): Promise<PreviewEntry> {
  const { input, product, variant, printAreas, isBook, images } = request
  const image = images[index] as FetchedImage
  const printArea = printAreas[index] as string
  const hashOf = (area: string) => images[printAreas.indexOf(area)]?.sha256 ?? null
  const companion = isBook ? hashOf(printArea === SPINE_PRINT_AREA ? 'default' : SPINE_PRINT_AREA) : null
  const cacheKey = previewCacheKey(
    { sha256: image.sha256, product, variant, sizing: input.sizing, printArea, companion },
    deps.catalogue.colours,
  )
  const cached = await findCachedPreview(deps.db, cacheKey, request.now)
  if (cached) {
    if (isBook) previewImages.set(printArea, await deps.files.get(cached.previewKey))
    return { printArea, cacheKey, cached, made: null }
  }
  const size = variant.printAreaSizes[printArea]
  if (!size) throw new Error(`${variant.key} has no size for print area ${printArea}`)
  // An area with a spec is previewed as its print file is laid out, with the guide lines; others as before.
  const area = printAreaRequestOf(variant, printArea, deps.catalogue.colours)
  const rendered = await deps.renderer
    .renderPreview(image.path, {
      width: size.horizontalResolution,
      height: size.verticalResolution,
      sizing: input.sizing,
      maxEdge: PRODUCT_PREVIEW_EDGE,
      ...(area ? { area } : {}),
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
  const made = {
    result,
    preview: rendered.data,
    plain: rendered.plain ?? rendered.data,
    layout: rendered.layout ?? null,
  }
  return { printArea, cacheKey, cached: null, made }
}

/** Draws the mockup of a preview made now, writes both images and records them in the cache. */
async function drawAndStore(
  deps: MakePreviewsDeps,
  request: PreviewRequest,
  entry: PreviewEntry & { made: MadePreview },
  previewImages: Map<string, Buffer>,
  expiresAt: Date,
): Promise<CachedPreview> {
  const { product, variant } = request
  const preview = entry.made.preview
  const plan = planMockup({
    product,
    variant,
    printArea: entry.printArea,
    preview: { width: entry.made.result.width, height: entry.made.result.height },
    colours: deps.catalogue.colours,
    layout: entry.made.layout,
  })
  const cover = variant.printAreaSizes.default
  // The finished product shows no guide lines: the mockup is drawn from the preview without them.
  const mockup = await deps.drawMockup(plan, {
    preview: entry.made.plain,
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
  const { previewKey, mockupKey } = renderBlobKeys(entry.cacheKey)
  await deps.files.put(previewKey, preview, 'image/jpeg')
  await deps.files.put(mockupKey, mockup.data, 'image/jpeg')
  return saveRender(
    deps,
    { cacheKey: entry.cacheKey, result: JSON.stringify(entry.made.result), previewKey, mockupKey, expiresAt },
    request.now,
  )
}

/** The answer for one print area, from its cache entry: links valid as long as the entry. */
function previewOf(
  fileLinks: PreviewLinker,
  environment: Environment,
  printArea: string,
  stored: CachedPreview,
): Preview {
  const result = JSON.parse(stored.result) as CachedResult
  return {
    printArea,
    previewUrl: fileLinks.url(environment, stored.previewKey, stored.expiresAt),
    mockupUrl: fileLinks.url(environment, stored.mockupKey, stored.expiresAt),
    width: result.width,
    height: result.height,
    rotated: result.rotated,
    crop: result.crop,
    effectiveDpi: result.effectiveDpi,
    warnings: result.warnings,
    expiresAt: stored.expiresAt.toISOString(),
  }
}
