// Invoices, credit notes and monthly statements as PDFs (docs/billing.md#invoices), with pdf-lib like the
// packing slip: A4 portrait, the standard Helvetica fonts, every text cut to its column with an ellipsis. A
// document is drawn only from what was fixed at its issue (InvoiceContent), with the issue time as the PDF's
// dates, so the same document gives the same PDF whenever it is asked for. As many pages as the lines need:
// the header starts the first, the totals follow the last line, and every page carries the number, its page
// count and, for Sandbox, the words that it is not a bill.
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib'
import { type InvoiceContent, type InvoiceSeller, SANDBOX_MARK, type Statement } from '../domain/invoices.ts'
import { type LabStatementContent, type LabStatementLine, SELF_BILLING_NOTE } from '../domain/lab-statements.ts'
import { formatMinorAsAmount } from '../domain/money.ts'
import { A4_PORTRAIT, drawable, fitted, GREY, LINE_HEIGHT, MARGIN, TEXT_SIZE, TITLE_SIZE } from './pdf-text.ts'

const PAGE = A4_PORTRAIT
const SMALL_SIZE = 8
/** Below this the footer sits. */
const CONTENT_BOTTOM = MARGIN + 3 * LINE_HEIGHT
const RED = rgb(0.7, 0.1, 0.1)

/** A column of a table: where it starts (points from the left margin), its width, and how it is aligned. */
export interface Column {
  x: number
  width: number
  align?: 'right'
}

export interface Cell {
  text: string
  bold?: boolean
}

/** A document being drawn: a cursor going down its pages, which it adds as needed. */
export class Writer {
  readonly pages: PDFPage[] = []
  #page!: PDFPage
  #y = 0
  readonly #pdf: PDFDocument
  readonly #fonts: { regular: PDFFont; bold: PDFFont }
  readonly #supported: { regular: Set<number>; bold: Set<number> }
  /** Drawn at the top of every page after the first (a table's header row). */
  repeatOnNewPage: (() => void) | null = null

  constructor(pdf: PDFDocument, fonts: { regular: PDFFont; bold: PDFFont }) {
    this.#pdf = pdf
    this.#fonts = fonts
    this.#supported = {
      regular: new Set(fonts.regular.getCharacterSet()),
      bold: new Set(fonts.bold.getCharacterSet()),
    }
    this.newPage()
  }

  get contentWidth(): number {
    return PAGE.width - 2 * MARGIN
  }

  newPage(): void {
    this.#page = this.#pdf.addPage([PAGE.width, PAGE.height])
    this.pages.push(this.#page)
    this.#y = PAGE.height - MARGIN
    if (this.pages.length > 1) this.repeatOnNewPage?.()
  }

  /** Makes room for `lines` lines on this page, or starts the next one. */
  ensure(lines: number): void {
    if (this.#y - lines * LINE_HEIGHT < CONTENT_BOTTOM) this.newPage()
  }

  gap(points = LINE_HEIGHT / 2): void {
    this.#y -= points
  }

  text(
    text: string,
    options: { bold?: boolean; size?: number; x?: number; width?: number; color?: typeof GREY } = {},
  ): void {
    const size = options.size ?? TEXT_SIZE
    this.#y -= size === TEXT_SIZE ? LINE_HEIGHT : size + 6
    this.#draw(text, options.x ?? 0, options.width ?? this.contentWidth, { ...options, size })
  }

  /** One row of cells in `columns`, on one line. */
  row(cells: readonly Cell[], columns: readonly Column[]): void {
    this.ensure(1)
    this.#y -= LINE_HEIGHT
    cells.forEach((cell, index) => {
      const column = columns[index]
      if (column) this.#draw(cell.text, column.x, column.width, { bold: cell.bold, align: column.align })
    })
  }

  /**
   * Two blocks side by side, each headed by its first line in bold (the seller and the buyer, the sender and the
   * recipient): the left one in the left half, a gap before the right one; kept together on one page.
   */
  sideBySide(left: readonly string[], right: readonly string[]): void {
    const half = this.contentWidth / 2
    const rows = Math.max(left.length, right.length)
    this.ensure(rows)
    for (let index = 0; index < rows; index += 1) {
      this.row(
        [
          { text: left[index] ?? '', bold: index === 0 },
          { text: right[index] ?? '', bold: index === 0 },
        ],
        [
          { x: 0, width: half - 10 },
          { x: half, width: half },
        ],
      )
    }
  }

  #draw(
    raw: string,
    x: number,
    width: number,
    options: { bold?: boolean; size?: number; align?: 'right'; color?: typeof GREY },
  ): void {
    const size = options.size ?? TEXT_SIZE
    const font = options.bold ? this.#fonts.bold : this.#fonts.regular
    const supported = options.bold ? this.#supported.bold : this.#supported.regular
    const text = fitted(font, drawable(supported, raw), size, width)
    if (text === '') return
    const left = options.align === 'right' ? x + width - font.widthOfTextAtSize(text, size) : x
    this.#page.drawText(text, {
      x: MARGIN + left,
      y: this.#y,
      size,
      font,
      ...(options.color ? { color: options.color } : {}),
    })
  }

  /** The footer of every page: `label page i of n`, and the Sandbox mark when given. */
  footers(label: string, sandbox: boolean): void {
    for (const [index, page] of this.pages.entries()) {
      const font = this.#fonts.regular
      const footer = fitted(
        font,
        drawable(this.#supported.regular, `${label}   page ${index + 1} of ${this.pages.length}`),
        SMALL_SIZE,
        this.contentWidth,
      )
      page.drawText(footer, { x: MARGIN, y: MARGIN, size: SMALL_SIZE, font, color: GREY })
      if (sandbox) {
        const bold = this.#fonts.bold
        page.drawText(SANDBOX_MARK, { x: MARGIN, y: MARGIN + LINE_HEIGHT, size: TEXT_SIZE, font: bold, color: RED })
        const top = PAGE.width - MARGIN - bold.widthOfTextAtSize(SANDBOX_MARK, TEXT_SIZE)
        page.drawText(SANDBOX_MARK, {
          x: top,
          y: PAGE.height - MARGIN / 2 - 4,
          size: TEXT_SIZE,
          font: bold,
          color: RED,
        })
      }
    }
  }
}

export async function newDocument(title: string, at: Date) {
  const pdf = await PDFDocument.create()
  pdf.setTitle(title)
  pdf.setCreator('printroute')
  pdf.setProducer('printroute')
  // Fixed dates: the same document gives the same bytes whenever it is drawn.
  pdf.setCreationDate(at)
  pdf.setModificationDate(at)
  const fonts = {
    regular: await pdf.embedFont(StandardFonts.Helvetica),
    bold: await pdf.embedFont(StandardFonts.HelveticaBold),
  }
  return { pdf, writer: new Writer(pdf, fonts) }
}

const amount = (minor: string | bigint) => formatMinorAsAmount(BigInt(minor))

function sellerLines(seller: InvoiceSeller): string[] {
  return [
    seller.name,
    ...seller.address,
    ...(seller.taxNumber ? [`Tax number: ${seller.taxNumber}`] : []),
    ...(seller.email ? [seller.email] : []),
  ]
}

/** Two blocks side by side: the seller on the left, the buyer on the right. */
function parties(writer: Writer, seller: InvoiceSeller, buyer: string[]): void {
  writer.sideBySide(['From', ...sellerLines(seller)], ['To', ...buyer])
}

const LINE_COLUMNS: Column[] = [
  { x: 0, width: 300 },
  { x: 305, width: 45, align: 'right' },
  { x: 355, width: 55, align: 'right' },
  { x: 415, width: 100, align: 'right' },
]

/** An invoice or credit note as PDF bytes, drawn from what was fixed at its issue. */
export async function renderInvoicePdf(content: InvoiceContent): Promise<Uint8Array> {
  const title = content.kind === 'Invoice' ? 'Invoice' : 'Credit note'
  const issuedAt = new Date(content.issuedAt)
  const { pdf, writer } = await newDocument(`${title} ${content.number}`, issuedAt)
  const sandbox = content.environment === 'sandbox'

  writer.text(`${title} ${content.number}`, { bold: true, size: TITLE_SIZE })
  if (sandbox) writer.text(`${SANDBOX_MARK}: a document of the Sandbox environment`, { bold: true, color: RED })
  writer.text(`Issued: ${content.issuedAt.slice(0, 10)}`)
  writer.text(
    `Order: ${content.orderId}${content.merchantReference ? `   Merchant reference: ${content.merchantReference}` : ''}`,
  )
  writer.text(`Charge: ${content.chargeId}`)
  if (content.credits.length > 0) writer.text(`Credits invoice ${content.credits.join(', ')}`, { bold: true })
  writer.gap()
  parties(writer, content.seller, [content.buyer.name, `Account ${content.buyer.accountId}`])
  writer.gap(LINE_HEIGHT)

  const header = () =>
    writer.row(
      [
        { text: 'Description', bold: true },
        { text: 'Copies', bold: true },
        { text: 'Tax', bold: true },
        {
          text: `Amount (${content.currency})`,
          bold: true,
        },
      ],
      LINE_COLUMNS,
    )
  header()
  writer.repeatOnNewPage = header
  for (const line of content.lines) {
    writer.row(
      [
        { text: line.description },
        { text: line.copies === null ? '' : String(line.copies) },
        { text: `${line.taxRatePercent}%` },
        { text: amount(line.cost) },
      ],
      LINE_COLUMNS,
    )
  }
  writer.repeatOnNewPage = null
  writer.gap()
  // The totals stay together on one page.
  writer.ensure(content.taxByRate.length + 4)
  const totals: Column[] = [
    { x: 0, width: 410 },
    { x: 415, width: 100, align: 'right' },
  ]
  writer.row([{ text: 'Subtotal (before tax)' }, { text: amount(content.subtotal) }], totals)
  for (const rate of content.taxByRate) {
    writer.row(
      [
        { text: `${rate.name ?? 'Tax'} at ${rate.ratePercent}% on ${amount(rate.taxable)}` },
        { text: amount(rate.tax) },
      ],
      totals,
    )
  }
  writer.row([{ text: 'Total tax' }, { text: amount(content.totalTax) }], totals)
  writer.row(
    [
      { text: `Total ${content.kind === 'CreditNote' ? 'credited' : 'due'} (${content.currency})`, bold: true },
      { text: amount(content.total), bold: true },
    ],
    totals,
  )
  writer.footers(`${title} ${content.number} (${content.orderId})`, sandbox)
  return pdf.save()
}

const STATEMENT_COLUMNS: Column[] = [
  { x: 0, width: 100 },
  { x: 105, width: 70 },
  { x: 180, width: 70 },
  { x: 255, width: 80 },
  { x: 340, width: 85, align: 'right' },
  { x: 430, width: 85, align: 'right' },
]

/** An account's monthly statement as PDF bytes: every document of the month, then totals per currency. */
export async function renderStatementPdf(statement: Statement): Promise<Uint8Array> {
  const environment = statement.environment === 'live' ? 'Live' : 'Sandbox'
  const title = `Statement ${statement.month} ${statement.accountId} (${environment})`
  // The statement's own date: the month's first instant, so it too is the same whenever drawn.
  const { pdf, writer } = await newDocument(title, new Date(`${statement.month}-01T00:00:00.000Z`))
  const sandbox = statement.environment === 'sandbox'
  writer.text(`Statement ${statement.month}`, { bold: true, size: TITLE_SIZE })
  writer.text(`${environment} invoices and credit notes of ${statement.accountId}, issued in ${statement.month} (UTC)`)
  writer.gap()
  parties(writer, statement.seller, [statement.accountName, `Account ${statement.accountId}`])
  writer.gap(LINE_HEIGHT)
  const header = () =>
    writer.row(
      ['Number', 'Kind', 'Issued', 'Order', 'Total', 'Tax'].map((text) => ({ text, bold: true })),
      STATEMENT_COLUMNS,
    )
  header()
  writer.repeatOnNewPage = header
  if (statement.documents.length === 0) writer.text('No invoices or credit notes this month.')
  for (const document of statement.documents) {
    writer.row(
      [
        { text: document.number },
        { text: document.kind === 'Invoice' ? 'Invoice' : 'Credit note' },
        { text: document.issuedAt.toISOString().slice(0, 10) },
        { text: `ord_${document.orderNumber}` },
        { text: `${formatMinorAsAmount(document.totalCostMinor)} ${document.currency}` },
        { text: formatMinorAsAmount(document.totalTaxMinor) },
      ],
      STATEMENT_COLUMNS,
    )
  }
  writer.repeatOnNewPage = null
  writer.gap()
  writer.ensure(statement.totals.length * 4 + 1)
  const totals: Column[] = [
    { x: 0, width: 330 },
    { x: 340, width: 175, align: 'right' },
  ]
  for (const total of statement.totals) {
    writer.row([{ text: `Invoiced (${total.currency})` }, { text: total.invoiced }], totals)
    writer.row([{ text: `Credited (${total.currency})` }, { text: total.credited }], totals)
    writer.row([{ text: `Of which tax (${total.currency})` }, { text: total.tax }], totals)
    writer.row(
      [
        { text: `Net total (${total.currency})`, bold: true },
        { text: total.net, bold: true },
      ],
      totals,
    )
  }
  if (statement.owed) owedSection(writer, statement.owed, totals)
  writer.footers(title, sandbox)
  return pdf.save()
}

/**
 * A prepaid account's amounts owed on the invoice (orders an operator released unpaid, refunds taken off them):
 * each, then what the statement collects per currency.
 */
function owedSection(writer: Writer, owed: NonNullable<Statement['owed']>, totals: Column[]): void {
  writer.gap(LINE_HEIGHT)
  writer.ensure(3)
  writer.text('Owed on this statement (not taken from the prepaid balance)', { bold: true })
  writer.text('Orders an operator released while the balance did not cover them; refunds on them taken off.')
  for (const line of owed.lines) {
    writer.row(
      [
        {
          text: `${line.recordedAt.toISOString().slice(0, 10)} ${line.orderId}${line.chargeId ? ` (${line.chargeId})` : ''}`,
        },
        { text: `${formatMinorAsAmount(line.amountMinor)} ${line.currency}` },
      ],
      totals,
    )
  }
  for (const total of owed.totals) {
    writer.row(
      [
        { text: `To collect (${total.currency})`, bold: true },
        { text: total.amount, bold: true },
      ],
      totals,
    )
  }
}

const LAB_STATEMENT_COLUMNS: Column[] = [
  { x: 0, width: 70 },
  { x: 75, width: 70 },
  { x: 150, width: 60 },
  { x: 215, width: 65 },
  { x: 285, width: 75, align: 'right' },
  { x: 365, width: 70, align: 'right' },
  { x: 440, width: 75, align: 'right' },
]

/**
 * A lab's payables statement as PDF bytes (docs/billing.md#lab-payables-statements): a self-billing document the
 * operator issues on the lab's behalf, the lab as seller and the operator as buyer, drawn from what was fixed at
 * issue. The jobs owed, their totals per currency, then the work handed over but cancelled or rejected (not owed).
 */
export async function renderLabStatementPdf(content: LabStatementContent): Promise<Uint8Array> {
  const title = `Self-billing statement ${content.number}`
  const { pdf, writer } = await newDocument(title, new Date(content.issuedAt))
  writer.text(title, { bold: true, size: TITLE_SIZE })
  writer.text(`Work shipped in ${content.month} (UTC), at the costs agreed when each job was handed over`)
  writer.text(`Issued: ${content.issuedAt.slice(0, 10)}`)
  writer.text(SELF_BILLING_NOTE, { color: GREY })
  writer.gap()
  writer.sideBySide(
    ['Seller (the lab)', content.seller.name, `Lab ${content.seller.labCode}`, content.seller.countryCode],
    ['Buyer (issued by)', ...sellerLines(content.buyer)],
  )
  writer.gap(LINE_HEIGHT)
  const table = (lines: readonly LabStatementLine[], dateHeading: string) => {
    const header = () =>
      writer.row(
        ['Shipment', 'Order', 'Kind', dateHeading, 'Production', 'Shipping', 'Total'].map((text) => ({
          text,
          bold: true,
        })),
        LAB_STATEMENT_COLUMNS,
      )
    header()
    writer.repeatOnNewPage = header
    for (const line of lines) {
      writer.row(
        [
          { text: line.shipmentId },
          { text: line.orderId },
          { text: line.kind },
          { text: line.outcomeAt.slice(0, 10) },
          { text: line.production },
          { text: line.shipping },
          { text: `${line.total} ${line.currency}` },
        ],
        LAB_STATEMENT_COLUMNS,
      )
    }
    writer.repeatOnNewPage = null
  }
  writer.text('Jobs shipped (owed)', { bold: true })
  // A month of only cancelled or rejected work is settled by a statement too: it says plainly that nothing is owed.
  if (content.owed.length === 0) writer.text('No job shipped this month: nothing is owed to the lab.')
  else table(content.owed, 'Shipped')
  writer.gap()
  writer.ensure(content.totals.length + 1)
  const totals: Column[] = [
    { x: 0, width: 360 },
    { x: 365, width: 150, align: 'right' },
  ]
  for (const total of content.totals) {
    writer.row(
      [
        { text: `Total owed to the lab (${total.currency}, ${total.jobs} jobs)`, bold: true },
        { text: `${total.total} ${total.currency}`, bold: true },
      ],
      totals,
    )
  }
  if (content.notOwed.length > 0) {
    writer.gap(LINE_HEIGHT)
    writer.ensure(3)
    writer.text('Handed over but cancelled or rejected (not owed)', { bold: true })
    table(content.notOwed, 'Closed')
  }
  writer.footers(`${title} (${content.labCode}, ${content.month})`, false)
  return pdf.save()
}
