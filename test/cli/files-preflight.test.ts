// `printroute files preflight URL --sku SKU --wait`: the command line's check of a file, through a running
// printroute's API (workers on, so the run-preflight job runs), with real PDFs served on 127.0.0.1.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { printroute } from '../support/cli.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { bookPdf, encryptedPdf } from '../support/preflight-files.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')
const BOOK = 'BOOK-FE-11_7-SQ-HARD-G'
/** The book's trim in the sample catalogue (`book.trimMm`): a file of these pages, 3 mm bleed and boxes passes. */
const SQUARE_BOOK_TRIM = { width: 297, height: 297 }

describe('printroute files preflight', () => {
  let t: TestApp
  let files: ImageServer
  let sandboxUrl: string

  before(async () => {
    t = await startTestApp({ workers: true, realClock: true })
    sandboxUrl = (await listenOnLoopback(t)).sandbox
    files = await startImageServer(
      {
        '/book.pdf': await bookPdf(24, SQUARE_BOOK_TRIM, 3, { boxes: true, cmyk: true }),
        '/locked.pdf': await encryptedPdf(24),
      },
      null,
    )
  })
  after(async () => {
    await files.close()
    await t.close()
  })

  const run = (url: string, ...extra: string[]) =>
    printroute(
      ['files', 'preflight', url, '--sku', BOOK, '--page-count', '24', '--wait', '--poll-interval', '200ms', ...extra],
      {
        PRINTROUTE_API_KEY: t.account.sandboxKey,
        PRINTROUTE_BASE_URL: sandboxUrl,
      },
    )

  test('--wait prints the report of a file that passes, and exits 0', async () => {
    const result = await run(files.url('book.pdf'))
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /^pfl_\d+ {2}Passed {2}24 pages$/m)
  })

  test('a file that fails prints its errors and exits 1', async () => {
    const result = await run(files.url('locked.pdf'))
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stdout, /^pfl_\d+ {2}Failed/m)
    assert.match(result.stdout, /^ {2}error {3}Encrypted: The PDF is encrypted/m)
  })

  test('--json prints the preflight as the API gives it; a refused request says why', async () => {
    const result = await run(files.url('book.pdf'), '--json')
    assert.equal(result.code, 0, result.stderr)
    assert.equal(JSON.parse(result.stdout).status, 'Passed')
    const refused = await printroute(['files', 'preflight', files.url('book.pdf'), '--sku', 'NO-SUCH-SKU'], {
      PRINTROUTE_API_KEY: t.account.sandboxKey,
      PRINTROUTE_BASE_URL: sandboxUrl,
    })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /POST \/v4\.0\/files\/preflight: .*sku/i)
  })
})
