// The preview cache (table preview_cache, blobs under `product-previews/`): an entry per image hash, SKU,
// attributes, sizing, print area and what they depend on in the catalogue, kept PREVIEW_CACHE_SECONDS; every
// render's files are named afresh, and the expire-previews job removes them.
import { createHash } from 'node:crypto'
import type { Database } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import type { Product, Variant } from '../../domain/catalogue.types.ts'
import { mockupColourOf } from '../../domain/mockups.ts'
import { randomHex } from '../../domain/random-hex.ts'
import type { ResolutionWarning } from '../../domain/resolution.ts'
import type { SizingMode } from '../../domain/shipping-methods.ts'
import {
  type CachedPreview,
  deleteExpiredPreview,
  findCachedPreview,
  insertCachedPreview,
} from '../../repositories/previews.repository.ts'
import type { ServiceLogger } from '../observability.ts'
import type { FileStore } from '../pipeline/ports.ts'

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

/** What the cache keeps of a preview besides its two images. */
export interface CachedResult {
  width: number
  height: number
  rotated: boolean
  crop: { left: number; top: number; width: number; height: number }
  effectiveDpi: number
  warnings: ResolutionWarning[]
}

/**
 * What a preview and its mockup depend on in the catalogue besides the variant's identity: the print areas'
 * pixel sizes (every area: a book's mockup draws cover and spine), the minimum resolution behind the warnings,
 * the category and size that shape the mockup, the colour it draws, and the print areas' specs (bleed, wrap). A catalogue that changes any of them
 * (a restart with another file) makes new entries instead of serving the old answer.
 */
function catalogueIdentity(product: Product, variant: Variant, colours: Catalogue['colours']): unknown {
  return [
    product.category,
    product.productDimensions,
    product.minimumDpi,
    Object.entries(variant.printAreaSizes).map(([area, size]) => [
      area,
      size.horizontalResolution,
      size.verticalResolution,
    ]),
    mockupColourOf(product, variant, colours)?.rgb ?? null,
    // Only when there are specs, so the keys of areas without one stay those of before.
    ...(Object.keys(variant.printAreaSpecs).length > 0 ? [variant.printAreaSpecs] : []),
  ]
}

export function previewCacheKey(
  parts: {
    sha256: string
    product: Product
    variant: Variant
    sizing: SizingMode
    printArea: string
    companion: string | null
  },
  colours: Catalogue['colours'],
): string {
  const identity = JSON.stringify([
    PREVIEW_RENDERER_VERSION,
    PRODUCT_PREVIEW_EDGE,
    parts.sha256,
    parts.variant.key,
    catalogueIdentity(parts.product, parts.variant, colours),
    parts.sizing,
    parts.printArea,
    parts.companion,
  ])
  return createHash('sha256').update(identity).digest('hex')
}

/**
 * Names of a render's own files: deleting an earlier render's files (the expiry job, a replaced expired entry)
 * can never remove these, whatever the order the two happen in.
 */
export function renderBlobKeys(cacheKey: string): { previewKey: string; mockupKey: string } {
  const token = randomHex(8)
  return {
    previewKey: `${BLOB_PREFIX}${cacheKey}/${token}-preview.jpg`,
    mockupKey: `${BLOB_PREFIX}${cacheKey}/${token}-mockup.jpg`,
  }
}

export interface PreviewCacheDeps {
  db: Database
  files: Pick<FileStore, 'delete'>
  /** Says which image could not be deleted (it stays behind, nothing else fails). */
  log: ServiceLogger
}

export async function deleteFiles(deps: PreviewCacheDeps, keys: readonly string[], why: string): Promise<void> {
  for (const key of keys) {
    try {
      await deps.files.delete(key)
    } catch (error) {
      deps.log.warn({ err: error, key }, why)
    }
  }
}

/**
 * Records a render whose files are written. An expired entry under the same key goes first, with its files (its
 * links have stopped working). When another request stored the key meanwhile, its entry is the answer and this
 * render's files are removed: a live entry is never replaced, so no link handed out loses its file.
 */
export async function saveRender(deps: PreviewCacheDeps, entry: CachedPreview, now: Date): Promise<CachedPreview> {
  const { db } = deps
  for (let attempt = 0; attempt < 3; attempt++) {
    await deleteFiles(
      deps,
      await deleteExpiredPreview(db, entry.cacheKey, now),
      'deleting an expired preview image failed',
    )
    if (await insertCachedPreview(db, entry, now)) return entry
    const stored = await findCachedPreview(db, entry.cacheKey, now)
    if (stored) {
      await deleteFiles(deps, [entry.previewKey, entry.mockupKey], 'deleting an unused preview image failed')
      return stored
    }
  }
  throw new Error(`the preview cache entry ${entry.cacheKey} could be neither stored nor read`)
}
