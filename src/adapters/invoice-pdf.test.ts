import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { documentText, pageTextRuns } from '../../test/support/pdf-reading.ts'
import { tier } from '../../test/support/tiers.ts'
import { buildCharge, type ChargeLineDraft } from '../domain/charges.ts'
import {
  buildInvoiceContent,
  type InvoiceContent,
  type InvoiceSummary,
  SANDBOX_MARK,
  type Statement,
  statementTotals,
} from '../domain/invoices.ts'
import type { OrderDocument } from '../domain/order.ts'
import { renderInvoicePdf, renderStatementPdf } from './invoice-pdf.ts'

tier('pure')

/** An invoice for an order of `itemCount` items in one shipment, each item `copies` x 2.50 + 20% VAT. */
function invoiceOf(itemCount: number, environment: 'live' | 'sandbox' = 'live'): InvoiceContent {
  const items = Array.from({ length: itemCount }, (_, index) => ({
    id: `itm_${index + 1}`,
    sku: `SKU-${index + 1}`,
    copies: (index % 3) + 1,
  }))
  const order = {
    id: 'ord_77',
    merchantReference: 'big-order',
    shippingMethod: 'Standard',
    items,
    shipments: [{ id: 'shp_9' }],
  } as unknown as OrderDocument
  const drafts: ChargeLineDraft[] = [
    ...items.map((item) => ({
      key: `item:${item.id}`,
      itemId: item.id,
      shipmentId: 'shp_9',
      cost: 250n * BigInt(item.copies),
      tax: 50n * BigInt(item.copies),
    })),
    { key: 'shipping:shp_9', itemId: null, shipmentId: 'shp_9', cost: 995n, tax: 199n },
  ]
  const charge = buildCharge(drafts, 'GBP', { chargeId: 'chg_5', lineIds: drafts.map((_, i) => `chi_${i}`) }, true)
  return buildInvoiceContent({
    number: environment === 'live' ? 'INV-000042' : 'SBX-INV-000042',
    environment,
    issuedAt: new Date('2026-03-05T10:00:00Z'),
    seller: { name: 'Print Co Ltd', address: ['1 Press Lane', 'Leeds LS1 1AA'], taxNumber: 'GB123456789', email: null },
    buyer: { accountId: 'acc_3', name: 'Poster Shop' },
    order,
    charge,
    drafts,
    taxRate: { name: 'VAT', ratePercent: '20' },
    credits: [],
  })
}

describe('invoice PDFs', () => {
  test('an order of 100 items: every line on some page, tax by rate and the totals after the last', async () => {
    const content = invoiceOf(100)
    const pdf = await PDFDocument.load(await renderInvoicePdf(content))
    assert.ok(pdf.getPageCount() >= 2, `expected several pages, got ${pdf.getPageCount()}`)
    const text = documentText(pdf)
    for (let index = 1; index <= 100; index += 1) {
      const copies = ((index - 1) % 3) + 1
      assert.match(text, new RegExp(`^SKU-${index} x ${copies} \\(itm_${index}\\)$`, 'm'), `item ${index}`)
    }
    assert.match(text, /^Shipping shp_9 \(Standard\)$/m)
    // 100 items: 34 x 1 copy, 33 x 2, 33 x 3 = 199 copies x 2.50 = 497.50, + 9.95 shipping = 507.45; VAT 101.49.
    assert.equal(content.subtotal, '50745')
    assert.equal(content.totalTax, '10149')
    const last = pageTextRuns(pdf, pdf.getPageCount() - 1)
    const after = (label: string) => last[last.indexOf(label) + 1]
    assert.equal(after('Subtotal (before tax)'), '507.45')
    assert.equal(after('VAT at 20% on 507.45'), '101.49')
    assert.equal(after('Total tax'), '101.49')
    assert.equal(after('Total due (GBP)'), '608.94')
    assert.match(text, /^Print Co Ltd$/m)
    assert.match(text, /^Tax number: GB123456789$/m)
    assert.match(text, /^Poster Shop$/m)
    // Every page says which document it is part of, and where.
    for (let page = 0; page < pdf.getPageCount(); page += 1) {
      assert.ok(
        pageTextRuns(pdf, page).includes(`Invoice INV-000042 (ord_77)   page ${page + 1} of ${pdf.getPageCount()}`),
      )
    }
    assert.doesNotMatch(text, /Sandbox/)
  })

  test('Sandbox documents say they are not a bill on every page; the same content gives the same bytes', async () => {
    const content = invoiceOf(100, 'sandbox')
    const bytes = await renderInvoicePdf(content)
    const pdf = await PDFDocument.load(bytes)
    for (let page = 0; page < pdf.getPageCount(); page += 1) {
      assert.ok(pageTextRuns(pdf, page).includes(SANDBOX_MARK), `page ${page + 1}`)
    }
    assert.deepEqual(Buffer.from(await renderInvoicePdf(content)), Buffer.from(bytes))
  })

  test('a statement lists each document and its totals per currency', async () => {
    const document = (
      number: string,
      kind: 'Invoice' | 'CreditNote',
      cost: bigint,
      currency: string,
    ): InvoiceSummary => ({
      number,
      kind,
      environment: 'live',
      accountId: 3,
      orderNumber: 7,
      chargeId: 'chg_1',
      issuedAt: new Date('2026-03-05T10:00:00Z'),
      currency,
      totalCostMinor: cost,
      totalTaxMinor: cost / 6n,
    })
    const documents = [
      document('INV-000001', 'Invoice', 1200n, 'GBP'),
      document('INV-000002', 'Invoice', 600n, 'EUR'),
      document('CN-000001', 'CreditNote', -600n, 'GBP'),
    ]
    const statement: Statement = {
      accountId: 'acc_3',
      accountName: 'Poster Shop',
      environment: 'live',
      month: '2026-03',
      seller: { name: 'Print Co Ltd', address: [], taxNumber: null, email: null },
      documents,
      totals: statementTotals(documents),
    }
    assert.deepEqual(statement.totals, [
      { currency: 'EUR', invoiced: '6.00', credited: '0.00', tax: '1.00', net: '6.00' },
      { currency: 'GBP', invoiced: '12.00', credited: '-6.00', tax: '1.00', net: '6.00' },
    ])
    const runs = pageTextRuns(await PDFDocument.load(await renderStatementPdf(statement)), 0)
    for (const number of ['INV-000001', 'INV-000002', 'CN-000001']) assert.ok(runs.includes(number), number)
    assert.equal(runs[runs.indexOf('Net total (GBP)') + 1], '6.00')
    assert.equal(runs[runs.indexOf('Credited (GBP)') + 1], '-6.00')
    assert.equal(runs[runs.indexOf('Net total (EUR)') + 1], '6.00')
  })
})
