// `printroute labs statement` as an operator runs it (docs/admin.md, docs/billing.md#lab-payables-statements): a
// lab's month of shipped Live work issued as a numbered self-billing statement, written as PDF and CSV; the same
// month again is the same statement (issued once, audited once); an unfinished month, a month with nothing settled
// and an unknown lab refused.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { openDatabase } from '../../src/app/database.ts'
import { loadCatalogue } from '../../src/catalogue/catalogue.loader.ts'
import { insertShipmentCost, settleShipmentCosts } from '../../src/repositories/shipment-costs.repository.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { documentText } from '../support/pdf-reading.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])
const lab = loadCatalogue().labs[0]?.code as string

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-lab-statement-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** Two jobs of `lab` handed over and shipped in January 2025, one cancelled: written as the pipeline would. */
async function seed(accountId: number): Promise<void> {
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  try {
    const now = new Date('2025-01-10T10:00:00Z')
    await opened.db.query(
      `INSERT INTO orders (id, account_id, environment, stage, created_at, last_updated, document)
       VALUES (1, $1, 'live', 'Complete', $2, $2, '{}')`,
      [accountId, now],
    )
    for (const [shipment, outcome, production] of [
      [1, 'Shipped', 1200n],
      [2, 'Shipped', 800n],
      [3, 'Cancelled', 500n],
    ] as const) {
      await opened.db.transaction(async (tx) => {
        await insertShipmentCost(tx, {
          handoffKey: `shp_${shipment}:Original:${lab}`,
          shipmentNumber: shipment,
          orderNumber: 1,
          accountId,
          environment: 'live',
          labCode: lab,
          kind: 'Original',
          handedAt: now,
          catalogueVersion: 1,
          labCurrency: 'GBP',
          productionCostMinor: production,
          shippingCostMinor: 350n,
          priceCurrency: 'GBP',
          priceItemsMinor: production,
          priceShippingMinor: 350n,
          costInPriceCurrencyMinor: production + 350n,
        })
        await settleShipmentCosts(tx, shipment, outcome, new Date(`2025-01-2${shipment}T09:00:00Z`))
      })
    }
  } finally {
    await opened.close()
  }
}

test('labs statement: issued once per month with its PDF and CSV; refusals name what is wrong', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  await seed(Number(String(JSON.parse(created.stdout).id).replace('acc_', '')))

  const pdfFile = join(dataDir, 'statement.pdf')
  const csvFile = join(dataDir, 'statement.csv')
  const issued = await withData([
    'labs',
    'statement',
    '--lab',
    lab,
    '--month',
    '2025-01',
    '--pdf',
    pdfFile,
    '--csv',
    csvFile,
  ])
  assert.equal(issued.code, 0, issued.stderr)
  const number = `SB-${lab.toUpperCase()}-000001`
  // 12.00 + 3.50 and 8.00 + 3.50 owed; the cancelled job listed, not owed.
  assert.equal(
    issued.stdout,
    `${number}\t${lab}\t2025-01\t2 jobs owed\t27.00 GBP\t1 not owed (cancelled or rejected)\n`,
  )
  const csv = readFileSync(csvFile, 'utf8').split('\r\n')
  assert.deepEqual(
    csv.slice(1, 4).map((line) => line.split(',').slice(1, 2).concat(line.split(',').slice(7))),
    [
      ['shp_1', 'yes', 'GBP', '12.00', '3.50', '15.50'],
      ['shp_2', 'yes', 'GBP', '8.00', '3.50', '11.50'],
      ['shp_3', 'no', 'GBP', '5.00', '3.50', '8.50'],
    ],
  )
  assert.equal(csv[4], `${number},Total,,,,,,yes,GBP,20.00,7.00,27.00`)
  const text = documentText(await PDFDocument.load(readFileSync(pdfFile)))
  assert.match(text, new RegExp(`Self-billing statement ${number}`))
  assert.match(text, /27\.00 GBP/)
  assert.match(text, /Seller \(the lab\)/)

  const again = await withData(['labs', 'statement', '--lab', lab, '--month', '2025-01', '--json'])
  assert.equal(again.code, 0, again.stderr)
  assert.deepEqual(
    [JSON.parse(again.stdout).number, JSON.parse(again.stdout).issued],
    [number, false],
    'the same month is the same statement',
  )
  // Issued once, audited once: as the command line's, with what the statement holds.
  const audit = await withData(['audit', 'list', '--action', 'lab.statementIssued', '--json'])
  assert.equal(audit.code, 0, audit.stderr)
  const { entries } = JSON.parse(audit.stdout) as { entries: { target: string; actor: unknown }[] }
  assert.deepEqual(
    entries.map((entry) => entry.target),
    [number],
  )
  assert.match(JSON.stringify(entries[0]?.actor), /cli/)

  for (const [args, message] of [
    [['--lab', lab, '--month', '2025-02'], /shipped no Live work in 2025-02/],
    [['--lab', lab, '--month', '2999-01'], /has not ended yet/],
    [['--lab', lab, '--month', 'January'], /month must be YYYY-MM/],
    [['--lab', 'nolab', '--month', '2025-01'], /No lab nolab/],
  ] as const) {
    const refused = await withData(['labs', 'statement', ...args])
    assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`)
    assert.match(refused.stderr, message)
  }
})
