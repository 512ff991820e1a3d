// `printroute orders import FILE`: a CSV file through a running printroute's API (workers on, so the
// run-order-import job runs), its progress to the end, the failed rows listed and the exit code.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { importTemplateCsv } from '../../src/domain/order-imports.ts'
import { printroute } from '../support/cli.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

describe('printroute orders import', () => {
  let t: TestApp
  let sandboxUrl: string
  let dir: string

  before(async () => {
    t = await startTestApp({ workers: true, realClock: true })
    sandboxUrl = (await listenOnLoopback(t)).sandbox
    dir = mkdtempSync(join(tmpdir(), 'printroute-import-'))
  })
  after(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const run = (...args: string[]) =>
    printroute(['orders', 'import', ...args, '--poll-interval', '200ms'], {
      PRINTROUTE_API_KEY: t.account.sandboxKey,
      PRINTROUTE_BASE_URL: sandboxUrl,
    })

  test('imports the file with a progress bar, exits 0; a file with a bad row lists it and exits 1', async () => {
    const good = join(dir, 'good.csv')
    writeFileSync(good, importTemplateCsv())
    const result = await run(good)
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /^imp_\d+ {2}Completed {2}2\/2 rows {2}1 created {2}0 failed {2}0 duplicates$/m)
    assert.match(result.stderr, /\[#{30}\] {2}2\/2 rows/)

    const bad = join(dir, 'bad.csv')
    writeFileSync(bad, importTemplateCsv().replace('FAIR-0001', 'FAIR-0002').replaceAll('GLOBAL-CAN-10x10', 'NO-SKU'))
    const failed = await run(bad)
    assert.equal(failed.code, 1, failed.stdout)
    assert.match(failed.stdout, /^ {2}2,FAIR-0002,Failed,,sku: UnknownSku \(NO-SKU\)/m)
  })

  test('--approval manual creates the orders as drafts; another mode is a usage error before any upload', async () => {
    const drafts = join(dir, 'drafts.csv')
    writeFileSync(drafts, importTemplateCsv().replaceAll('FAIR-0001', 'DRAFT-0001'))
    const wrong = await run(drafts, '--approval', 'sometimes')
    assert.equal(wrong.code, 2, wrong.stderr)
    assert.match(wrong.stderr, /--approval must be one of automatic, manual/)
    const result = await run(drafts, '--approval', 'manual', '--json')
    assert.equal(result.code, 0, result.stderr)
    assert.equal(JSON.parse(result.stdout).approval, 'manual')
    const listed = await t.sandbox({ method: 'GET', url: '/v4.0/orders?merchantReferences=DRAFT-0001' })
    const orders = JSON.parse(listed.body).orders
    assert.equal(orders.length, 1, listed.body)
    assert.equal(orders[0].draft, true)
  })

  test('a file the server refuses says why and exits 1', async () => {
    const semicolons = join(dir, 'semicolons.csv')
    writeFileSync(semicolons, 'merchantReference;sku\r\nA;B\r\n')
    const result = await run(semicolons)
    assert.equal(result.code, 1)
    assert.match(result.stderr, /POST \/v4\.0\/orders\/imports: /)
  })
})
