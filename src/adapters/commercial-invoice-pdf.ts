// A cross-border shipment's commercial invoice as a PDF (docs/labs.md#customs), drawn like the invoices (the same
// A4 writer, standard fonts, every text cut to its column): the CN23-like content a carrier asks for, sender (the
// lab), recipient, each item with its HS code, origin, quantity, unit and total value and weight, the totals, the
// incoterm and customs numbers, the reason for export and the date. Drawn from the content alone with the
// shipment's date as the PDF's dates, so the same shipment gives the same bytes whenever it is asked for.
import type { CommercialInvoiceContent, DeclaredLine } from '../domain/commercial-invoice.ts'
import { type Column, newDocument, type Writer } from './invoice-pdf.ts'
import { TITLE_SIZE } from './pdf-text.ts'

/** What a Sandbox commercial invoice says on its first line: nothing ships on it. */
export const COMMERCIAL_INVOICE_SANDBOX_MARK = 'Sandbox - not for a real shipment'

// Description | HS code | Origin | Qty | Unit value | Total value | Weight (g)
const ITEM_COLUMNS: readonly Column[] = [
  { x: 0, width: 170 },
  { x: 175, width: 70 },
  { x: 250, width: 40 },
  { x: 290, width: 35, align: 'right' },
  { x: 330, width: 65, align: 'right' },
  { x: 400, width: 60, align: 'right' },
  { x: 460, width: 55, align: 'right' },
]

function addressLines(recipient: CommercialInvoiceContent['recipient']): string[] {
  const address = recipient.address
  return [
    recipient.name,
    address.line1,
    ...(address.line2 ? [address.line2] : []),
    address.townOrCity,
    ...(address.stateOrCounty ? [address.stateOrCounty] : []),
    `${address.postalOrZipCode}  ${address.countryCode}`,
    ...(recipient.phoneNumber ? [`Phone: ${recipient.phoneNumber}`] : []),
  ]
}

/** The sender on the left, the recipient on the right. */
function parties(writer: Writer, content: CommercialInvoiceContent): void {
  writer.sideBySide(
    ['Sender (exporter)', content.sender.name, content.sender.countryCode],
    ['Recipient (importer)', ...addressLines(content.recipient)],
  )
}

function itemRow(writer: Writer, line: DeclaredLine): void {
  writer.row(
    [
      { text: line.description },
      { text: line.hsCode ?? 'none given' },
      { text: line.originCountryCode },
      { text: String(line.copies) },
      { text: `${line.unitValue.amount} ${line.unitValue.currency}` },
      { text: `${line.totalValue.amount} ${line.totalValue.currency}` },
      { text: line.weightGrams === null ? '-' : String(line.weightGrams * line.copies) },
    ],
    ITEM_COLUMNS,
  )
}

/** The commercial invoice of one shipment, as PDF bytes: as many A4 pages as its items need. */
export async function renderCommercialInvoicePdf(content: CommercialInvoiceContent): Promise<Uint8Array> {
  const { declaration } = content
  const { pdf, writer } = await newDocument(
    `Commercial invoice ${content.shipmentId} (${content.orderId})`,
    new Date(`${content.date}T00:00:00Z`),
  )
  if (content.sandbox) writer.text(COMMERCIAL_INVOICE_SANDBOX_MARK, { bold: true })
  writer.text('Commercial invoice', { bold: true, size: TITLE_SIZE })
  writer.text(`Date: ${content.date}`)
  writer.text(`Shipment ${content.shipmentId}   Order ${content.orderId}`)
  writer.text(`Reason for export: ${content.reason}`)
  writer.text(
    `Incoterm: ${declaration.incoterm}   From ${declaration.originCountryCode} to ${declaration.destinationCountryCode}`,
  )
  if (declaration.iossNumber) writer.text(`IOSS number: ${declaration.iossNumber}`)
  if (declaration.eoriNumber) writer.text(`EORI number: ${declaration.eoriNumber}`)
  if (declaration.recipientTaxId) writer.text(`Recipient tax id: ${declaration.recipientTaxId}`)
  writer.gap()
  parties(writer, content)
  writer.gap()
  const header = () =>
    writer.row(
      ['Description', 'HS code', 'Origin', 'Qty', 'Unit value', 'Total value', 'Weight (g)'].map((text) => ({
        text,
        bold: true,
      })),
      ITEM_COLUMNS,
    )
  header()
  writer.repeatOnNewPage = header
  for (const line of declaration.lines) itemRow(writer, line)
  writer.repeatOnNewPage = null
  writer.gap()
  writer.ensure(3)
  writer.text(`Total value: ${declaration.totalValue.amount} ${declaration.totalValue.currency}`, { bold: true })
  writer.text(
    `Total weight: ${declaration.totalWeightGrams === null ? 'not known' : `${declaration.totalWeightGrams} g`}`,
  )
  if (declaration.lines.some((line) => line.valueSource === 'itemPrice')) {
    writer.text("Values without the merchant's declared value are the items' prices.")
  }
  writer.footers(`Commercial invoice ${content.shipmentId}`, false)
  return pdf.save()
}
