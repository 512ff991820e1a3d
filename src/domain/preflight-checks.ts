// The preflight's judgement (docs/print-files.md, "Preflight"; codes in docs/errors.md, "Preflight checks"): what
// the inspector measured in a file (FileInspection) against what the print area needs (PreflightTarget), as one
// PreflightReport. Pure: no I/O, bounded work (a check per code, not per page, so a 2,000-page book gives a short
// report).
//
// The severity rule is the project's first promise: an order a Prodigi client sends today and that can be delivered
// keeps its outcome. So a check is an `error` only when the file cannot be printed as ordered (unreadable,
// encrypted, the wrong kind of file, a page count the product cannot bind or that differs from the ordered one, an
// image beyond the pixel limit, pages whose shape no scaling can fix); everything a lab can still print is a
// `warning`.

import type { PixelSize, Product } from './catalogue.types.ts'
import { PREFLIGHT_LIMITS } from './limits.ts'
import {
  CONVERT_TO_LAB_COLOUR,
  type FileInspection,
  type PdfPageMeasures,
  type PreflightCheck,
  type PreflightCode,
  type PreflightFix,
  type PreflightReport,
  type PreflightSeverity,
  type PreflightTarget,
} from './preflight.ts'
import { PRINT_AREA_DPI, shouldRotate } from './print-geometry.ts'
import { type BookSpec, labColourText, type SizeMm } from './print-specs.ts'
import { DEFAULT_MINIMUM_DPI } from './resolution.ts'

/** A page within this of the book's trim (or trim + bleed), on each edge length, is the right size: 1 mm. */
export const PAGE_SIZE_TOLERANCE_MM = 1
/**
 * Pages whose aspect ratio differs from the trim's by more than this share cannot be scaled onto it without
 * cropping or white bands: 2 % (an A4 page on a US Letter book is 6 % off; a 3 mm bleed on a 210 mm page is 3 %).
 */
export const ASPECT_RATIO_TOLERANCE = 0.02
/** Images: `validSkus` lists a print area when the image fills it losing at most this share of an edge: 2 %. */
export const FILL_TOLERANCE = 0.02
/** Below this share of the minimum dpi an image is ImageTooSmall rather than LowResolutionImage: it pixelates. */
export const TOO_SMALL_DPI_SHARE = 0.5
/** At most this many fonts (or spot colours) are named one by one; the rest are counted. */
export const MAX_NAMED_FINDINGS = 10
/** The most SKUs `validSkus` lists (the catalogue's first, sorted), so the report stays small. */
export const MAX_VALID_SKUS = 200

const MM_PER_PT = 25.4 / 72

/** The safe fixes printroute makes on its own copy of a PDF (adapters/file-inspector.ts applies them). */
export const PDF_BOX_FIX_CODES = ['SetTrimBox', 'SetBleedBox'] as const

type Box = readonly [number, number, number, number]

function check(
  code: PreflightCode,
  severity: PreflightSeverity,
  message: string,
  measured: string,
  required: string,
  page?: number,
): PreflightCheck {
  return page === undefined
    ? { code, severity, message, measured, required }
    : { code, severity, message, measured, required, page }
}

const mm = (value: number) => `${value.toFixed(1)}`
const sizeText = (size: SizeMm) => `${mm(size.width)} x ${mm(size.height)} mm`
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`

function boxSizeMm(box: Box): SizeMm {
  return { width: Math.abs(box[2] - box[0]) * MM_PER_PT, height: Math.abs(box[3] - box[1]) * MM_PER_PT }
}

function sameSize(a: SizeMm, b: SizeMm, tolerance = PAGE_SIZE_TOLERANCE_MM): boolean {
  return Math.abs(a.width - b.width) <= tolerance && Math.abs(a.height - b.height) <= tolerance
}

function withBleed(size: SizeMm, bleedMm: number): SizeMm {
  return { width: size.width + 2 * bleedMm, height: size.height + 2 * bleedMm }
}

/** How far apart two aspect ratios are, as a share (0 = the same shape). */
function aspectDifference(a: SizeMm, b: SizeMm): number {
  const ratio = a.width / a.height / (b.width / b.height)
  return Math.max(ratio, 1 / ratio) - 1
}

/** The page's finished size: its TrimBox, else its MediaBox less the bleed when the MediaBox is trim + bleed. */
function pageTrimMm(page: PdfPageMeasures, book: BookSpec): SizeMm {
  if (page.trimBox) return boxSizeMm(page.trimBox)
  const media = boxSizeMm(page.mediaBox)
  if (book.bleedMm > 0 && sameSize(media, withBleed(book.trimMm, book.bleedMm))) return book.trimMm
  return media
}

/** What kind of file the print area takes (see PreflightTarget.fileKind). */
function expectedKind(target: PreflightTarget): 'pdf' | 'image' | null {
  if (target.fileKind) return target.fileKind
  if (target.book) return 'pdf'
  if (target.spec) return 'image'
  return null
}

/** Judges one inspected file for one print area; `catalogue` (when given) fills `validSkus`. */
export function preflightReport(
  inspection: FileInspection,
  target: PreflightTarget,
  catalogue?: readonly Product[],
): PreflightReport {
  const kind = expectedKind(target)
  if (inspection.kind === 'unreadable') {
    return report(null, [
      check(
        'Unreadable',
        'error',
        `The file cannot be read: ${inspection.reason}.`,
        inspection.reason,
        'a readable PDF or image',
      ),
    ])
  }
  if (inspection.kind === 'not-supported') {
    const wanted = kind === 'pdf' ? 'a PDF' : 'an image (JPEG, PNG, TIFF, WebP)'
    const code = kind === 'pdf' ? 'NotAPdf' : 'Unreadable'
    return report(null, [
      check(code, 'error', `The file is ${inspection.contentType}, not ${wanted}.`, inspection.contentType, wanted),
    ])
  }
  if (inspection.kind === 'pdf') {
    if (kind === 'image') {
      return report(inspection.pageCount, [
        check(
          'NotAPdf',
          'error',
          `Print area ${target.printArea} takes an image, and the file is a PDF.`,
          'PDF',
          'an image',
        ),
      ])
    }
    const checks = pdfChecks(inspection, target)
    const fixes = inspection.encrypted ? [] : pdfBoxFixes(inspection.pages, target.book)
    const skus = catalogue && !inspection.encrypted ? pdfValidSkus(inspection, catalogue) : []
    return { pageCount: inspection.pageCount, checks, fixes, validSkus: skus }
  }
  if (kind === 'pdf') {
    return report(null, [
      check(
        'NotAPdf',
        'error',
        `Print area ${target.printArea} takes a PDF, and the file is a ${inspection.format} image.`,
        inspection.format,
        'a PDF',
      ),
    ])
  }
  const checks = imageChecks(inspection, target)
  const skus = catalogue && !inspection.tooLarge ? imageValidSkus(inspection, catalogue) : []
  return { pageCount: null, checks, fixes: imageColourNotes(inspection, target), validSkus: skus }
}

function report(pageCount: number | null, checks: PreflightCheck[]): PreflightReport {
  return { pageCount, checks, fixes: [], validSkus: [] }
}

type PdfInspection = Extract<FileInspection, { kind: 'pdf' }>
type ImageInspection = Extract<FileInspection, { kind: 'image' }>

function pdfChecks(inspection: PdfInspection, target: PreflightTarget): PreflightCheck[] {
  if (inspection.encrypted) {
    return [
      check('Encrypted', 'error', 'The PDF is encrypted; labs need an unprotected file.', 'encrypted', 'no encryption'),
    ]
  }
  const checks = pageCountChecks(inspection, target)
  if (inspection.truncated && !target.book) {
    checks.push(
      check(
        'Unreadable',
        'error',
        `The PDF has ${inspection.pageCount} pages, more than printroute reads.`,
        plural(inspection.pageCount, 'page'),
        `at most ${inspection.pages.length} pages`,
      ),
    )
  }
  if (target.book) checks.push(...pageSizeChecks(inspection.pages, target.book))
  // Mixed sizes need no specification: page 1 is the reference.
  const mixed = mixedSizes(inspection.pages)
  if (mixed) checks.push(mixed)
  checks.push(...contentChecks(inspection.pages, target))
  return checks
}

function pageCountChecks(inspection: PdfInspection, target: PreflightTarget): PreflightCheck[] {
  const checks: PreflightCheck[] = []
  const count = inspection.pageCount
  const measured = plural(count, 'page')
  if (count === 0) {
    checks.push(check('PageCountOutOfRange', 'error', 'The PDF has no pages.', measured, 'at least 1 page'))
    return checks
  }
  if (target.pageCount !== undefined && target.pageCount !== count) {
    checks.push(
      check(
        'PageCountOutOfRange',
        'error',
        `The PDF has ${measured}, and the item's pageCount says ${target.pageCount}.`,
        measured,
        `${plural(target.pageCount, 'page')}, as the item's pageCount says`,
      ),
    )
  }
  const book = target.book
  if (!book) return checks
  if (count < book.minPages || count > book.maxPages) {
    const range = `${book.minPages} to ${book.maxPages} pages`
    checks.push(
      check('PageCountOutOfRange', 'error', `The PDF has ${measured}; ${target.sku} binds ${range}.`, measured, range),
    )
  } else if (book.pageMultiple > 1 && count % book.pageMultiple !== 0) {
    const padded = Math.ceil(count / book.pageMultiple) * book.pageMultiple
    checks.push(
      check(
        'PageCountNotMultiple',
        'warning',
        `The PDF has ${measured}, not a multiple of ${book.pageMultiple}: the lab adds ${padded - count} blank at the end.`,
        measured,
        `a multiple of ${book.pageMultiple} pages`,
      ),
    )
  }
  return checks
}

/** PageSizeMismatch (per worst page), MixedPageSizes and MissingBleed, each at most once per file. */
function pageSizeChecks(pages: readonly PdfPageMeasures[], book: BookSpec): PreflightCheck[] {
  const checks: PreflightCheck[] = []
  const full = withBleed(book.trimMm, book.bleedMm)
  const required =
    book.bleedMm > 0
      ? `${sizeText(book.trimMm)} trim, ${sizeText(full)} with ${mm(book.bleedMm)} mm bleed`
      : sizeText(book.trimMm)
  let mismatch: { page: PdfPageMeasures; size: SizeMm; off: number } | null = null
  let mismatched = 0
  let missingBleed: PdfPageMeasures | null = null
  let missingBleedCount = 0
  for (const page of pages) {
    const media = boxSizeMm(page.mediaBox)
    const trim = pageTrimMm(page, book)
    const fits = sameSize(trim, book.trimMm) || sameSize(media, full)
    if (!fits) {
      mismatched++
      const off = Math.min(aspectDifference(trim, book.trimMm), aspectDifference(media, full))
      if (!mismatch || off > mismatch.off) mismatch = { page, size: media, off }
    } else if (book.bleedMm > 0 && !page.bleedBox && sameSize(media, book.trimMm)) {
      missingBleedCount++
      missingBleed ??= page
    }
  }
  if (mismatch) {
    const scalable = mismatch.off <= ASPECT_RATIO_TOLERANCE
    const others = mismatched > 1 ? ` (${plural(mismatched, 'page')} differ)` : ''
    checks.push(
      check(
        // A warning even when no scaling fixes the shape: such a book is still printed today (fitted with white
        // bands or cropped), and a check never turns an order that is delivered today into a held one.
        'PageSizeMismatch',
        'warning',
        scalable
          ? `Page ${mismatch.page.page} is ${sizeText(mismatch.size)}${others}; the lab scales it to the book's size.`
          : `Page ${mismatch.page.page} is ${sizeText(mismatch.size)}${others}, a shape ${(mismatch.off * 100).toFixed(1)} % off the book's: the lab fits it with white bands or crops it.`,
        sizeText(mismatch.size),
        required,
        mismatch.page.page,
      ),
    )
  }
  if (missingBleed) {
    const measured = sizeText(boxSizeMm(missingBleed.mediaBox))
    checks.push(
      check(
        'MissingBleed',
        'warning',
        `${plural(missingBleedCount, 'page')} (first: page ${missingBleed.page}) end at the trim with no ${mm(book.bleedMm)} mm bleed; a white edge may show after trimming.`,
        `${measured}, no bleed`,
        sizeText(full),
        missingBleed.page,
      ),
    )
  }
  return checks
}

function mixedSizes(pages: readonly PdfPageMeasures[]): PreflightCheck | null {
  const first = pages[0]
  if (!first) return null
  const firstSize = boxSizeMm(first.mediaBox)
  let count = 0
  let firstOther: PdfPageMeasures | null = null
  for (const page of pages) {
    if (sameSize(boxSizeMm(page.mediaBox), firstSize)) continue
    count++
    firstOther ??= page
  }
  if (!firstOther) return null
  const otherSize = sizeText(boxSizeMm(firstOther.mediaBox))
  return check(
    'MixedPageSizes',
    'warning',
    `${plural(count, 'page')} (first: page ${firstOther.page}, ${otherSize}) differ from page 1 (${sizeText(firstSize)}); the lab scales each to the product's size.`,
    otherSize,
    `every page ${sizeText(firstSize)}`,
    firstOther.page,
  )
}

/** DeviceRGB, CalRGB, ICCBased(RGB), and an Indexed or Separation space over RGB as the inspector names it. */
const RGB_SPACES = /RGB/

/**
 * Who prints the file in CMYK, for RgbInCmykJob and the conversion note: the chosen lab when `colour` is given
 * (null when it prints sRGB), else the labs able to make the product that print CMYK (null when none does).
 * `who` names them ("the lab", "lab uk-1", "labs uk-1 and de-2"); `colours` says each distinct colour with its labs.
 */
export function cmykPrintersOf(
  target: PreflightTarget,
): { who: string; several: boolean; colours: string; required: string } | null {
  if (target.colour) {
    if (target.colour.space !== 'cmyk') return null
    const text = labColourText(target.colour)
    return { who: 'the lab', several: false, colours: text, required: text }
  }
  const cmyk = (target.makingLabs ?? []).filter((lab) => lab.colour.space === 'cmyk')
  if (cmyk.length === 0) return null
  const labs = [...new Set(cmyk.map((lab) => lab.lab))].sort()
  const byColour = new Map<string, string[]>()
  for (const lab of cmyk) {
    const text = labColourText(lab.colour)
    const list = byColour.get(text) ?? []
    if (!list.includes(lab.lab)) list.push(lab.lab)
    byColour.set(text, list)
  }
  const colours = [...byColour]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([text, list]) => `${list.sort().join(', ')}: ${text}`)
    .join('; ')
  const who = labs.length === 1 ? `lab ${labs[0]}` : `labs ${labs.slice(0, -1).join(', ')} and ${labs.at(-1)}`
  return { who, several: labs.length > 1, colours, required: [...byColour.keys()].sort().join(' or ') }
}

/** FontNotEmbedded, LowResolutionImage, SpotColour and RgbInCmykJob over every page. */
function contentChecks(pages: readonly PdfPageMeasures[], target: PreflightTarget): PreflightCheck[] {
  const checks: PreflightCheck[] = []
  const minDpi = target.spec?.minDpi ?? DEFAULT_MINIMUM_DPI
  const fonts = new Map<string, number>()
  const spots = new Map<string, number>()
  let lowest: { dpi: number; page: number; px: string } | null = null
  let lowCount = 0
  let rgbPage: number | null = null
  for (const page of pages) {
    for (const font of page.fonts) if (!font.embedded && !fonts.has(font.name)) fonts.set(font.name, page.page)
    for (const spot of page.spotColours) if (!spots.has(spot)) spots.set(spot, page.page)
    for (const image of page.images) {
      const dpi = drawnDpi(image)
      if (dpi === null || dpi >= minDpi) continue
      lowCount++
      if (!lowest || dpi < lowest.dpi) lowest = { dpi, page: page.page, px: `${image.widthPx} x ${image.heightPx} px` }
    }
    const rgb =
      page.colourSpaces.some((space) => RGB_SPACES.test(space)) ||
      page.images.some((image) => RGB_SPACES.test(image.colourSpace))
    if (rgb && rgbPage === null) rgbPage = page.page
  }
  for (const [name, page] of [...fonts].slice(0, MAX_NAMED_FINDINGS)) {
    checks.push(
      check(
        'FontNotEmbedded',
        'warning',
        `Font ${name} is not embedded; the lab's printer substitutes one, which may change the text's look.`,
        `${name}, not embedded`,
        'every font embedded',
        page,
      ),
    )
  }
  if (lowest) {
    checks.push(
      check(
        'LowResolutionImage',
        'warning',
        `${plural(lowCount, 'image')} print below ${minDpi} dpi (lowest: a ${lowest.px} image at ${Math.floor(lowest.dpi)} dpi on page ${lowest.page}); they may look soft.`,
        `${Math.floor(lowest.dpi)} dpi`,
        `at least ${minDpi} dpi`,
        lowest.page,
      ),
    )
  }
  if (spots.size > 0) {
    const names = [...spots.keys()].slice(0, MAX_NAMED_FINDINGS)
    const [firstPage] = spots.values()
    checks.push(
      check(
        'SpotColour',
        'warning',
        `The PDF uses spot colours (${names.join(', ')}); the lab prints them as process colours.`,
        `Separation/DeviceN (${names.join(', ')})`,
        'process colours only',
        firstPage,
      ),
    )
  }
  const cmyk = rgbPage === null ? null : cmykPrintersOf(target)
  if (rgbPage !== null && cmyk) {
    const making = target.colour ? '' : ` able to make this product ${cmyk.several ? 'print' : 'prints'}`
    const conversion = target.convertsPdfColour
      ? "printroute converts the PDF to the lab's CMYK when it makes the print file"
      : 'a PDF goes to the lab unconverted, its RIP converts it'
    checks.push(
      check(
        'RgbInCmykJob',
        'warning',
        `Page ${rgbPage} has RGB content and ${cmyk.who}${making || ' prints'} CMYK (${cmyk.colours}); ${conversion}, and bright colours may dull.`,
        'RGB',
        cmyk.required,
        rgbPage,
      ),
    )
  }
  return checks
}

/** Effective dpi of an image as drawn: pixels per drawn inch, the smaller axis; null when drawn with no size. */
function drawnDpi(image: PdfPageMeasures['images'][number]): number | null {
  if (image.drawnWidthPt <= 0 || image.drawnHeightPt <= 0) return null
  return Math.min(image.widthPx / (image.drawnWidthPt / 72), image.heightPx / (image.drawnHeightPt / 72))
}

/** The print size of an image print area in inches: the spec's trim + bleed, else its pixels at 300 dpi. */
function printInches(target: { spec: PreflightTarget['spec']; pixelSize: PixelSize }): {
  width: number
  height: number
} {
  if (target.spec) {
    const size = withBleed(target.spec.trimMm, target.spec.bleedMm)
    return { width: size.width / 25.4, height: size.height / 25.4 }
  }
  return {
    width: target.pixelSize.horizontalResolution / PRINT_AREA_DPI,
    height: target.pixelSize.verticalResolution / PRINT_AREA_DPI,
  }
}

/** Dpi of an image filling an area (turned a quarter when that suits it, as the renderer does). */
function fillDpi(image: { widthPx: number; heightPx: number }, inches: { width: number; height: number }): number {
  const turn = shouldRotate(image.widthPx, image.heightPx, inches.width, inches.height)
  const [w, h] = turn ? [image.heightPx, image.widthPx] : [image.widthPx, image.heightPx]
  // Filling scales the image until it covers both edges and crops the rest: the tighter axis decides.
  return Math.min(w / inches.width, h / inches.height)
}

function imageChecks(image: ImageInspection, target: PreflightTarget): PreflightCheck[] {
  const pixels = `${image.widthPx} x ${image.heightPx} px`
  if (image.tooLarge) {
    return [
      check(
        'ImageTooLarge',
        'error',
        `The image is ${pixels}, more pixels than printroute decodes.`,
        pixels,
        `at most ${PREFLIGHT_LIMITS.maxPixels / 1_000_000} megapixels`,
      ),
    ]
  }
  const checks: PreflightCheck[] = []
  const minDpi = target.spec?.minDpi ?? DEFAULT_MINIMUM_DPI
  const dpi = fillDpi(image, printInches(target))
  const measured = `${Math.floor(dpi)} dpi (${pixels})`
  if (dpi < minDpi * TOO_SMALL_DPI_SHARE) {
    checks.push(
      check(
        'ImageTooSmall',
        'warning',
        `The ${pixels} image prints at ${Math.floor(dpi)} dpi on print area ${target.printArea}, under half the ${minDpi} dpi it needs: it will look pixelated.`,
        measured,
        `at least ${minDpi} dpi`,
      ),
    )
  } else if (dpi < minDpi) {
    checks.push(
      check(
        'LowResolutionImage',
        'warning',
        `The ${pixels} image prints at ${Math.floor(dpi)} dpi on print area ${target.printArea}, below the ${minDpi} dpi it needs: it may look soft.`,
        measured,
        `at least ${minDpi} dpi`,
      ),
    )
  }
  return checks
}

/**
 * Images are converted by printroute's render, so RGB for a CMYK printer is no finding but a note in `fixes`
 * (ConvertToLabColour): what printroute will do to its print file when such a lab makes it. None for a CMYK image,
 * for one beyond the pixel limit, or when no lab that could make the product prints CMYK.
 */
export function imageColourNotes(image: ImageInspection, target: PreflightTarget): PreflightFix[] {
  if (image.tooLarge || image.colourSpace === 'cmyk') return []
  const cmyk = cmykPrintersOf(target)
  if (!cmyk) return []
  const when = target.colour ? '' : ` when ${cmyk.several ? 'one of ' : ''}${cmyk.who} makes it`
  return [
    {
      code: CONVERT_TO_LAB_COLOUR,
      message: `The image is ${image.colourSpace.toUpperCase()}; printroute converts its print file to CMYK${when} (${cmyk.colours}), and bright colours may dull.`,
    },
  ]
}

/** The safe box fixes: pages with neither TrimBox nor BleedBox whose MediaBox is exactly trim + bleed. */
export function pdfBoxFixes(pages: readonly PdfPageMeasures[], book: BookSpec | null): PreflightFix[] {
  if (!book || book.bleedMm <= 0 || pages.length === 0) return []
  const full = withBleed(book.trimMm, book.bleedMm)
  const fixable = pages.filter((page) => !page.trimBox && !page.bleedBox && sameSize(boxSizeMm(page.mediaBox), full))
  if (fixable.length === 0) return []
  const which = fixable.length === pages.length ? 'every page' : plural(fixable.length, 'page')
  return [
    {
      code: 'SetTrimBox',
      message: `Set the TrimBox of ${which} to ${sizeText(book.trimMm)}, the page less its ${mm(book.bleedMm)} mm bleed.`,
    },
    { code: 'SetBleedBox', message: `Set the BleedBox of ${which} to the page, ${sizeText(full)}.` },
  ]
}

/** Whether a fix is one of the box fixes (`fixPdfBoxes` applies them; see PDF_BOX_FIX_CODES). */
export function isPdfBoxFix(fix: PreflightFix): boolean {
  return (PDF_BOX_FIX_CODES as readonly string[]).includes(fix.code)
}

/**
 * An order asset's fixes once printroute's copy was given the boxes: each box fix says it was done and on how
 * many pages; `pagesChanged` null when the fix failed or changed nothing, which drops the box fixes (the field
 * lists what printroute did, and the file goes to the lab as it came).
 */
export function appliedPdfBoxFixes(fixes: readonly PreflightFix[], pagesChanged: number | null): PreflightFix[] {
  if (pagesChanged === null || pagesChanged <= 0) return fixes.filter((fix) => !isPdfBoxFix(fix))
  return fixes.map((fix) =>
    isPdfBoxFix(fix)
      ? {
          code: fix.code,
          message: `${fix.message.replace(/\.$/, '')}: done on printroute's copy, ${plural(pagesChanged, 'page')} changed.`,
        }
      : fix,
  )
}

function pdfValidSkus(inspection: PdfInspection, catalogue: readonly Product[]): string[] {
  const first = inspection.pages[0]
  if (!first || inspection.truncated) return []
  const skus = new Set<string>()
  for (const product of catalogue) {
    const book = product.book
    if (!book || inspection.pageCount < book.minPages || inspection.pageCount > book.maxPages) continue
    const media = boxSizeMm(first.mediaBox)
    if (sameSize(pageTrimMm(first, book), book.trimMm) || sameSize(media, withBleed(book.trimMm, book.bleedMm))) {
      skus.add(product.sku)
    }
  }
  return [...skus].sort().slice(0, MAX_VALID_SKUS)
}

function imageValidSkus(image: ImageInspection, catalogue: readonly Product[]): string[] {
  const skus = new Set<string>()
  for (const product of catalogue) {
    if (product.book) continue
    const fits = product.variants.some((variant) =>
      Object.entries(variant.printAreaSpecs).some(([, spec]) => {
        const inches = printInches({ spec, pixelSize: { horizontalResolution: 1, verticalResolution: 1 } })
        const turned = shouldRotate(image.widthPx, image.heightPx, inches.width, inches.height)
        const imageSize = turned
          ? { width: image.heightPx, height: image.widthPx }
          : { width: image.widthPx, height: image.heightPx }
        return aspectDifference(imageSize, inches) <= FILL_TOLERANCE && fillDpi(image, inches) >= spec.minDpi
      }),
    )
    if (fits) skus.add(product.sku)
  }
  return [...skus].sort().slice(0, MAX_VALID_SKUS)
}
