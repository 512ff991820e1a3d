// The LowResolution warnings that need a download (quotes, docs/api.md#quotes): each asset URL is downloaded and
// its header read; orders check after their own download, in the pipeline.
import type { Catalogue } from '../../domain/catalogue.ts'
import type { Product, Variant } from '../../domain/catalogue.types.ts'
import { matchPreviewItem } from '../../domain/catalogue-matching.ts'
import { type Failures, hasFailures } from '../../domain/failures.ts'
import { validationFailed } from '../../domain/outcomes.ts'
import { checkResolution, type ResolutionWarning } from '../../domain/resolution.ts'
import type { SizingMode } from '../../domain/shipping-methods.ts'
import type { ScratchFileProvider } from '../pipeline/ports.ts'
import { fetchImages, type ImageFetchDeps, withScratchFiles } from './preview-images.ts'

export interface ResolutionCheckDeps extends ImageFetchDeps {
  catalogue: Catalogue
  withScratchFile: ScratchFileProvider
}

/** A quote's item as its request gave it. */
export interface QuotedItem {
  sku: string
  attributes?: Record<string, string> | null
  sizing?: SizingMode
  assets: { printArea?: string; url?: string }[]
}

/** An item to check, matched in the catalogue; `index`: its place in the request. */
interface CheckedItem {
  index: number
  product: Product
  variant: Variant
  sizing: SizingMode
  assets: { printArea: string; url: string | null }[]
}

/**
 * LowResolution warnings of items whose assets carry URLs: each URL is downloaded and its header read.
 * `at(item, asset)` names the asset's request path for a failure (a URL that cannot be downloaded, or not an
 * image: 400, as for previews). Warnings come back with their item's `index` in the request.
 */
async function resolutionWarnings(
  deps: ResolutionCheckDeps,
  items: CheckedItem[],
  at: (itemIndex: number, assetIndex: number) => string,
): Promise<{ itemIndex: number; warning: ResolutionWarning }[]> {
  const wanted = items.flatMap((item) =>
    item.assets.flatMap((asset, assetIndex) =>
      asset.url === null
        ? []
        : [{ item, itemIndex: item.index, printArea: asset.printArea, url: asset.url, at: at(item.index, assetIndex) }],
    ),
  )
  if (wanted.length === 0) return []
  return withScratchFiles(deps.withScratchFile, wanted.length, async (paths) => {
    const failures: Failures = {}
    const fetched = await fetchImages(
      deps,
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

/**
 * A quote's LowResolution warnings (docs/api.md#quotes): undefined when no asset of the request has a url, so
 * the answer stays as it was; otherwise each warning names its quote item. The quote's items have been matched
 * already (the quote answered), so each matches here too.
 */
export async function quoteWarnings(
  deps: ResolutionCheckDeps,
  items: QuotedItem[],
  quoted: readonly { id: string }[],
): Promise<(ResolutionWarning & { itemId: string })[] | undefined> {
  if (!items.some((item) => item.assets.some((asset) => asset.url !== undefined))) return undefined
  const checked = items.flatMap((item, index): CheckedItem[] => {
    const matched = matchPreviewItem(deps.catalogue, {
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
  const found = await resolutionWarnings(deps, checked, (item, asset) => `items[${item}].assets[${asset}]`)
  return found.map(({ itemIndex, warning }) => {
    const { code, ...rest } = warning
    return { code, itemId: quoted[itemIndex]?.id ?? '', ...rest }
  })
}
