import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  checkImportHeader,
  csvLine,
  type ImportHeader,
  importIdempotencyKey,
  orderRequestOf,
  resultsCsvLine,
  rowFailuresOf,
} from './order-imports.ts'

tier('pure')

const header = checkImportHeader([
  'merchantReference',
  'shippingMethod',
  'recipient.name',
  'recipient.address.line1',
  'recipient.address.countryCode',
  'metadata.source',
  'sku',
  'copies',
  'sizing',
  'attributes.wrap',
  'assets.default',
  'assets.back',
  'acceptUnverifiedAddress',
]) as ImportHeader

test('rows of one order become one create-order request: order fields from the first row, one item per row', () => {
  const request = orderRequestOf(header, [
    {
      row: 2,
      cells: [
        'A-1',
        'standard',
        'Ada',
        '1 Street',
        'GB',
        'fair',
        'SKU-1',
        '2',
        'fillPrintArea',
        'Black',
        'https://x/a.jpg',
        '',
        'TRUE',
      ],
    },
    {
      row: 3,
      cells: ['A-1', '', '', '', '', '', 'SKU-2', 'two', 'fitPrintArea', '', 'https://x/b.jpg', 'https://x/c.jpg', ''],
    },
  ])
  assert.deepEqual(request, {
    merchantReference: 'A-1',
    shippingMethod: 'standard',
    recipient: { name: 'Ada', address: { line1: '1 Street', countryCode: 'GB' } },
    metadata: { source: 'fair' },
    acceptUnverifiedAddress: true,
    idempotencyKey: 'csv:A-1',
    items: [
      {
        sku: 'SKU-1',
        copies: 2,
        sizing: 'fillPrintArea',
        attributes: { wrap: 'Black' },
        assets: [{ printArea: 'default', url: 'https://x/a.jpg' }],
      },
      {
        sku: 'SKU-2',
        // Not a number: left as written, for the schema to refuse with its type on this row's `copies`.
        copies: 'two',
        sizing: 'fitPrintArea',
        assets: [
          { printArea: 'default', url: 'https://x/b.jpg' },
          { printArea: 'back', url: 'https://x/c.jpg' },
        ],
      },
    ],
  })
})

test('the create failures land on the row and column they are about', () => {
  const rows = [
    { row: 2, cells: ['A-1', 'x', 'Ada', 'l', 'GB', '', 'SKU-1', '1', 'fillPrintArea', '', 'https://x/a.jpg', '', ''] },
    { row: 3, cells: ['A-1', '', '', '', '', '', 'SKU-2', '1', 'fillPrintArea', '', '', 'https://x/c.jpg', ''] },
  ]
  const request = orderRequestOf(header, rows)
  const failures = rowFailuresOf(request, rows, {
    shippingMethod: [{ code: 'InvalidValue', providedValue: 'x' }],
    'items[1].assets[0].url': [{ code: 'InvalidFormat', providedValue: 'ftp://y' }],
    'items[1].copies': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 0, comparisonValue: 1 }],
  })
  assert.deepEqual(
    failures.map((failure) => [failure.row, failure.field, failure.code]),
    [
      [2, 'shippingMethod', 'InvalidValue'],
      [3, 'assets.back', 'InvalidFormat'],
      [3, 'copies', 'MustBeGreaterThanOrEqualTo'],
    ],
  )
  const line = resultsCsvLine({ row: 2, merchantReference: 'A-1', outcome: 'Failed', orderId: null, failures })
  assert.equal(
    line,
    '2,A-1,Failed,,shippingMethod: InvalidValue (x); row 3 assets.back: InvalidFormat (ftp://y); row 3 copies: MustBeGreaterThanOrEqualTo (0)\r\n',
  )
})

test('a header in another delimiter, with an unknown or repeated column or without merchantReference is named', () => {
  assert.deepEqual(checkImportHeader(['merchantReference;sku;copies']), {
    field: 'delimiter',
    code: 'InvalidValue',
    providedValue: ';',
    comparisonValue: ',',
  })
  assert.equal((checkImportHeader(['merchantReference\tsku']) as { providedValue: string }).providedValue, '\t')
  assert.deepEqual(checkImportHeader(['merchantReference', 'recipient.adress.line1']), {
    field: 'recipient.adress.line1',
    code: 'UnknownField',
    providedValue: 'recipient.adress.line1',
  })
  assert.equal((checkImportHeader(['merchantReference', 'sku', 'sku']) as { code: string }).code, 'InvalidValue')
  assert.equal((checkImportHeader(['sku']) as { field: string }).field, 'merchantReference')
  assert.equal((checkImportHeader(undefined) as { field: string }).field, 'file')
  assert.ok('columns' in checkImportHeader([' merchantReference ', 'attributes.any name']))
})

test('the derived idempotency key stays within 200 characters', () => {
  assert.equal(importIdempotencyKey('FAIR-1'), 'csv:FAIR-1')
  const long = importIdempotencyKey('x'.repeat(200))
  assert.match(long, /^csv-sha256:[0-9a-f]{64}$/)
  assert.equal(long, importIdempotencyKey('x'.repeat(200)))
})

test('CSV fields are quoted when needed and formulas are neutralised', () => {
  assert.equal(csvLine(['a', 'b,c', 'say "hi"', '=SUM(A1)', '']), 'a,"b,c","say ""hi""",\'=SUM(A1),\r\n')
})
