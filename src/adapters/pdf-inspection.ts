// Measures a PDF for the preflight (docs/print-files.md, "Preflight"): page boxes, fonts and whether each is
// embedded, images with their pixel and drawn sizes, spot colours and the colour spaces painted with. Runs inside
// the inspector's child process (file-inspection-child.ts), which bounds its time and memory; this file bounds what
// it can: page-tree and form nesting depth, cycles, the pages measured.
//
// pdf-lib parses the file (no rendering, no font program or image is ever decoded: a garbage font or a huge image
// costs nothing). It is given a Node Buffer, whose `slice` is a view, so each stream's bytes stay in the one copy of
// the file instead of being copied out of it. Each page's content streams are decoded, scanned and dropped before
// the next page.

import {
  decodePDFRawStream,
  ParseSpeeds,
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRawStream,
  PDFStream,
} from 'pdf-lib'
import type { FileInspection, PdfPageMeasures } from '../domain/preflight.ts'
import { type ContentHandlers, multiply, scanContent } from './pdf-content-scan.ts'

/** Page trees deeper than this are refused: real files are a few levels deep. */
export const MAX_PAGE_TREE_DEPTH = 64
/** Forms drawn within forms deeper than this are not followed. */
export const MAX_FORM_DEPTH = 16

type Box = [number, number, number, number]
/** US Letter: what readers assume for a page without a MediaBox. */
const DEFAULT_MEDIA_BOX: Box = [0, 0, 612, 792]

export class PdfStructureError extends Error {}

interface PageLeaf {
  readonly dict: PDFDict
  readonly mediaBox: Box
  readonly resources: PDFDict | null
}

/** Reads the PDF in `bytes` and measures up to `maxPages` pages. */
export async function inspectPdf(bytes: Buffer, maxPages: number): Promise<FileInspection> {
  let document: PDFDocument
  try {
    document = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      updateMetadata: false,
      throwOnInvalidObject: false,
      parseSpeed: ParseSpeeds.Fastest,
    })
  } catch (error) {
    return { kind: 'unreadable', reason: `the PDF cannot be parsed (${messageOf(error)})` }
  }
  const context = document.context
  const pagesRoot = context.lookup(document.catalog.get(PDFName.of('Pages')))
  if (!(pagesRoot instanceof PDFDict)) return { kind: 'unreadable', reason: 'the PDF has no page tree' }
  let walk: { leaves: PageLeaf[]; counted: number; truncated: boolean }
  try {
    walk = collectPages(document, pagesRoot, maxPages)
  } catch (error) {
    if (error instanceof PdfStructureError) return { kind: 'unreadable', reason: error.message }
    throw error
  }
  const declared = numberOf(context.lookup(pagesRoot.get(PDFName.of('Count'))))
  const pageCount = walk.truncated ? Math.max(walk.counted, declared ?? 0) : walk.counted
  if (document.isEncrypted) return { kind: 'pdf', encrypted: true, pageCount, pages: [], truncated: walk.truncated }
  const pages: PdfPageMeasures[] = []
  for (const [index, leaf] of walk.leaves.entries()) {
    try {
      pages.push(measurePage(document, leaf, index + 1))
    } catch (error) {
      return { kind: 'unreadable', reason: `page ${index + 1} cannot be read (${messageOf(error)})` }
    }
  }
  return { kind: 'pdf', encrypted: false, pageCount, pages, truncated: walk.truncated }
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.length > 200 ? `${text.slice(0, 200)}...` : text
}

function numberOf(object: PDFObject | undefined): number | null {
  return object instanceof PDFNumber && Number.isFinite(object.asNumber()) ? object.asNumber() : null
}

function boxOf(document: PDFDocument, object: PDFObject | undefined): Box | null {
  const array = document.context.lookup(object)
  if (!(array instanceof PDFArray) || array.size() !== 4) return null
  const values = array.asArray().map((item) => numberOf(document.context.lookup(item)))
  if (values.some((value) => value === null)) return null
  const [x0, y0, x1, y1] = values as number[]
  return [x0 as number, y0 as number, x1 as number, y1 as number]
}

/**
 * The page tree's leaves in order, with their inherited MediaBox and Resources. A page object may be referenced
 * many times (each a page); a node that contains itself, directly or further down, is a cycle and is refused. Stops
 * storing after `maxPages` leaves and stops walking soon after, so a 100,000-page tree costs little.
 */
function collectPages(document: PDFDocument, root: PDFDict, maxPages: number) {
  const leaves: PageLeaf[] = []
  let counted = 0
  let truncated = false
  const ancestors = new Set<PDFDict>()
  const visit = (node: PDFDict, mediaBox: Box, resources: PDFDict | null, depth: number): void => {
    if (truncated) return
    if (depth > MAX_PAGE_TREE_DEPTH)
      throw new PdfStructureError(`the page tree is deeper than ${MAX_PAGE_TREE_DEPTH} levels`)
    if (ancestors.has(node)) throw new PdfStructureError('the page tree contains itself (a cycle)')
    const ownMedia = boxOf(document, node.get(PDFName.of('MediaBox'))) ?? mediaBox
    const ownResources = document.context.lookup(node.get(PDFName.of('Resources')))
    const nextResources = ownResources instanceof PDFDict ? ownResources : resources
    const kids = document.context.lookup(node.get(PDFName.of('Kids')))
    if (!(kids instanceof PDFArray)) {
      counted++
      if (counted > maxPages) truncated = true
      else leaves.push({ dict: node, mediaBox: ownMedia, resources: nextResources })
      return
    }
    ancestors.add(node)
    for (const kid of kids.asArray()) {
      const child = document.context.lookup(kid)
      if (child instanceof PDFDict) visit(child, ownMedia, nextResources, depth + 1)
      if (truncated) break
    }
    ancestors.delete(node)
  }
  visit(root, DEFAULT_MEDIA_BOX, null, 0)
  return { leaves, counted, truncated }
}

/** The decoded bytes of a page's /Contents (one stream or an array of them), joined by a space. */
function contentBytes(document: PDFDocument, contents: PDFObject | undefined): Uint8Array[] {
  const resolved = document.context.lookup(contents)
  const streams =
    resolved instanceof PDFArray ? resolved.asArray().map((item) => document.context.lookup(item)) : [resolved]
  const parts: Uint8Array[] = []
  for (const stream of streams) {
    if (stream instanceof PDFRawStream) parts.push(decodePDFRawStream(stream).decode())
    else if (stream instanceof PDFStream) parts.push(stream.getContents())
  }
  return parts
}

function measurePage(document: PDFDocument, leaf: PageLeaf, pageNumber: number): PdfPageMeasures {
  const sink = createSink(document)
  for (const part of contentBytes(document, leaf.dict.get(PDFName.of('Contents')))) {
    scanContent(part, leaf.resources, sink.handlers(0, new Set()))
  }
  return {
    page: pageNumber,
    mediaBox: leaf.mediaBox,
    trimBox: boxOf(document, leaf.dict.get(PDFName.of('TrimBox'))),
    bleedBox: boxOf(document, leaf.dict.get(PDFName.of('BleedBox'))),
    images: sink.images,
    fonts: [...sink.fonts].map(([name, embedded]) => ({ name, embedded })),
    spotColours: [...sink.spots],
    colourSpaces: [...sink.spaces],
  }
}

type Sink = ReturnType<typeof createSink>

function createSink(document: PDFDocument) {
  const context = document.context
  const images: PdfPageMeasures['images'][number][] = []
  const fonts = new Map<string, boolean>()
  const spots = new Set<string>()
  const spaces = new Set<string>()
  const resource = (resources: PDFDict | null, category: string, name: string): PDFObject | undefined => {
    const group = context.lookup(resources?.get(PDFName.of(category)))
    return group instanceof PDFDict ? context.lookup(group.get(PDFName.of(name))) : undefined
  }
  const addSpace = (space: { name: string; spots: string[] }) => {
    spaces.add(space.name)
    for (const spot of space.spots) spots.add(spot)
  }
  const sink = {
    images,
    fonts,
    spots,
    spaces,
    handlers(depth: number, forms: Set<PDFObject>): ContentHandlers {
      return {
        drawXObject(name, resources, ctm) {
          const object = resource(resources, 'XObject', name)
          if (!(object instanceof PDFRawStream || object instanceof PDFStream)) return
          const subtype = context.lookup(object.dict.get(PDFName.of('Subtype')))
          if (subtype === PDFName.of('Image')) {
            if (context.lookup(object.dict.get(PDFName.of('ImageMask'))) === PDFBool.True) return
            const space = describeColourSpace(document, object.dict.get(PDFName.of('ColorSpace')), resources, 0)
            addSpace(space)
            images.push(drawnImage(object.dict, document, space.name, ctm))
          } else if (subtype === PDFName.of('Form')) {
            drawForm(document, sink, object, resources, ctm, depth, forms)
          }
        },
        inlineImage(entries, resources, ctm) {
          const width = Number(entries.get('W') ?? entries.get('Width') ?? 0)
          const height = Number(entries.get('H') ?? entries.get('Height') ?? 0)
          const spaceName = String(entries.get('CS') ?? entries.get('ColorSpace') ?? 'DeviceGray')
          const space = describeColourSpace(document, PDFName.of(expandInlineName(spaceName)), resources, 0)
          addSpace(space)
          const [a = 0, b = 0, c = 0, d = 0] = ctm
          images.push({
            widthPx: width,
            heightPx: height,
            drawnWidthPt: Math.hypot(a, b),
            drawnHeightPt: Math.hypot(c, d),
            colourSpace: space.name,
          })
        },
        font(name, resources) {
          const font = resource(resources, 'Font', name)
          if (!(font instanceof PDFDict)) return
          const described = describeFont(document, font)
          if (!fonts.has(described.name) || !described.embedded) fonts.set(described.name, described.embedded)
        },
        colourSpace(name, resources) {
          addSpace(describeColourSpace(document, PDFName.of(name), resources, 0))
        },
      }
    },
  }
  return sink
}

function drawnImage(dict: PDFDict, document: PDFDocument, colourSpace: string, ctm: readonly number[]) {
  const [a = 0, b = 0, c = 0, d = 0] = ctm
  return {
    widthPx: numberOf(document.context.lookup(dict.get(PDFName.of('Width')))) ?? 0,
    heightPx: numberOf(document.context.lookup(dict.get(PDFName.of('Height')))) ?? 0,
    // An image fills the unit square of its CTM: the drawn edges are the lengths of the matrix's two axes.
    drawnWidthPt: Math.hypot(a, b),
    drawnHeightPt: Math.hypot(c, d),
    colourSpace,
  }
}

function drawForm(
  document: PDFDocument,
  sink: Sink,
  form: PDFRawStream | PDFStream,
  resources: PDFDict | null,
  ctm: readonly number[],
  depth: number,
  forms: Set<PDFObject>,
): void {
  // A form drawing itself (directly or through others) is a cycle: drawn once, not followed again.
  if (depth >= MAX_FORM_DEPTH || forms.has(form)) return
  const formMatrix = document.context.lookup(form.dict.get(PDFName.of('Matrix')))
  const m =
    formMatrix instanceof PDFArray && formMatrix.size() === 6
      ? formMatrix.asArray().map((item) => numberOf(document.context.lookup(item)) ?? 0)
      : [1, 0, 0, 1, 0, 0]
  const own = document.context.lookup(form.dict.get(PDFName.of('Resources')))
  const bytes = form instanceof PDFRawStream ? decodePDFRawStream(form).decode() : form.getContents()
  const inner = new Set(forms).add(form)
  scanContent(bytes, own instanceof PDFDict ? own : resources, sink.handlers(depth + 1, inner), multiply(m, ctm))
}

const INLINE_NAMES: Record<string, string> = { G: 'DeviceGray', RGB: 'DeviceRGB', CMYK: 'DeviceCMYK', I: 'Indexed' }
function expandInlineName(name: string): string {
  return INLINE_NAMES[name] ?? name
}

const PROCESS_COLOURANTS = new Set(['Cyan', 'Magenta', 'Yellow', 'Black', 'None', 'All'])
const DEVICE_SPACES = new Set(['DeviceRGB', 'DeviceCMYK', 'DeviceGray', 'Pattern'])

/** A colour space as the report names it, with the spot colourants it uses. */
function describeColourSpace(
  document: PDFDocument,
  object: PDFObject | undefined,
  resources: PDFDict | null,
  depth: number,
): { name: string; spots: string[] } {
  const context = document.context
  const value = context.lookup(object)
  if (depth > 4 || value === undefined) return { name: 'DeviceGray', spots: [] }
  if (value instanceof PDFName) {
    const name = value.decodeText()
    if (DEVICE_SPACES.has(name) || name === 'CalRGB' || name === 'CalGray' || name === 'Lab') return { name, spots: [] }
    const named = context.lookup(resources?.get(PDFName.of('ColorSpace')))
    const entry = named instanceof PDFDict ? named.get(PDFName.of(name)) : undefined
    return entry === undefined ? { name, spots: [] } : describeColourSpace(document, entry, resources, depth + 1)
  }
  if (!(value instanceof PDFArray) || value.size() === 0) return { name: 'unknown', spots: [] }
  const family = context.lookup(value.get(0))
  const familyName = family instanceof PDFName ? family.decodeText() : 'unknown'
  if (familyName === 'ICCBased') {
    const stream = context.lookup(value.get(1))
    const components =
      stream instanceof PDFRawStream ? numberOf(context.lookup(stream.dict.get(PDFName.of('N')))) : null
    return { name: `ICCBased(${components === 4 ? 'CMYK' : components === 1 ? 'Gray' : 'RGB'})`, spots: [] }
  }
  if (familyName === 'Separation') {
    const colourant = context.lookup(value.get(1))
    const name = colourant instanceof PDFName ? colourant.decodeText() : 'unknown'
    return { name: `Separation(${name})`, spots: PROCESS_COLOURANTS.has(name) ? [] : [name] }
  }
  if (familyName === 'DeviceN') {
    const names = context.lookup(value.get(1))
    const colourants =
      names instanceof PDFArray
        ? names.asArray().flatMap((item) => {
            const name = context.lookup(item)
            return name instanceof PDFName ? [name.decodeText()] : []
          })
        : []
    return {
      name: `DeviceN(${colourants.join(', ')})`,
      spots: colourants.filter((name) => !PROCESS_COLOURANTS.has(name)),
    }
  }
  if (familyName === 'Indexed' || familyName === 'Pattern') {
    return value.size() > 1
      ? describeColourSpace(document, value.get(1), resources, depth + 1)
      : { name: familyName, spots: [] }
  }
  return { name: familyName, spots: [] }
}

/** A font's name (subset prefix removed) and whether its program is in the file. */
function describeFont(document: PDFDocument, font: PDFDict): { name: string; embedded: boolean } {
  const context = document.context
  const baseFont = context.lookup(font.get(PDFName.of('BaseFont')))
  const name = (baseFont instanceof PDFName ? baseFont.decodeText() : 'unnamed').replace(/^[A-Z]{6}\+/, '')
  const subtype = context.lookup(font.get(PDFName.of('Subtype')))
  // A Type 3 font's glyphs are content streams of the file itself: always embedded.
  if (subtype === PDFName.of('Type3')) return { name, embedded: true }
  let described: PDFDict = font
  if (subtype === PDFName.of('Type0')) {
    const descendants = context.lookup(font.get(PDFName.of('DescendantFonts')))
    const first = descendants instanceof PDFArray && descendants.size() > 0 ? context.lookup(descendants.get(0)) : null
    if (first instanceof PDFDict) described = first
  }
  const descriptor = context.lookup(described.get(PDFName.of('FontDescriptor')))
  const embedded =
    descriptor instanceof PDFDict &&
    ['FontFile', 'FontFile2', 'FontFile3'].some((key) => descriptor.get(PDFName.of(key)) !== undefined)
  return { name, embedded }
}
