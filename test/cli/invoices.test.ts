// `printroute invoices seller` and `printroute accounts statement` as a user runs them (docs/operations.md,
// docs/billing.md#invoices): the seller shown, set and refused; a month's statement as CSV and as a PDF file.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { documentText } from '../support/pdf-reading.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-invoices-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('invoices seller: printroute until set, then the seller given; bad input refused naming the flag', async () => {
  const unset = await withData(['invoices', 'seller', '--json'])
  assert.equal(unset.code, 0, unset.stderr)
  assert.equal(JSON.parse(unset.stdout).name, 'printroute')
  assert.match(unset.stderr, /no seller is set/)

  const set = await withData([
    'invoices',
    'seller',
    '--name',
    'Print Co Ltd',
    '--address',
    '1 Press Lane',
    '--address',
    'Leeds LS1 1AA',
    '--tax-number',
    'GB123456789',
    '--email',
    'billing@print.example',
    '--json',
  ])
  assert.equal(set.code, 0, set.stderr)
  const expected = {
    name: 'Print Co Ltd',
    address: ['1 Press Lane', 'Leeds LS1 1AA'],
    taxNumber: 'GB123456789',
    email: 'billing@print.example',
  }
  assert.deepEqual(JSON.parse(set.stdout), expected)
  const shown = await withData(['invoices', 'seller', '--json'])
  assert.deepEqual(JSON.parse(shown.stdout), expected)

  const bad = await withData(['invoices', 'seller', '--name', 'X', '--email', 'not-an-address'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--email: must be an email address/)
  const noName = await withData(['invoices', 'seller', '--email', 'a@b.example'])
  assert.equal(noName.code, 2)
  assert.match(noName.stderr, /--name is required/)
})

test('accounts statement: CSV on stdout, PDF to a file; a bad month or account refused', async () => {
  const created = await withData(['accounts', 'create', '--name', 'Shop', '--json'])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  const csv = await withData(['accounts', 'statement', '--account', id, '--month', '2026-03'])
  assert.equal(csv.code, 0, csv.stderr)
  assert.equal(csv.stdout, 'number,kind,issuedAt,orderId,chargeId,currency,totalCost,totalTax\r\n')

  const output = join(dataDir, 'statement.pdf')
  const pdf = await withData([
    'accounts',
    'statement',
    '--account',
    id,
    '--month',
    '2026-03',
    '--format',
    'pdf',
    '--env',
    'sandbox',
    '--output',
    output,
  ])
  assert.equal(pdf.code, 0, pdf.stderr)
  assert.match(pdf.stdout, /statement\.pdf: 0 documents/)
  const text = documentText(await PDFDocument.load(readFileSync(output)))
  assert.match(text, /^Statement 2026-03$/m)
  assert.match(text, /^Shop$/m)
  assert.match(text, /^Sandbox - not a bill$/m)

  const badMonth = await withData(['accounts', 'statement', '--account', id, '--month', '2026-3'])
  assert.equal(badMonth.code, 2)
  assert.match(badMonth.stderr, /month must be YYYY-MM/)
  const badAccount = await withData(['accounts', 'statement', '--account', 'acc_999', '--month', '2026-03'])
  assert.equal(badAccount.code, 2)
  assert.match(badAccount.stderr, /No account acc_999/)
})
