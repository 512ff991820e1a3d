import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import type { Product } from './catalogue.types.ts'
import {
  CONVERT_TO_LAB_COLOUR,
  type FileInspection,
  type PdfPageMeasures,
  PREFLIGHT_CODES,
  type PreflightCheck,
  type PreflightTarget,
  preflightStatusOf,
} from './preflight.ts'
import { ASPECT_RATIO_TOLERANCE, appliedPdfBoxFixes, pdfBoxFixes, preflightReport } from './preflight-checks.ts'
import type { BookSpec, PrintAreaSpec } from './print-specs.ts'

tier('pure')

// The checks judged on hand-made measures; src/adapters/file-inspector.test.ts produces every code from real files.

const PT = 72 / 25.4
const BOOK: BookSpec = {
  trimMm: { width: 210, height: 210 },
  bleedMm: 3,
  safeMm: 5,
  minPages: 20,
  maxPages: 200,
  pageMultiple: 4,
}
const CANVAS: PrintAreaSpec = {
  trimMm: { width: 254, height: 254 },
  bleedMm: 0,
  safeMm: 0,
  wrapMm: null,
  minDpi: 150,
  recommendedDpi: 300,
}
const CMYK = { space: 'cmyk', profile: 'coated', intent: 'relative', blackPointCompensation: true } as const

const bookTarget = (extra: Partial<PreflightTarget> = {}): PreflightTarget => ({
  sku: 'BOOK-21X21',
  printArea: 'default',
  spec: null,
  book: BOOK,
  colour: null,
  pixelSize: { horizontalResolution: 2480, verticalResolution: 2480 },
  ...extra,
})
const canvasTarget = (extra: Partial<PreflightTarget> = {}): PreflightTarget => ({
  sku: 'CAN-10X10',
  printArea: 'default',
  spec: CANVAS,
  book: null,
  colour: null,
  pixelSize: { horizontalResolution: 3000, verticalResolution: 3000 },
  ...extra,
})

const box = (widthMm: number, heightMm: number) => [0, 0, widthMm * PT, heightMm * PT] as const
function page(n: number, measures: Partial<PdfPageMeasures> = {}): PdfPageMeasures {
  return {
    page: n,
    mediaBox: box(216, 216),
    trimBox: null,
    bleedBox: null,
    images: [],
    fonts: [],
    spotColours: [],
    colourSpaces: ['DeviceCMYK'],
    ...measures,
  }
}
function pdf(pages: PdfPageMeasures[], extra: { pageCount?: number; truncated?: boolean } = {}): FileInspection {
  return {
    kind: 'pdf',
    encrypted: false,
    pageCount: extra.pageCount ?? pages.length,
    pages,
    truncated: extra.truncated ?? false,
  }
}
const pages = (count: number, measures: Partial<PdfPageMeasures> = {}) =>
  Array.from({ length: count }, (_, i) => page(i + 1, measures))
function image(widthPx: number, heightPx: number, extra: Partial<Extract<FileInspection, { kind: 'image' }>> = {}) {
  return {
    kind: 'image',
    format: 'jpeg',
    widthPx,
    heightPx,
    colourSpace: 'srgb',
    hasProfile: false,
    tooLarge: false,
    ...extra,
  } as const
}

function only(checks: readonly PreflightCheck[], code: PreflightCheck['code']): PreflightCheck {
  const found = checks.filter((c) => c.code === code)
  assert.equal(found.length, 1, `expected one ${code} in ${JSON.stringify(checks)}`)
  const [first] = found
  assert.ok(first)
  assert.ok(first.message.length > 0 && first.measured.length > 0 && first.required.length > 0)
  assert.match(first.message, /^[A-Z].*[.:]|\.$/)
  return first
}

test('a book PDF of the right size with bleed, embedded fonts and CMYK content passes', () => {
  const report = preflightReport(pdf(pages(24)), bookTarget({ colour: CMYK }))
  assert.deepEqual(report.checks, [])
  assert.equal(report.pageCount, 24)
  assert.equal(preflightStatusOf(report.checks), 'Passed')
})

test('unreadable, not supported and encrypted files are errors', () => {
  const unreadable = preflightReport({ kind: 'unreadable', reason: 'took longer than 60 s' }, bookTarget())
  assert.equal(only(unreadable.checks, 'Unreadable').severity, 'error')
  assert.match(only(unreadable.checks, 'Unreadable').message, /took longer than 60 s/)
  const svg = preflightReport({ kind: 'not-supported', contentType: 'svg' }, bookTarget())
  assert.equal(only(svg.checks, 'NotAPdf').severity, 'error')
  const svgOnCanvas = preflightReport({ kind: 'not-supported', contentType: 'svg' }, canvasTarget())
  assert.equal(only(svgOnCanvas.checks, 'Unreadable').severity, 'error')
  const encrypted = preflightReport(
    { kind: 'pdf', encrypted: true, pageCount: 24, pages: [], truncated: false },
    bookTarget(),
  )
  assert.deepEqual(
    encrypted.checks.map((c) => [c.code, c.severity]),
    [['Encrypted', 'error']],
  )
  assert.equal(preflightStatusOf(encrypted.checks), 'Failed')
})

test('NotAPdf: an image for a book, and a PDF for an image print area', () => {
  assert.equal(only(preflightReport(image(3000, 3000), bookTarget()).checks, 'NotAPdf').severity, 'error')
  assert.equal(only(preflightReport(pdf(pages(1)), canvasTarget()).checks, 'NotAPdf').severity, 'error')
  // A print area with neither specification takes either, as before preflight.
  const neither = { spec: null, book: null }
  assert.deepEqual(preflightReport(pdf(pages(1)), canvasTarget(neither)).checks, [])
  assert.deepEqual(preflightReport(image(3000, 3000), bookTarget(neither)).checks, [])
})

test('page counts: out of range and unlike the ordered count are errors, not a multiple is a warning', () => {
  const few = only(preflightReport(pdf(pages(8)), bookTarget()).checks, 'PageCountOutOfRange')
  assert.deepEqual([few.severity, few.measured, few.required], ['error', '8 pages', '20 to 200 pages'])
  const ordered = only(preflightReport(pdf(pages(24)), bookTarget({ pageCount: 28 })).checks, 'PageCountOutOfRange')
  assert.equal(ordered.severity, 'error')
  const odd = only(preflightReport(pdf(pages(22)), bookTarget()).checks, 'PageCountNotMultiple')
  assert.equal(odd.severity, 'warning')
  assert.match(odd.message, /adds 2 blank/)
  const none = only(preflightReport(pdf([]), bookTarget()).checks, 'PageCountOutOfRange')
  assert.equal(none.severity, 'error')
})

test('page sizes: trim-sized pages with a TrimBox pass; a scalable size is a warning, a wrong shape an error', () => {
  const withBoxes = page(1, {
    mediaBox: box(216, 216),
    trimBox: [3 * PT, 3 * PT, 213 * PT, 213 * PT],
    bleedBox: box(216, 216),
  })
  assert.deepEqual(preflightReport(pdf(Array(20).fill(withBoxes)), bookTarget()).checks, [])

  const bigger = preflightReport(pdf(pages(20, { mediaBox: box(300, 300) })), bookTarget())
  const scaled = only(bigger.checks, 'PageSizeMismatch')
  assert.deepEqual([scaled.severity, scaled.page, scaled.measured], ['warning', 1, '300.0 x 300.0 mm'])
  assert.equal(preflightStatusOf(bigger.checks), 'PassedWithWarnings')

  const a4 = only(preflightReport(pdf(pages(20, { mediaBox: box(210, 297) })), bookTarget()).checks, 'PageSizeMismatch')
  // An A4 page for a square book is printed today (fitted or cropped): a warning that says so, never an error.
  assert.equal(a4.severity, 'warning')
  assert.match(a4.message, /white bands or crops it/)
  assert.match(a4.required, /210.0 x 210.0 mm trim, 216.0 x 216.0 mm with 3.0 mm bleed/)
  // Just within the aspect tolerance the lab scales it.
  const slightly = 210 * (1 + ASPECT_RATIO_TOLERANCE * 0.9)
  const near = only(
    preflightReport(pdf(pages(20, { mediaBox: box(slightly, 210) })), bookTarget()).checks,
    'PageSizeMismatch',
  )
  assert.equal(near.severity, 'warning')
  assert.match(near.message, /scales it/)
})

test('mixed page sizes and missing bleed are warnings, each reported once for the file', () => {
  const mixed = [...pages(19), page(20, { mediaBox: box(220, 220) })]
  const report = preflightReport(pdf(mixed), bookTarget())
  const check = only(report.checks, 'MixedPageSizes')
  assert.deepEqual([check.severity, check.page], ['warning', 20])
  const trimOnly = preflightReport(pdf(pages(20, { mediaBox: box(210, 210) })), bookTarget())
  const bleed = only(trimOnly.checks, 'MissingBleed')
  assert.deepEqual([bleed.severity, bleed.page], ['warning', 1])
  assert.match(bleed.message, /^20 pages/)
  assert.equal(trimOnly.checks.length, 1)
  // A product without bleed needs none.
  const noBleed = preflightReport(
    pdf(pages(20, { mediaBox: box(210, 210) })),
    bookTarget({ book: { ...BOOK, bleedMm: 0 } }),
  )
  assert.deepEqual(noBleed.checks, [])
})

test('fonts not embedded, low resolution, spot colours and RGB in a CMYK job are warnings', () => {
  const measures = page(3, {
    fonts: [
      { name: 'Helvetica', embedded: false },
      { name: 'Garamond', embedded: true },
    ],
    images: [
      { widthPx: 600, heightPx: 600, drawnWidthPt: 576, drawnHeightPt: 576, colourSpace: 'DeviceRGB' },
      { widthPx: 3000, heightPx: 3000, drawnWidthPt: 576, drawnHeightPt: 576, colourSpace: 'DeviceCMYK' },
    ],
    spotColours: ['PANTONE 185 C'],
    colourSpaces: ['Separation(PANTONE 185 C)', 'DeviceRGB'],
  })
  const report = preflightReport(pdf([...pages(2), measures, ...pages(17)]), bookTarget({ colour: CMYK }))
  assert.ok(report.checks.every((c) => c.severity === 'warning'))
  assert.equal(only(report.checks, 'FontNotEmbedded').measured, 'Helvetica, not embedded')
  const low = only(report.checks, 'LowResolutionImage')
  assert.deepEqual([low.measured, low.required, low.page], ['75 dpi', 'at least 150 dpi', 3])
  assert.match(only(report.checks, 'SpotColour').measured, /PANTONE 185 C/)
  assert.equal(only(report.checks, 'RgbInCmykJob').page, 3)
  // The same file for an sRGB lab: no RgbInCmykJob.
  const srgb = preflightReport(pdf([...pages(2), measures, ...pages(17)]), bookTarget())
  assert.ok(!srgb.checks.some((c) => c.code === 'RgbInCmykJob'))
})

test('images: low resolution and too small are warnings, beyond the pixel limit an error', () => {
  // A 10 x 10 in canvas at 150 dpi needs 1500 px; 1200 px gives 120 dpi, 600 px 60 dpi.
  assert.deepEqual(preflightReport(image(1500, 1500), canvasTarget()).checks, [])
  const low = only(preflightReport(image(1200, 1200), canvasTarget()).checks, 'LowResolutionImage')
  assert.deepEqual([low.severity, low.measured], ['warning', '120 dpi (1200 x 1200 px)'])
  const tiny = only(preflightReport(image(600, 600), canvasTarget()).checks, 'ImageTooSmall')
  assert.equal(tiny.severity, 'warning')
  const large = only(
    preflightReport(image(100_000, 100_000, { tooLarge: true }), canvasTarget()).checks,
    'ImageTooLarge',
  )
  assert.equal(large.severity, 'error')
  // Without a physical spec, the print area's pixels at 300 dpi give the print size (10 x 10 in here).
  const noSpec = only(preflightReport(image(1200, 1200), canvasTarget({ spec: null })).checks, 'LowResolutionImage')
  assert.equal(noSpec.measured, '120 dpi (1200 x 1200 px)')
  // A landscape image on a portrait area is turned, as the renderer does.
  const portrait = { ...CANVAS, trimMm: { width: 254, height: 508 } }
  assert.deepEqual(preflightReport(image(3000, 1500), canvasTarget({ spec: portrait })).checks, [])
})

test('images: RGB for a CMYK lab is a conversion note, not a finding; a CMYK image gets none', () => {
  // printroute's render converts images, so the file keeps its status and the report says what will be done.
  const rgb = preflightReport(image(3000, 3000), canvasTarget({ colour: CMYK }))
  assert.deepEqual(rgb.checks, [])
  assert.equal(preflightStatusOf(rgb.checks), 'Passed')
  assert.deepEqual(
    rgb.fixes.map((fix) => fix.code),
    [CONVERT_TO_LAB_COLOUR],
  )
  assert.match(rgb.fixes[0]?.message ?? '', /SRGB; printroute converts its print file to CMYK \(CMYK coated, relative/)
  const cmyk = preflightReport(image(3000, 3000, { colourSpace: 'cmyk' }), canvasTarget({ colour: CMYK }))
  assert.deepEqual([cmyk.checks, cmyk.fixes], [[], []])
  assert.deepEqual(preflightReport(image(3000, 3000), canvasTarget()).fixes, [])
})

const SRGB = { space: 'srgb', profile: null, intent: 'perceptual', blackPointCompensation: false } as const
const RGB_PDF = () => pdf(pages(20).map((p) => (p.page === 2 ? { ...p, colourSpaces: ['DeviceRGB'] } : p)))
const ICC_RGB_PDF = () =>
  pdf(
    pages(20).map((p) =>
      p.page === 5
        ? {
            ...p,
            images: [
              { widthPx: 3000, heightPx: 3000, drawnWidthPt: 500, drawnHeightPt: 500, colourSpace: 'ICCBased(RGB)' },
            ],
          }
        : p,
    ),
  )

test('no lab chosen: RgbInCmykJob fires as a warning when a lab able to make the product prints CMYK', () => {
  const labs = [
    { lab: 'us1', colour: SRGB },
    { lab: 'de1', colour: CMYK },
  ]
  const report = preflightReport(RGB_PDF(), bookTarget({ makingLabs: labs }))
  const rgb = only(report.checks, 'RgbInCmykJob')
  assert.deepEqual([rgb.severity, rgb.page, rgb.measured], ['warning', 2, 'RGB'])
  assert.equal(rgb.required, 'CMYK coated, relative intent, black-point compensation')
  assert.match(rgb.message, /lab de1 able to make this product prints CMYK \(de1: CMYK coated, relative intent/)
  assert.match(rgb.message, /a PDF goes to the lab unconverted, its RIP converts it/)
  // With Ghostscript configured the warning stays (the file as sent is RGB) and says printroute converts it.
  const converted = only(
    preflightReport(RGB_PDF(), bookTarget({ makingLabs: labs, convertsPdfColour: true })).checks,
    'RgbInCmykJob',
  )
  assert.equal(converted.severity, 'warning')
  assert.match(converted.message, /printroute converts the PDF to the lab's CMYK when it makes the print file, and/)
  assert.doesNotMatch(converted.message, /unconverted/)
  assert.equal(preflightStatusOf(report.checks), 'PassedWithWarnings')
  // ICC-based RGB images count as RGB content.
  assert.equal(only(preflightReport(ICC_RGB_PDF(), bookTarget({ makingLabs: labs })).checks, 'RgbInCmykJob').page, 5)
  // Only sRGB labs, or none given: no warning, the file passes as before.
  for (const makingLabs of [[{ lab: 'us1', colour: SRGB }], [], undefined]) {
    const target = makingLabs === undefined ? bookTarget() : bookTarget({ makingLabs })
    assert.deepEqual(preflightReport(RGB_PDF(), target).checks, [])
  }
  // A CMYK-only PDF gives no warning even with a CMYK lab.
  assert.deepEqual(preflightReport(pdf(pages(20)), bookTarget({ makingLabs: labs })).checks, [])
})

test('no lab chosen: several CMYK labs are named with each colour, grouped', () => {
  const other = { ...CMYK, profile: 'uncoated', intent: 'perceptual', blackPointCompensation: false } as const
  const labs = [
    { lab: 'fr2', colour: CMYK },
    { lab: 'de1', colour: CMYK },
    { lab: 'it3', colour: other },
  ]
  const rgb = only(preflightReport(RGB_PDF(), bookTarget({ makingLabs: labs })).checks, 'RgbInCmykJob')
  assert.match(rgb.message, /labs de1, fr2 and it3 able to make this product print CMYK/)
  assert.match(rgb.message, /de1, fr2: CMYK coated, relative intent, black-point compensation; it3: CMYK uncoated/)
  assert.equal(
    rgb.required,
    'CMYK coated, relative intent, black-point compensation or CMYK uncoated, perceptual intent',
  )
  // An image for the same labs: a note naming them, no finding.
  const note = preflightReport(image(3000, 3000), canvasTarget({ makingLabs: labs }))
  assert.deepEqual(note.checks, [])
  assert.match(
    note.fixes[0]?.message ?? '',
    /converts its print file to CMYK when one of labs de1, fr2 and it3 makes it/,
  )
  // The chosen lab's colour decides over the making labs: an sRGB lab gives nothing.
  assert.deepEqual(preflightReport(RGB_PDF(), bookTarget({ colour: SRGB, makingLabs: labs })).checks, [])
})

test('a PDF longer than the inspector reads: its page count decides, else it is unreadable', () => {
  const long = pdf(pages(3), { pageCount: 100_000, truncated: true })
  assert.equal(only(preflightReport(long, bookTarget()).checks, 'PageCountOutOfRange').measured, '100000 pages')
  assert.equal(only(preflightReport(long, bookTarget({ book: null })).checks, 'Unreadable').severity, 'error')
})

test('every code is produced by some input above, and only errors the rule allows are errors', () => {
  const errorsAllowed = new Set([
    'Unreadable',
    'Encrypted',
    'NotAPdf',
    'PageCountOutOfRange',
    'ImageTooLarge',
    'PageSizeMismatch',
  ])
  const inputs: [FileInspection, PreflightTarget][] = [
    [{ kind: 'unreadable', reason: 'x' }, bookTarget()],
    [{ kind: 'pdf', encrypted: true, pageCount: 1, pages: [], truncated: false }, bookTarget()],
    [image(10, 10), bookTarget()],
    [pdf([...pages(19, { mediaBox: box(210, 297) }), page(20, { mediaBox: box(210, 210) })]), bookTarget()],
    [pdf(pages(250)), bookTarget()],
    [pdf(pages(21)), bookTarget()],
    [
      pdf(
        pages(20, {
          fonts: [{ name: 'F', embedded: false }],
          images: [{ widthPx: 10, heightPx: 10, drawnWidthPt: 72, drawnHeightPt: 72, colourSpace: 'DeviceRGB' }],
          spotColours: ['Gold'],
        }),
      ),
      bookTarget({ colour: CMYK }),
    ],
    [image(10, 10), canvasTarget({ colour: CMYK })],
    [image(1200, 1200), canvasTarget()],
    [image(1, 1, { tooLarge: true }), canvasTarget()],
  ]
  const seen = new Set<string>()
  for (const [inspection, target] of inputs) {
    for (const check of preflightReport(inspection, target).checks) {
      seen.add(check.code)
      if (check.severity === 'error') assert.ok(errorsAllowed.has(check.code), `${check.code} must not be an error`)
    }
  }
  assert.deepEqual([...seen].sort(), [...PREFLIGHT_CODES].sort())
})

test('the box fix applies to pages of exactly trim + bleed without boxes', () => {
  assert.deepEqual(
    pdfBoxFixes(pages(20), BOOK).map((fix) => fix.code),
    ['SetTrimBox', 'SetBleedBox'],
  )
  assert.match(pdfBoxFixes(pages(20), BOOK)[0]?.message ?? '', /every page to 210.0 x 210.0 mm/)
  assert.deepEqual(pdfBoxFixes(pages(20, { mediaBox: box(210, 210) }), BOOK), [])
  assert.deepEqual(pdfBoxFixes(pages(20, { trimBox: box(210, 210) }), BOOK), [])
  assert.deepEqual(preflightReport(pdf(pages(20)), bookTarget()).fixes.length, 2)
})

test("an order asset's box fixes say the pages changed once done, and leave the report when not done", () => {
  const other = { code: 'ConvertedToLabColour', message: 'Converted.' }
  const fixes = [...pdfBoxFixes(pages(20), BOOK), other]
  const done = appliedPdfBoxFixes(fixes, 20)
  assert.deepEqual(
    done.map((fix) => fix.code),
    ['SetTrimBox', 'SetBleedBox', 'ConvertedToLabColour'],
  )
  assert.match(
    done[0]?.message ?? '',
    /every page to 210\.0 x 210\.0 mm, .*: done on printroute's copy, 20 pages changed\.$/,
  )
  assert.equal(done[2], other)
  assert.deepEqual(appliedPdfBoxFixes(fixes, null), [other])
  assert.deepEqual(appliedPdfBoxFixes(fixes, 0), [other])
})

test('validSkus: books whose trim and page range fit a PDF; print areas an image fills at the minimum dpi', () => {
  const product = (sku: string, book: BookSpec | null, specs: Record<string, PrintAreaSpec> = {}) =>
    ({ sku, book, variants: [{ printAreaSpecs: specs }] }) as unknown as Product
  const catalogue = [
    product('BOOK-B', BOOK),
    product('BOOK-A', { ...BOOK, maxPages: 400 }),
    product('BOOK-SHORT', { ...BOOK, maxPages: 20 }),
    product('BOOK-A4', { ...BOOK, trimMm: { width: 210, height: 297 } }),
    product('CAN-10X10', null, { default: CANVAS }),
    product('CAN-20X10', null, { default: { ...CANVAS, trimMm: { width: 508, height: 254 } } }),
    product('CAN-40X40', null, { default: { ...CANVAS, trimMm: { width: 1016, height: 1016 } } }),
  ]
  assert.deepEqual(preflightReport(pdf(pages(24)), bookTarget(), catalogue).validSkus, ['BOOK-A', 'BOOK-B'])
  assert.deepEqual(preflightReport(image(3000, 3000), canvasTarget(), catalogue).validSkus, ['CAN-10X10'])
  assert.deepEqual(preflightReport(image(1500, 3000), canvasTarget(), catalogue).validSkus, ['CAN-20X10'])
  assert.deepEqual(preflightReport(image(3000, 3000), canvasTarget()).validSkus, [])
})
