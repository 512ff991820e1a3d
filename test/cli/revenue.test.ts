// `printroute revenue` as a user runs it (docs/billing.md#revenue-and-margin, docs/operations.md): the figures of
// a data directory's Live documents and hand-offs as a table per currency and as CSV, Sandbox kept out, and bad
// dates or groupings refused with the flag named and exit code 2.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { openDatabase } from '../../src/app.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { insertHandoff } from '../support/shipment-costs.fixture.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

/** A document as a charge writes it: only what revenue reads is filled in beyond the columns. */
function content(lines: { kind: string; sku: string | null; shipmentId: string; cost: string }[]) {
  return JSON.stringify({ lines: lines.map((line) => ({ ...line, tax: '0' })) })
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-revenue-'))
  cli = startCliSession()
  const created = await withData(['accounts', 'create', '--name', 'Shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const accountId = Number(String(JSON.parse(created.stdout).id).slice(4))
  // Two orders' rows written straight into the data directory (the CLI has closed it): a Live one with an invoice,
  // a credit note and a hand-off; a Sandbox one with an invoice that must never count.
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  try {
    const db = opened.db
    const at = new Date('2026-11-02T10:00:00Z')
    for (const [order, environment] of [
      [900001, 'live'],
      [900002, 'sandbox'],
    ] as const) {
      await db.query(
        `INSERT INTO orders (id, account_id, environment, stage, created_at, last_updated, document)
         VALUES ($1, $2, $3, 'InProgress', $4, $4, '{}')`,
        [order, accountId, environment, at],
      )
    }
    const document = async (row: {
      number: string
      series: string
      kind: string
      environment: string
      order: number
      issuedAt: Date
      totalMinor: number
      content: string
    }) => {
      await db.query(
        `INSERT INTO invoices (number, series, sequence, kind, environment, account_id, order_id, charge_id, issued_at,
                               currency, total_cost_minor, total_tax_minor, content)
         VALUES ($1, $2, 1, $3, $4, $5, $6, $1, $7, 'GBP', $8, 0, $9)`,
        [
          row.number,
          row.series,
          row.kind,
          row.environment,
          accountId,
          row.order,
          row.issuedAt,
          row.totalMinor,
          row.content,
        ],
      )
    }
    await document({
      number: 'INV-000001',
      series: 'INV',
      kind: 'Invoice',
      environment: 'live',
      order: 900001,
      issuedAt: at,
      totalMinor: 3000,
      content: content([
        { kind: 'Item', sku: 'MUG', shipmentId: 'shp_7', cost: '2500' },
        { kind: 'Shipping', sku: null, shipmentId: 'shp_7', cost: '500' },
      ]),
    })
    await document({
      number: 'CN-000001',
      series: 'CN',
      kind: 'CreditNote',
      environment: 'live',
      order: 900001,
      issuedAt: new Date('2026-11-20T10:00:00Z'),
      totalMinor: -500,
      content: content([{ kind: 'Shipping', sku: null, shipmentId: 'shp_7', cost: '-500' }]),
    })
    await document({
      number: 'SBX-INV-000001',
      series: 'SBX-INV',
      kind: 'Invoice',
      environment: 'sandbox',
      order: 900002,
      issuedAt: at,
      totalMinor: 99900,
      content: content([{ kind: 'Item', sku: 'MUG', shipmentId: 'shp_8', cost: '99900' }]),
    })
    await insertHandoff(db, {
      accountId,
      orderNumber: 900001,
      shipmentId: 'shp_7',
      labCode: 'LAB-B',
      handedAt: new Date('2026-11-02T11:00:00Z'),
      costInPriceCurrencyMinor: 1200n,
    })
  } finally {
    await opened.close()
  }
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('revenue: a table per currency by week, the same figures as CSV by product; Sandbox never counts', async () => {
  const byWeek = await withData(['revenue', '--from', '2026-11-01', '--to', '2026-12-01', '--by', 'week'])
  assert.equal(byWeek.code, 0, byWeek.stderr)
  const lines = byWeek.stdout.trimEnd().split('\n')
  assert.equal(lines[0], 'GBP')
  assert.match(lines[1] ?? '', /^week\s+orders\s+revenue\s+refunds\s+net revenue\s+lab cost\s+margin\s+rate$/)
  assert.deepEqual(
    lines.slice(2).map((line) => line.split(/\s+/)),
    [
      ['2026-W45', '1', '30.00', '0.00', '30.00', '12.00', '18.00', '60.0%'],
      ['2026-W47', '1', '0.00', '5.00', '-5.00', '0.00', '-5.00', '-'],
      ['Total', '1', '30.00', '5.00', '25.00', '12.00', '13.00', '52.0%'],
    ],
  )

  const csv = await withData(['revenue', '--from', '2026-11-01', '--to', '2026-12-01', '--by', 'product', '--csv'])
  assert.equal(csv.code, 0, csv.stderr)
  assert.equal(
    csv.stdout,
    'currency,product,orders,revenue,refunds,netRevenue,labCost,margin,marginRate\r\n' +
      'GBP,MUG,1,30.00,5.00,25.00,12.00,13.00,52.0%\r\n' +
      'GBP,Total,1,30.00,5.00,25.00,12.00,13.00,52.0%\r\n',
  )

  const october = await withData(['revenue', '--from', '2026-10-01', '--to', '2026-11-01', '--json'])
  assert.equal(october.code, 0, october.stderr)
  assert.deepEqual(JSON.parse(october.stdout), { from: '2026-10-01', to: '2026-11-01', by: 'month', currencies: [] })
})

test('revenue: bad dates, a range the wrong way round or too long, and an unknown grouping exit 2 naming the flag', async () => {
  const cases: [string[], RegExp][] = [
    [['--from', '2026-13-01', '--to', '2026-12-01'], /--from must be a date as YYYY-MM-DD/],
    [['--from', '2026-11-01', '--to', 'next week'], /--to must be a date as YYYY-MM-DD .*got "next week"/],
    [['--to', '2026-12-01'], /--from is required/],
    [['--from', '2026-12-01', '--to', '2026-11-01'], /--to must be after from/],
    [['--from', '2025-01-01', '--to', '2026-12-01'], /--to must be at most 366 days after from/],
    [['--from', '2026-11-01', '--to', '2026-12-01', '--by', 'year'], /--by must be one of day, week, month/],
  ]
  for (const [args, message] of cases) {
    const result = await withData(['revenue', ...args])
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
    assert.match(result.stderr, message)
    assert.equal(result.stdout, '')
  }
})
