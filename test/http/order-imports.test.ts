// CSV order imports (docs/imports.md): POST /v4.0/orders/imports, the run-order-import job (run here by hand, as the
// queue would), GET of the import, its results.csv, the list and the template; bad files and a run that dies.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { CsvReadError, readCsvHeader, readCsvRecords } from '../../src/adapters/csv-rows.ts'
import { parseId } from '../../src/domain/ids.ts'
import { importTemplateCsv, MAX_IMPORT_BYTES } from '../../src/domain/order-imports.ts'
import { createOrderRequestCheck } from '../../src/http/validation.ts'
import { createOrderImportsService, type OrderImportsDeps } from '../../src/services/order-imports.service.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const HEADER =
  'merchantReference,shippingMethod,recipient.name,recipient.address.line1,recipient.address.postalOrZipCode,' +
  'recipient.address.countryCode,recipient.address.townOrCity,sku,copies,sizing,attributes.wrap,assets.default'

function row(reference: string, overrides: { sku?: string; copies?: string; line1?: string } = {}): string {
  const line1 = overrides.line1 ?? '14 Test Street'
  return [
    reference,
    'standard',
    'Ada Lovelace',
    line1,
    'EC1A 1BB',
    'GB',
    'London',
    overrides.sku ?? 'GLOBAL-CAN-10x10',
    overrides.copies ?? '1',
    'fillPrintArea',
    'ImageWrap',
    'https://images.example.com/canvas.jpg',
  ].join(',')
}

function csv(...lines: string[]): string {
  return `${lines.join('\r\n')}\r\n`
}

for (const kind of databaseKinds) {
  describe(`CSV order imports (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    const upload = (body: string | Buffer, key?: string | null, contentType = 'text/csv') =>
      t.sandbox(
        { method: 'POST', url: '/v4.0/orders/imports', headers: { 'content-type': contentType }, payload: body },
        key,
      )

    /** Uploads, runs the job as the queue would, and answers the finished import. */
    async function importFile(body: string | Buffer): Promise<Record<string, any>> {
      const response = await upload(body)
      assert.equal(response.statusCode, 200, response.body)
      const created = json(response).import
      assert.equal(created.status, 'Pending')
      await t.app.services.orderImports.runImport(parseId('imp', created.id) as number)
      const read = await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${created.id}` })
      assert.equal(read.statusCode, 200)
      return json(read).import
    }

    async function results(id: string): Promise<string[][]> {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${id}/results.csv` })
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), /^text\/csv/)
      return response.body
        .trim()
        .split('\r\n')
        .map((line) => line.split(','))
    }

    test('approval=manual creates every order as a draft and shows it on the import; a bad value is 400', async () => {
      const refused = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders/imports?approval=later',
        headers: { 'content-type': 'text/csv' },
        payload: csv(HEADER, row('DRAFT-0')),
      })
      assert.equal(refused.statusCode, 400, refused.body)
      assert.match(refused.body, /approval/)
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders/imports?approval=manual',
        headers: { 'content-type': 'text/csv' },
        payload: csv(HEADER, row('DRAFT-1'), row('DRAFT-2')),
      })
      assert.equal(response.statusCode, 200, response.body)
      const created = json(response).import
      assert.equal(created.approval, 'manual')
      await t.app.services.orderImports.runImport(parseId('imp', created.id) as number)
      const done = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${created.id}` })).import
      assert.equal(done.ordersCreated, 2, JSON.stringify(done))
      assert.equal(done.approval, 'manual')
      for (const [, , , orderId] of (await results(created.id)).slice(1)) {
        const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` })).order
        assert.equal(order.draft, true, orderId)
      }
      const plain = await importFile(csv(HEADER, row('PLAIN-1')))
      assert.equal(plain.approval, 'automatic')
      const [, , , plainId] = (await results(plain.id))[1] ?? []
      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${plainId}` })).order
      assert.equal(order.draft, undefined)
    })

    test('rows grouped by merchantReference become orders; a bad row fails alone; a re-upload creates nothing', async () => {
      const file = csv(
        `\uFEFF${HEADER}`,
        row('FAIR-1'),
        row('FAIR-1', { copies: '3' }),
        row('FAIR-2', { sku: 'NO-SUCH-SKU' }),
        row('', {}),
        row('FAIR-3', { line1: '"Flat 2, ""The Old Mill"""' }),
      )
      const done = await importFile(file)
      assert.equal(done.status, 'Completed')
      assert.equal(done.rowsRead, 5)
      assert.equal(done.ordersCreated, 2)
      assert.equal(done.rowsFailed, 2)
      assert.equal(done.duplicatesSkipped, 0)
      assert.ok(done.finishedAt)

      const lines = await results(done.id)
      assert.deepEqual(lines[0], ['row', 'merchantReference', 'outcome', 'orderId', 'errors'])
      const [fair1a, fair1b, fair2, blank, fair3] = lines.slice(1)
      assert.equal(fair1a?.[2], 'Created')
      assert.equal(fair1a?.[3], fair1b?.[3], 'both rows are one order')
      assert.equal(fair2?.[2], 'Failed')
      assert.match(fair2?.[4] ?? '', /^sku: UnknownSku \(NO-SUCH-SKU\)/)
      assert.equal(blank?.[2], 'Failed')
      assert.equal(blank?.[4], 'merchantReference: Required')
      assert.equal(fair3?.[2], 'Created')

      const order = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${fair1a?.[3]}` })).order
      assert.equal(order.merchantReference, 'FAIR-1')
      assert.deepEqual(
        order.items.map((item: { copies: number }) => item.copies),
        [1, 3],
      )
      const quoted = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${fair3?.[3]}` })).order
      assert.equal(quoted.recipient.address.line1, 'Flat 2, "The Old Mill"')

      const again = await importFile(file)
      assert.equal(again.ordersCreated, 0)
      assert.equal(again.duplicatesSkipped, 2)
      assert.equal(again.rowsFailed, 2)
      const againLines = await results(again.id)
      assert.equal(againLines[1]?.[2], 'Duplicate')
      assert.equal(againLines[1]?.[3], fair1a?.[3])
    })

    test('an order whose rows are not consecutive: the later rows fail naming merchantReference', async () => {
      const done = await importFile(csv(HEADER, row('SPLIT-1'), row('SPLIT-2'), row('SPLIT-1')))
      assert.equal(done.ordersCreated, 2)
      assert.equal(done.rowsFailed, 1)
      const lines = await results(done.id)
      assert.equal(lines[3]?.[2], 'Failed')
      assert.match(lines[3]?.[4] ?? '', /^merchantReference: InvalidValue/)
    })

    test('bad files are refused at once naming why, and nothing is kept', async () => {
      const cases: [string, string, string][] = [
        ['', 'body', 'Required'],
        [csv(HEADER.replaceAll(',', ';'), row('X').replaceAll(',', ';')), 'delimiter', 'InvalidValue'],
        [csv(HEADER.replaceAll(',', '\t'), row('X').replaceAll(',', '\t')), 'delimiter', 'InvalidValue'],
        [csv(`${HEADER},recipient.adress.line2`, `${row('X')},x`), 'recipient.adress.line2', 'UnknownField'],
        [csv('sku,copies', 'GLOBAL-CAN-10x10,1'), 'merchantReference', 'Required'],
      ]
      for (const [body, field, code] of cases) {
        const response = await upload(body)
        assert.equal(response.statusCode, 400, `${field}: ${response.body}`)
        const error = json(response)
        assert.equal(error.outcome, 'ValidationFailed')
        assert.equal(error.failures[field]?.[0]?.code, code, response.body)
      }
      const wrongType = await upload('{}', undefined, 'application/json')
      assert.equal(wrongType.statusCode, 415)
    })

    test('a body over the limit is 413 in the error body', async () => {
      const response = await upload(Buffer.alloc(MAX_IMPORT_BYTES + 1, 0x61))
      assert.equal(response.statusCode, 413)
      assert.equal(json(response).outcome, 'PayloadTooLarge')
    })

    test("another account's import is 404, and the list pages with a cursor", async () => {
      const first = json(await upload(csv(HEADER, row('LIST-1')))).import
      const second = json(await upload(csv(HEADER, row('LIST-2')))).import
      const other = await t.createAccount()
      const foreign = await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${first.id}` }, other.sandboxKey)
      assert.equal(foreign.statusCode, 404)
      const foreignResults = await t.sandbox(
        { method: 'GET', url: `/v4.0/orders/imports/${first.id}/results.csv` },
        other.sandboxKey,
      )
      assert.equal(foreignResults.statusCode, 404)
      const live = await t.live({ method: 'GET', url: `/v4.0/orders/imports/${first.id}` })
      assert.equal(live.statusCode, 404, 'the other environment does not see it')

      const page = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders/imports?top=1' }))
      assert.deepEqual(
        page.imports.map((entry: { id: string }) => entry.id),
        [second.id],
      )
      assert.equal(page.hasMore, true)
      const next = new URL(page.nextUrl)
      const older = json(await t.sandbox({ method: 'GET', url: `${next.pathname}${next.search}` }))
      assert.equal(older.imports[0].id, first.id)
    })

    test('the template lists every column and imports as it is', async () => {
      const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders/imports/template.csv' })
      assert.equal(response.statusCode, 200)
      assert.equal(response.body, importTemplateCsv())
      const done = await importFile(response.body)
      assert.equal(done.ordersCreated, 1, JSON.stringify(await results(done.id)))
      assert.equal(done.rowsFailed, 0)
    })

    test('a run that dies half-way runs again without creating any order twice', async () => {
      const lines = [HEADER]
      for (let index = 1; index <= 150; index++) lines.push(row(`CRASH-${index}`))
      const created = json(await upload(csv(...lines))).import
      const importId = parseId('imp', created.id) as number
      const orders = t.app.services.orders
      let calls = 0
      const dying = createOrderImportsService({
        ...importDepsOf(t),
        orders: {
          createOrder: async (...args: Parameters<typeof orders.createOrder>) => {
            calls += 1
            const answer = await orders.createOrder(...args)
            if (calls === 120) throw new Error('the process died')
            return answer
          },
        },
      })
      await assert.rejects(dying.runImport(importId), /the process died/)
      const halfway = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${created.id}` })).import
      assert.equal(halfway.status, 'Running')
      assert.ok(halfway.rowsRead >= 100 && halfway.rowsRead < 150, `rows read ${halfway.rowsRead}`)

      await t.app.services.orderImports.runImport(importId)
      const done = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/imports/${created.id}` })).import
      assert.equal(done.status, 'Completed')
      assert.equal(done.rowsRead, 150)
      assert.equal(done.rowsFailed, 0)
      // The order whose create the crash interrupted before it was recorded is answered by its key: a duplicate.
      assert.equal(done.ordersCreated + done.duplicatesSkipped, 150)
      assert.ok(done.duplicatesSkipped <= 1)
      const count = await t.database.db.query<{ count: string | number }>(
        "SELECT count(*) AS count FROM orders WHERE merchant_reference LIKE 'CRASH-%'",
      )
      assert.equal(Number(count[0]?.count), 150)
    })
  })
}

/** The service's dependencies as the application builds them (the test swaps the orders service). */
function importDepsOf(t: TestApp): Omit<OrderImportsDeps, 'orders'> {
  const files = t.app.services.files
  return {
    db: t.database.db,
    clock: t.clock,
    jobs: t.app.jobs,
    files,
    async *readRecords(blobKey, maxFieldCharacters) {
      yield* readCsvRecords(await files.openRead(blobKey), maxFieldCharacters)
    },
    readHeader: readCsvHeader,
    readError: (error) =>
      error instanceof CsvReadError ? { record: error.record, message: error.message } : undefined,
    validateOrderRequest: createOrderRequestCheck(),
  }
}
