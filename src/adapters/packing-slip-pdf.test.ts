import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { PDFDocument, StandardFonts } from 'pdf-lib'
import { documentText, pageTextRuns, placedTextRuns, qrCodesOnPage } from '../../test/support/pdf-reading.ts'
import { tier } from '../../test/support/tiers.ts'
import type { PackingSlipContent } from '../domain/packing-slip.ts'
import { PACKING_SLIP_PAGE_SIZE, renderPackingSlipPdf } from './packing-slip-pdf.ts'

tier('pure')

function slip(overrides: Partial<PackingSlipContent> = {}): PackingSlipContent {
  return {
    orderId: 'ord_1042',
    merchantReference: 'MR-77',
    shipmentId: 'shp_381',
    shippingMethod: 'Standard',
    carrier: { name: 'Royal Mail', service: 'Tracked 48' },
    recipient: {
      name: 'Ada Lovelace',
      email: null,
      phoneNumber: null,
      address: {
        line1: '12 St James Square',
        line2: 'Flat 3',
        postalOrZipCode: 'SW1Y 4JH',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: null,
      },
    },
    items: [
      { itemId: 'itm_1', merchantReference: 'poster-a', sku: 'GLOBAL-FAP-16x24', copies: 2, attributes: {} },
      {
        itemId: 'itm_2',
        merchantReference: null,
        sku: 'GLOBAL-CAN-10x10',
        copies: 1,
        attributes: { wrap: 'Black' },
      },
    ],
    ...overrides,
  }
}

/**
 * Fails when any text of the document leaves the page's 40-point margins, or a line of the first page's header
 * runs into the QR code (100 points in the top right corner), measured with the fonts the slip uses.
 */
async function assertEverythingOnThePage(pdf: PDFDocument): Promise<void> {
  const measuring = await PDFDocument.create()
  const regular = await measuring.embedFont(StandardFonts.Helvetica)
  const bold = await measuring.embedFont(StandardFonts.HelveticaBold)
  const { width, height } = PACKING_SLIP_PAGE_SIZE
  let checked = 0
  for (let index = 0; index < pdf.getPageCount(); index += 1) {
    for (const run of placedTextRuns(pdf, index)) {
      const font = run.fontName.startsWith('Helvetica-Bold') ? bold : regular
      const right = run.x + font.widthOfTextAtSize(run.text, run.size)
      assert.ok(run.x >= 40 && run.y >= 40 && run.y + run.size <= height - 40, `${run.text} at ${run.x},${run.y}`)
      assert.ok(right <= width - 40, `${run.text} ends at ${right}`)
      if (index === 0 && run.y + run.size > height - 40 - 100) {
        assert.ok(right <= width - 40 - 100, `${run.text} runs into the QR code (ends at ${right})`)
      }
      checked += 1
    }
  }
  assert.ok(checked > 10, `${checked} text runs checked`)
}

describe('the packing slip PDF', () => {
  test('is one A4 page with the order, the shipment, the recipient, every item, and a QR code of the shipment', async () => {
    const pdf = await PDFDocument.load(await renderPackingSlipPdf(slip()))
    assert.equal(pdf.getPageCount(), 1)
    const { width, height } = pdf.getPage(0).getSize()
    assert.deepEqual([width, height], [PACKING_SLIP_PAGE_SIZE.width, PACKING_SLIP_PAGE_SIZE.height])
    assert.deepEqual([Math.round(width), Math.round(height)], [595, 842], 'A4 in points')
    const text = documentText(pdf)
    for (const expected of [
      'Order ord_1042',
      'Merchant reference: MR-77',
      'Shipment shp_381',
      'Standard: Royal Mail Tracked 48',
      'Ada Lovelace',
      '12 St James Square',
      'Flat 3',
      'London',
      'SW1Y 4JH  GB',
      '1/2  GLOBAL-FAP-16x24  x 2',
      'Item itm_1   Merchant reference: poster-a',
      '2/2  GLOBAL-CAN-10x10  x 1',
      'Item itm_2',
      'wrap: Black',
      'shp_381 (ord_1042)   page 1 of 1',
    ]) {
      assert.ok(text.split('\n').includes(expected), `missing line ${JSON.stringify(expected)} in\n${text}`)
    }
    assert.deepEqual(qrCodesOnPage(pdf, 0), ['shp_381'])
    await assertEverythingOnThePage(pdf)
  })

  test('long texts are cut with an ellipsis to the page width; other scripts are drawn as ?', async () => {
    const long = 'W'.repeat(300)
    const pdf = await PDFDocument.load(
      await renderPackingSlipPdf(
        slip({
          merchantReference: long,
          recipient: { ...slip().recipient, name: 'Лавлейс Ада' },
          items: [{ itemId: 'itm_1', merchantReference: null, sku: 'SKU-1', copies: 1, attributes: { note: long } }],
        }),
      ),
    )
    await assertEverythingOnThePage(pdf)
    const lines = documentText(pdf).split('\n')
    const reference = lines.find((line) => line.startsWith('Merchant reference: W'))
    assert.ok(reference?.endsWith('...'), reference)
    assert.ok((reference?.length ?? 0) < 100, 'cut to the width left of the QR code')
    const note = lines.find((line) => line.startsWith('note: W'))
    assert.ok(note?.endsWith('...'), note)
    assert.ok((note?.length ?? 0) > (reference?.length ?? 0), 'items have the full width')
    assert.ok(lines.includes('??????? ???'), lines.join('\n'))
  })

  test('items that do not fit on one page continue on the next, each page numbered', async () => {
    const items = Array.from({ length: 100 }, (_, index) => ({
      itemId: `itm_${index + 1}`,
      merchantReference: null,
      sku: `SKU-${index + 1}`,
      copies: 1,
      attributes: { colour: 'red', size: 'large' },
    }))
    const pdf = await PDFDocument.load(await renderPackingSlipPdf(slip({ items })))
    const pages = pdf.getPageCount()
    assert.ok(pages > 1, `${pages} pages`)
    for (let index = 0; index < pages; index += 1) {
      assert.ok(pageTextRuns(pdf, index).includes(`shp_381 (ord_1042)   page ${index + 1} of ${pages}`))
    }
    const text = documentText(pdf).split('\n')
    for (const item of items) assert.ok(text.includes(`Item ${item.itemId}`), item.itemId)
    assert.ok(text.includes('100/100  SKU-100  x 1'))
    assert.deepEqual(qrCodesOnPage(pdf, 0), ['shp_381'], 'the QR code is on the first page')
    await assertEverythingOnThePage(pdf)
  })
})
