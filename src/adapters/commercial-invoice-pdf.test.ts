import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { documentText, pageTextRuns } from '../../test/support/pdf-reading.ts'
import { tier } from '../../test/support/tiers.ts'
import {
  type CommercialInvoiceContent,
  commercialInvoiceKey,
  type DeclaredLine,
  EXPORT_REASON,
  parseCommercialInvoiceKey,
} from '../domain/commercial-invoice.ts'
import { COMMERCIAL_INVOICE_SANDBOX_MARK, renderCommercialInvoicePdf } from './commercial-invoice-pdf.ts'

tier('pure')

/** A DAP shipment from GB to the US of `count` lines, the last without HS code or weight. */
function contentOf(count: number, sandbox = false): CommercialInvoiceContent {
  const lines = Array.from(
    { length: count },
    (_, index): DeclaredLine => ({
      itemId: `ori_${index + 1}`,
      description: `Poster ${index + 1}`,
      hsCode: index === count - 1 ? null : '491191',
      originCountryCode: 'GB',
      copies: 2,
      unitValue: { amount: '5.00', currency: 'USD' },
      totalValue: { amount: '10.00', currency: 'USD' },
      valueSource: 'recipientCost',
      weightGrams: index === count - 1 ? null : 150,
    }),
  )
  return {
    orderId: 'ord_7',
    shipmentId: 'shp_9',
    date: '2026-03-04',
    sender: { name: 'Poster lab, Leeds', countryCode: 'GB' },
    recipient: {
      name: 'Grace Hopper',
      email: null,
      phoneNumber: null,
      address: {
        line1: '1 Main St',
        line2: null,
        postalOrZipCode: '10001',
        countryCode: 'US',
        townOrCity: 'New York',
        stateOrCounty: 'NY',
      },
    },
    declaration: {
      originCountryCode: 'GB',
      destinationCountryCode: 'US',
      incoterm: 'DAP',
      eoriNumber: 'GB123456789000',
      lines,
      totalValue: { amount: `${count * 10}.00`, currency: 'USD' },
      totalWeightGrams: null,
    },
    reason: EXPORT_REASON,
    sandbox,
  }
}

test('the key names one shipment of one order; anything else is no commercial invoice', () => {
  assert.equal(commercialInvoiceKey('ord_7', 'shp_9'), 'commercial-invoices/ord_7/shp_9.pdf')
  assert.deepEqual(parseCommercialInvoiceKey('commercial-invoices/ord_7/shp_9.pdf'), {
    orderId: 'ord_7',
    shipmentId: 'shp_9',
  })
  for (const other of [
    'commercial-invoices/ord_7/shp_9',
    'commercial-invoices/ord_7/../shp_9.pdf',
    'commercial-invoices/shp_9/ord_7.pdf',
    'invoices/ord_7/shp_9.pdf',
    'commercial-invoices/ord_7/shp_9.pdf/x',
  ]) {
    assert.equal(parseCommercialInvoiceKey(other), undefined, other)
  }
})

test('many lines run over pages with the table header on each; no HS code or weight is said so', async () => {
  const pdf = await PDFDocument.load(await renderCommercialInvoicePdf(contentOf(70)))
  assert.ok(pdf.getPageCount() >= 2, `${pdf.getPageCount()} pages`)
  for (let page = 0; page < pdf.getPageCount(); page += 1) {
    const runs = pageTextRuns(pdf, page)
    assert.ok(runs.includes('HS code'), `the header on page ${page + 1}`)
    assert.ok(runs.includes(`Commercial invoice shp_9   page ${page + 1} of ${pdf.getPageCount()}`))
  }
  const lines = documentText(pdf).split('\n')
  for (const expected of ['Incoterm: DAP   From GB to US', 'EORI number: GB123456789000', 'Total weight: not known']) {
    assert.ok(lines.includes(expected), expected)
  }
  assert.ok(!lines.some((line) => line.startsWith('IOSS number')), 'no IOSS number was given')
  assert.ok(lines.includes('Poster 70') && lines.includes('none given'))
  assert.ok(!lines.includes(COMMERCIAL_INVOICE_SANDBOX_MARK))
})

test('a Sandbox invoice says it is not for a real shipment; the same content gives the same bytes', async () => {
  const first = await renderCommercialInvoicePdf(contentOf(1, true))
  assert.ok(
    documentText(await PDFDocument.load(first))
      .split('\n')
      .includes(COMMERCIAL_INVOICE_SANDBOX_MARK),
  )
  assert.deepEqual(Buffer.from(await renderCommercialInvoicePdf(contentOf(1, true))), Buffer.from(first))
})
