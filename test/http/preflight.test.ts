// POST /v4.0/files/preflight and GET /v4.0/files/preflight/{id}: real files (pdf-lib PDFs, sharp images) served on
// 127.0.0.1, downloaded by the real fetcher and inspected by the real engine (the inspector's child process and
// the pure checks). The run-preflight job is run by calling the service as its handler would (no workers).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Response as LightMyRequestResponse } from 'light-my-request'
import { parseId } from '../../src/domain/ids.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { bookPdf, encryptedPdf, tinyJpeg } from '../support/preflight-files.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

/** The contract's error body of an injected answer (raw-http's check). */
function errorOf(response: LightMyRequestResponse, outcome: string, statusCode: number): Record<string, any> {
  return assertErrorBody(
    { status: response.statusCode, headers: response.headers, body: response.body },
    outcome,
    statusCode,
  )
}
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
/** The book's trim in the sample catalogue (`book.trimMm`): a file of these pages, 3 mm bleed and boxes passes. */
const SQUARE_BOOK_TRIM = { width: 297, height: 297 }

for (const kind of databaseKinds) {
  describe(`stand-alone preflight (${kind})`, () => {
    let t: TestApp
    let files: ImageServer

    before(async () => {
      t = await startTestApp({ kind })
      files = await startImageServer(
        {
          '/book.pdf': await bookPdf(24, SQUARE_BOOK_TRIM, 3, { boxes: true, cmyk: true }),
          '/rgb-book.pdf': await bookPdf(24, SQUARE_BOOK_TRIM, 3, { boxes: true }),
          '/locked.pdf': await encryptedPdf(24),
          '/tiny.jpg': await tinyJpeg(),
        },
        null,
      )
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    const create = (body: Record<string, unknown>, key?: string) =>
      t.sandbox({ method: 'POST', url: '/v4.0/files/preflight', payload: body }, key)
    const read = (id: string, key?: string) => t.sandbox({ method: 'GET', url: `/v4.0/files/preflight/${id}` }, key)

    /** Creates a preflight, checks the Pending answer, runs its job and answers the preflight as GET shows it. */
    async function preflightOf(body: Record<string, unknown>): Promise<Record<string, any>> {
      const created = await create(body)
      assert.equal(created.statusCode, 200, created.body)
      const answer = json(created)
      assert.deepEqual(Object.keys(answer), ['outcome', 'preflight', 'traceParent'])
      assert.equal(answer.outcome, 'Created')
      assert.match(answer.preflight.id, /^pfl_\d+$/)
      assert.equal(answer.preflight.status, 'Pending')
      assert.equal(answer.preflight.completedAt, null)
      assert.deepEqual(answer.preflight.checks, [])
      const pending = json(await read(answer.preflight.id))
      assert.equal(pending.preflight.status, 'Pending')
      await t.app.services.preflight.runPreflight(parseId('pfl', answer.preflight.id) as number)
      const done = await read(answer.preflight.id)
      assert.equal(done.statusCode, 200, done.body)
      return json(done).preflight
    }

    test('a PDF a book can take passes, with its page count', async () => {
      const preflight = await preflightOf({ url: files.url('book.pdf'), sku: BOOK, pageCount: 24 })
      assert.equal(preflight.status, 'Passed', JSON.stringify(preflight.checks))
      assert.equal(preflight.pageCount, 24)
      assert.deepEqual(preflight.checks, [])
      assert.deepEqual(preflight.request, {
        url: files.url('book.pdf'),
        sku: BOOK,
        printArea: 'default',
        pageCount: 24,
        attributes: {},
      })
      assert.ok(preflight.completedAt)
    })

    test('an RGB PDF for a book a CMYK lab makes passes with RgbInCmykJob, naming the lab and its colour', async () => {
      // The sample's book is made by prodigi_gb3 and us7 (sRGB) and de1 (CMYK, printroute-fogra39, relative intent,
      // black-point compensation); no lab is chosen yet, so the warning names de1.
      const preflight = await preflightOf({ url: files.url('rgb-book.pdf'), sku: BOOK, pageCount: 24 })
      assert.equal(preflight.status, 'PassedWithWarnings')
      assert.deepEqual(
        preflight.checks.map((check: { code: string; severity: string; page?: number }) => [
          check.code,
          check.severity,
          check.page,
        ]),
        [['RgbInCmykJob', 'warning', 1]],
      )
      assert.match(preflight.checks[0].message, /lab de1 able to make this product prints CMYK/)
      assert.equal(preflight.checks[0].required, 'CMYK printroute-fogra39, relative intent, black-point compensation')
    })

    test('an encrypted PDF fails with Encrypted, an error', async () => {
      const preflight = await preflightOf({ url: files.url('locked.pdf'), sku: BOOK, pageCount: 24 })
      assert.equal(preflight.status, 'Failed')
      assert.deepEqual(
        preflight.checks.map((check: { code: string; severity: string }) => [check.code, check.severity]),
        [['Encrypted', 'error']],
      )
    })

    test('a PDF with other pages than the item says fails with PageCountOutOfRange', async () => {
      const preflight = await preflightOf({ url: files.url('book.pdf'), sku: BOOK, pageCount: 40 })
      assert.equal(preflight.status, 'Failed')
      assert.equal(preflight.checks[0].code, 'PageCountOutOfRange')
      assert.equal(preflight.pageCount, 24)
    })

    test('a small image prints, with a warning', async () => {
      const preflight = await preflightOf({ url: files.url('tiny.jpg'), sku: PHONE_CASE })
      assert.equal(preflight.status, 'PassedWithWarnings')
      assert.equal(preflight.pageCount, null)
      assert.deepEqual(
        preflight.checks.map((check: { code: string; severity: string }) => [check.code, check.severity]),
        [['ImageTooSmall', 'warning']],
      )
      assert.match(preflight.checks[0].measured, /dpi/)
    })

    test('bad input is 400 naming the field', async () => {
      const unknownSku = errorOf(
        await create({ url: files.url('tiny.jpg'), sku: 'NO-SUCH-SKU' }),
        'ValidationFailed',
        400,
      )
      assert.equal(unknownSku.failures.sku[0].code, 'UnknownSku')
      const area = errorOf(
        await create({ url: files.url('tiny.jpg'), sku: PHONE_CASE, printArea: 'back' }),
        'ValidationFailed',
        400,
      )
      assert.ok(area.failures.printArea, JSON.stringify(area.failures))
      const missing = errorOf(
        await create({ url: files.url('nothing.pdf'), sku: BOOK, pageCount: 24 }),
        'ValidationFailed',
        400,
      )
      assert.equal(missing.failures.url[0].code, 'NotDownloaded')
      const unknownField = errorOf(
        await create({ url: files.url('book.pdf'), sku: BOOK, colour: 'red' }),
        'ValidationFailed',
        400,
      )
      assert.ok(JSON.stringify(unknownField.failures).includes('colour'))
    })

    test("another account's preflight, the other environment's, an unknown one: 404; a malformed id: 400", async () => {
      const created = json(await create({ url: files.url('tiny.jpg'), sku: PHONE_CASE }))
      const other = await t.createAccount()
      errorOf(await read(created.preflight.id, other.sandboxKey), 'EntityNotFound', 404)
      // Live is another environment of the same account.
      errorOf(
        await t.live({ method: 'GET', url: `/v4.0/files/preflight/${created.preflight.id}` }),
        'EntityNotFound',
        404,
      )
      errorOf(await read('pfl_999999'), 'EntityNotFound', 404)
      const malformed = errorOf(await read('ord_1'), 'ValidationFailed', 400)
      assert.equal(malformed.failures.preflightId[0].code, 'InvalidFormat')
    })

    test('preflights expire after 7 days: gone from GET, deleted by the job', async () => {
      const created = json(await create({ url: files.url('tiny.jpg'), sku: PHONE_CASE }))
      t.clock.advanceSeconds(7 * 24 * 3600)
      errorOf(await read(created.preflight.id), 'EntityNotFound', 404)
      assert.ok((await t.app.services.preflight.expirePreflights()) >= 1)
      const rows = await t.database.db.query('SELECT id FROM preflights WHERE id = $1', [
        parseId('pfl', created.preflight.id),
      ])
      assert.equal(rows.length, 0)
    })
  })

  describe(`stand-alone preflight, private addresses refused (${kind})`, () => {
    let t: TestApp
    let files: ImageServer
    before(async () => {
      t = await startTestApp({ kind, allowPrivateUrls: false })
      files = await startImageServer({ '/tiny.jpg': await tinyJpeg() }, null)
    })
    after(async () => {
      await files.close()
      await t.close()
    })

    test('a URL the safe fetcher refuses is 400 on url', async () => {
      const response = await t.sandbox({
        method: 'POST',
        url: '/v4.0/files/preflight',
        payload: { url: files.url('tiny.jpg'), sku: PHONE_CASE },
      })
      const body = errorOf(response, 'ValidationFailed', 400)
      assert.equal(body.failures.url[0].code, 'NotDownloaded')
      assert.match(body.failures.url[0].comparisonValue, /127\.0\.0\.1/)
      assert.equal(files.requests.length, 0, 'no request reached the refused address')
    })
  })
}
