// printroute's packing slip of a shipment as a PDF (docs/print-files.md, "Packing slips"): A4 portrait, the
// order, the shipment and the recipient at the top with a QR code of the shipment id a packer scans, then one
// block per item. Every line is cut to the page's width with an ellipsis, and an item that does not fit on the
// page starts the next one, so nothing is ever drawn off the page however long the merchant's texts are.
import { PDFDocument, type PDFPage, StandardFonts } from 'pdf-lib'
import QRCode from 'qrcode'
import type { PackingSlipContent } from '../domain/packing-slip.ts'
import { A4_PORTRAIT, drawable, fitted, GREY, LINE_HEIGHT, MARGIN, TEXT_SIZE, TITLE_SIZE } from './pdf-text.ts'

/** A4 portrait, in PDF points. */
export const PACKING_SLIP_PAGE_SIZE = A4_PORTRAIT

const QR_SIZE = 100
const ITEM_GAP = 6
const INDENT = 14
/** Below this the page footer sits. */
const CONTENT_BOTTOM = MARGIN + 2 * LINE_HEIGHT

/**
 * The PNG of the QR code: 8 pixels a module and the standard quiet zone of 4 modules, so it stays sharp when
 * scaled to its place on the page and a scanner finds it next to the text.
 */
async function qrCodePng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 })
}

interface Line {
  text: string
  bold?: boolean
  indent?: number
  size?: number
}

/** The lines of one item, drawn together on one page. */
function itemLines(item: PackingSlipContent['items'][number], index: number, count: number): Line[] {
  const lines: Line[] = [
    { text: `${index + 1}/${count}  ${item.sku}  x ${item.copies}`, bold: true },
    { text: `Item ${item.itemId}${item.merchantReference ? `   Merchant reference: ${item.merchantReference}` : ''}` },
  ]
  for (const [name, value] of Object.entries(item.attributes)) lines.push({ text: `${name}: ${value}`, indent: INDENT })
  return lines
}

function headerLines(slip: PackingSlipContent): Line[] {
  const { recipient } = slip
  const address = recipient.address
  const lines: Line[] = [
    { text: 'Packing slip', bold: true, size: TITLE_SIZE },
    { text: `Order ${slip.orderId}` },
    ...(slip.merchantReference ? [{ text: `Merchant reference: ${slip.merchantReference}` }] : []),
    { text: `Shipment ${slip.shipmentId}`, bold: true },
    { text: `${slip.shippingMethod}: ${slip.carrier.name} ${slip.carrier.service}`.trim() },
    { text: '' },
    { text: 'Ship to', bold: true },
    { text: recipient.name },
    { text: address.line1 },
  ]
  if (address.line2) lines.push({ text: address.line2 })
  lines.push({ text: address.townOrCity })
  if (address.stateOrCounty) lines.push({ text: address.stateOrCounty })
  lines.push({ text: `${address.postalOrZipCode}  ${address.countryCode}` })
  lines.push({ text: '' }, { text: `Items (${slip.items.length})`, bold: true })
  return lines
}

/** The packing slip of one shipment, as PDF bytes: as many A4 pages as its items need. */
export async function renderPackingSlipPdf(slip: PackingSlipContent): Promise<Buffer> {
  const pdf = await PDFDocument.create()
  pdf.setTitle(`Packing slip ${slip.shipmentId} (${slip.orderId})`)
  pdf.setCreator('printroute')
  const fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  }
  const supported = {
    regular: new Set(fonts.regular.getCharacterSet()),
    bold: new Set(fonts.bold.getCharacterSet()),
  }
  const qrCode = await pdf.embedPng(await qrCodePng(slip.shipmentId))
  const { width, height } = PACKING_SLIP_PAGE_SIZE
  const contentWidth = width - 2 * MARGIN

  const firstPage = pdf.addPage([width, height])
  const pages: PDFPage[] = [firstPage]
  let page = firstPage
  let y = height - MARGIN
  const newPage = () => {
    page = pdf.addPage([width, height])
    pages.push(page)
    y = height - MARGIN
  }
  const draw = (line: Line, maxWidth: number) => {
    const size = line.size ?? TEXT_SIZE
    const font = line.bold ? fonts.bold : fonts.regular
    const text = fitted(font, drawable(line.bold ? supported.bold : supported.regular, line.text), size, maxWidth)
    y -= size === TEXT_SIZE ? LINE_HEIGHT : size + 6
    if (text !== '') page.drawText(text, { x: MARGIN + (line.indent ?? 0), y, size, font })
  }

  firstPage.drawImage(qrCode, {
    x: width - MARGIN - QR_SIZE,
    y: height - MARGIN - QR_SIZE,
    width: QR_SIZE,
    height: QR_SIZE,
  })
  // Beside the QR code the header keeps clear of it.
  const headerWidth = contentWidth - QR_SIZE - 10
  for (const line of headerLines(slip)) draw(line, headerWidth)
  y = Math.min(y, height - MARGIN - QR_SIZE - LINE_HEIGHT)

  for (const [index, item] of slip.items.entries()) {
    const lines = itemLines(item, index, slip.items.length)
    if (y - lines.length * LINE_HEIGHT - ITEM_GAP < CONTENT_BOTTOM) newPage()
    y -= ITEM_GAP
    for (const line of lines) {
      // An item with more lines than a page holds (not possible within the order limits) continues overleaf.
      if (y - LINE_HEIGHT < CONTENT_BOTTOM) newPage()
      draw(line, contentWidth - (line.indent ?? 0))
    }
  }

  for (const [index, each] of pages.entries()) {
    const footer = fitted(
      fonts.regular,
      drawable(supported.regular, `${slip.shipmentId} (${slip.orderId})   page ${index + 1} of ${pages.length}`),
      8,
      contentWidth,
    )
    each.drawText(footer, { x: MARGIN, y: MARGIN, size: 8, font: fonts.regular, color: GREY })
  }
  return Buffer.from(await pdf.save())
}
