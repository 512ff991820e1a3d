// Invoices and credit notes (docs/billing.md#invoices): every charge gets its document in the charge's own
// transaction, numbered per series without gaps (Sandbox apart from Live, credit notes apart from invoices),
// listed at GET /v4.0/orders/{id}/invoices with signed PDF links that expire, and summed up in monthly
// statements. The PDFs are read back with pdf-lib.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { PostgresDatabase } from '../../src/adapters/database.ts'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import type { PipelineOrder } from '../../src/domain/pipeline/pipeline-order.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { POSTGRES_TEST_URL } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number
const FILE_LINK_TTL_SECONDS = 3600

for (const kind of databaseKinds) {
  describe(`invoices and credit notes (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind, fileLinkTtlSeconds: FILE_LINK_TTL_SECONDS })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    const phoneOrder = (reference: string) =>
      sampleOrder({
        merchantReference: reference,
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })

    async function create(server: 'sandbox' | 'live', key: string, reference = 'shop-1'): Promise<string> {
      const response = await t[server](
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: phoneOrder(reference),
          headers: { 'content-type': 'application/json' },
        },
        key,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    async function cancel(server: 'sandbox' | 'live', orderId: string, key: string) {
      const answer = json(await t[server]({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, key))
      assert.equal(answer.outcome, 'Cancelled')
      return answer.order
    }

    async function listInvoices(server: 'sandbox' | 'live', orderId: string, key: string) {
      const response = await t[server]({ method: 'GET', url: `/v4.0/orders/${orderId}/invoices` }, key)
      return { status: response.statusCode, body: json(response) }
    }

    /** GETs a PDF link (absolute, on a server's public URL) from the server it names, without a key. */
    function fetchLink(server: 'sandbox' | 'live', link: string) {
      const url = new URL(link)
      return t[server]({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
    }

    test('numbers run per series: Live INV- and CN-, Sandbox SBX-INV- and SBX-CN-, never mixed', async () => {
      const account = await t.createAccount()
      const sandboxOrder = await create('sandbox', account.sandboxKey)
      const sandboxCharge = (await drive.allocate(sandboxOrder)).document.charges[0] as Charge
      assert.equal(sandboxCharge.prodigiInvoiceNumber, 'SBX-INV-000001')

      const first = await create('live', account.liveKey, 'live-1')
      const firstCharge = (await drive.allocate(first)).document.charges[0] as Charge
      assert.equal(firstCharge.prodigiInvoiceNumber, 'INV-000001')
      const second = await create('live', account.liveKey, 'live-2')
      assert.equal((await drive.allocate(second)).document.charges[0]?.prodigiInvoiceNumber, 'INV-000002')

      // A refund is a credit note of its own series, naming the invoice it credits.
      const cancelled = await cancel('live', first, account.liveKey)
      const refund = cancelled.charges[1] as Charge
      assert.equal(refund.chargeType, 'Refund')
      assert.equal(refund.prodigiInvoiceNumber, 'CN-000001')
      assert.equal(
        (await cancel('sandbox', sandboxOrder, account.sandboxKey)).charges[1].prodigiInvoiceNumber,
        'SBX-CN-000001',
      )
      // The numbers stay on the order as it is read again.
      const read = json(await t.live({ method: 'GET', url: `/v4.0/orders/${first}` }, account.liveKey)).order
      assert.deepEqual(
        read.charges.map((charge: Charge) => charge.prodigiInvoiceNumber),
        ['INV-000001', 'CN-000001'],
      )

      const listed = await listInvoices('live', first, account.liveKey)
      assert.equal(listed.status, 200)
      assert.equal(listed.body.outcome, 'Ok')
      assert.deepEqual(
        listed.body.invoices.map((invoice: Record<string, unknown>) => Object.keys(invoice)),
        [0, 1].map(() => [
          'number',
          'kind',
          'chargeId',
          'issuedAt',
          'environment',
          'currency',
          'totalCost',
          'totalTax',
          'pdfUrl',
        ]),
      )
      const [invoice, creditNote] = listed.body.invoices
      assert.deepEqual(
        { ...invoice, pdfUrl: undefined },
        {
          number: 'INV-000001',
          kind: 'Invoice',
          chargeId: firstCharge.id,
          issuedAt: t.clock.now().toISOString(),
          environment: 'live',
          currency: firstCharge.totalCost.currency,
          totalCost: firstCharge.totalCost,
          totalTax: firstCharge.totalTax,
          pdfUrl: undefined,
        },
      )
      assert.equal(creditNote.kind, 'CreditNote')
      assert.deepEqual(creditNote.totalCost, refund.totalCost)

      // The credit note's PDF: titled as such, crediting the invoice, with the order's reference and total.
      const pdfResponse = await fetchLink('live', creditNote.pdfUrl)
      assert.equal(pdfResponse.statusCode, 200, pdfResponse.body)
      assert.equal(pdfResponse.headers['content-type'], 'application/pdf')
      const text = documentText(await PDFDocument.load(pdfResponse.rawPayload))
      assert.match(text, /^Credit note CN-000001$/m)
      assert.match(text, /^Credits invoice INV-000001$/m)
      assert.match(text, /live-1/)
      assert.match(text, new RegExp(`^${refund.totalCost.amount.replace('.', '\\.')}$`, 'm'))
      assert.doesNotMatch(text, /Sandbox/)

      // Each issue is in the audit trail, by printroute itself.
      const audit = await listAuditEvents(t.database.db, { accountId: accountNumber(account), limit: 50 })
      const issued = audit.filter((entry) => entry.action === 'invoice.issued' || entry.action === 'creditNote.issued')
      assert.deepEqual(issued.map((entry) => entry.target).sort(), [
        'CN-000001',
        'INV-000001',
        'INV-000002',
        'SBX-CN-000001',
        'SBX-INV-000001',
      ])
      assert.ok(issued.every((entry) => entry.actorKind === 'system'))
      assert.equal(issued.find((entry) => entry.target === 'SBX-INV-000001')?.environment, 'sandbox')
    })

    test('Sandbox PDFs say they are not a bill; links expire, cannot be forged or used on the other address', async () => {
      const orderId = await create('sandbox', t.account.sandboxKey)
      await drive.allocate(orderId)
      const [invoice] = (await listInvoices('sandbox', orderId, t.account.sandboxKey)).body.invoices
      const pdf = await fetchLink('sandbox', invoice.pdfUrl)
      assert.equal(pdf.statusCode, 200)
      const document = await PDFDocument.load(pdf.rawPayload)
      assert.match(documentText(document), new RegExp(`^Invoice ${invoice.number}$`, 'm'))
      assert.match(documentText(document), /^Sandbox - not a bill$/m)

      const url = new URL(invoice.pdfUrl)
      assert.equal(url.pathname, `/files/invoices/${invoice.number}.pdf`)

      // The dashboard's order page links the charge's number to the PDF.
      const signIn = await t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ apiKey: t.account.sandboxKey, next: '/dashboard/orders' }).toString(),
      })
      const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_sandbox_session')
      assert.ok(cookie)
      const page = await t.app.sandbox.inject({
        method: 'GET',
        url: `/dashboard/orders/${orderId}`,
        headers: { cookie: `${cookie.name}=${cookie.value}` },
      })
      assert.equal(page.statusCode, 200)
      const link = new RegExp(
        `<a class="small" href="([^"]+)" data-invoice="${invoice.number}">invoice ${invoice.number} \\(PDF\\)</a>`,
      )
      const linked = link.exec(page.body)
      assert.ok(linked, 'the order page links the invoice')
      const fromPage = await fetchLink('sandbox', (linked[1] as string).replaceAll('&amp;', '&'))
      assert.equal(fromPage.statusCode, 200)
      assert.equal(fromPage.headers['content-type'], 'application/pdf')
      // The Live address does not serve a Sandbox document.
      const elsewhere = await fetchLink('live', invoice.pdfUrl)
      assert.equal(elsewhere.statusCode, 404)
      // Another number under the same signature is nothing printroute signed.
      const forged = await t.sandbox({ method: 'GET', url: `/files/invoices/SBX-INV-000999.pdf${url.search}` }, null)
      assert.equal(forged.statusCode, 404)
      assert.equal(json(forged).outcome, 'EntityNotFound')
      const unsigned = await t.sandbox({ method: 'GET', url: `/files/invoices/${invoice.number}.pdf` }, null)
      assert.equal(unsigned.statusCode, 404)

      t.clock.advanceSeconds(FILE_LINK_TTL_SECONDS + 1)
      const expired = await fetchLink('sandbox', invoice.pdfUrl)
      assert.equal(expired.statusCode, 410)
      assert.equal(json(expired).outcome, 'LinkExpired')
      // Listing again gives a fresh link that works.
      const [again] = (await listInvoices('sandbox', orderId, t.account.sandboxKey)).body.invoices
      assert.equal((await fetchLink('sandbox', again.pdfUrl)).statusCode, 200)
    })

    test("another account's order is not found; a malformed id is refused naming the field", async () => {
      const orderId = await create('live', t.account.liveKey)
      await drive.allocate(orderId)
      const other = await t.createAccount()
      const foreign = await listInvoices('live', orderId, other.liveKey)
      assert.equal(foreign.status, 404)
      assert.equal(foreign.body.outcome, 'EntityNotFound')
      // The same order on the other environment's address is another environment's data.
      assert.equal((await listInvoices('sandbox', orderId, t.account.sandboxKey)).status, 404)
      const malformed = await listInvoices('live', 'nope', t.account.liveKey)
      assert.equal(malformed.status, 400)
      assert.match(JSON.stringify(malformed.body), /orderId/)
      // An order not charged yet has no documents.
      const fresh = await create('live', t.account.liveKey, 'fresh')
      assert.deepEqual((await listInvoices('live', fresh, t.account.liveKey)).body.invoices, [])
    })

    test('a charge rolled back gives its number back: the next charge takes it', async () => {
      const account = await t.createAccount()
      const orderId = await create('live', account.liveKey, 'rolled-back')
      await drive.allocate(orderId)
      const order = await drive.state(orderId)
      const before = order.document.charges.at(-1)?.prodigiInvoiceNumber as string
      const sequence = Number(before.slice('INV-'.length))
      const charge: Charge = { ...(order.document.charges[0] as Charge), id: 'chg_999001', items: [] }
      await assert.rejects(
        t.database.db.transaction(async (tx) => {
          const number = await t.app.services.invoices.issueForCharge(tx, order, charge, [])
          assert.equal(number, `INV-${String(sequence + 1).padStart(6, '0')}`)
          throw new Error('the charge failed after its invoice was issued')
        }),
        /the charge failed/,
      )
      const next = await create('live', account.liveKey, 'after-rollback')
      const nextCharge = (await drive.allocate(next)).document.charges[0] as Charge
      assert.equal(nextCharge.prodigiInvoiceNumber, `INV-${String(sequence + 1).padStart(6, '0')}`)
    })

    test('statements: the month of an account as CSV and PDF, with totals per currency', async () => {
      const account = await t.createAccount({ billingCurrency: 'EUR' })
      const kept = await create('live', account.liveKey, 'kept')
      const keptCharge = (await drive.allocate(kept)).document.charges[0] as Charge
      const refunded = await create('live', account.liveKey, 'refunded')
      await drive.allocate(refunded)
      const refundedOrder = await cancel('live', refunded, account.liveKey)
      const month = t.clock.now().toISOString().slice(0, 7)
      const statement = await t.app.services.invoices.statement(accountNumber(account), 'live', month)
      assert.equal(statement.documents.length, 3)
      assert.deepEqual(
        statement.documents.map((document) => document.kind),
        ['Invoice', 'Invoice', 'CreditNote'],
      )
      // Refunding the second order cancels it out: the net is the first order's charge.
      assert.deepEqual(statement.totals, [
        {
          currency: 'EUR',
          invoiced: (Number(keptCharge.totalCost.amount) + Number(refundedOrder.charges[0].totalCost.amount)).toFixed(
            2,
          ),
          credited: refundedOrder.charges[1].totalCost.amount,
          tax: keptCharge.totalTax.amount,
          net: keptCharge.totalCost.amount,
        },
      ])
      const { statementCsv } = await import('../../src/domain/invoices.ts')
      const csv = statementCsv(statement).split('\r\n')
      assert.equal(csv[0], 'number,kind,issuedAt,orderId,chargeId,currency,totalCost,totalTax')
      assert.equal(csv.length, 1 + 3 + 1 + 1)
      assert.equal(csv[4], `Total,,,,,EUR,${keptCharge.totalCost.amount},${keptCharge.totalTax.amount}`)
      const text = documentText(await PDFDocument.load(await t.app.services.invoices.statementPdf(statement)))
      assert.match(text, new RegExp(`^Statement ${month}$`, 'm'))
      for (const document of statement.documents) assert.match(text, new RegExp(`^${document.number}$`, 'm'))
      assert.match(text, /^Net total \(EUR\)$/m)
      assert.match(text, new RegExp(`^${keptCharge.totalCost.amount.replace('.', '\\.')}$`, 'm'))
      // Another month has nothing; a malformed month is refused.
      assert.deepEqual(
        (await t.app.services.invoices.statement(accountNumber(account), 'live', '2020-01')).documents,
        [],
      )
      await assert.rejects(t.app.services.invoices.statement(accountNumber(account), 'live', '2026-13'), /YYYY-MM/)
    })

    test('an order of 100 items (the most an order takes): its invoice PDF lists every item and the totals', async () => {
      const items = Array.from({ length: 100 }, (_, index) => ({
        sku: PHONE_CASE,
        copies: (index % 4) + 1,
        sizing: 'fillPrintArea',
        assets: [{ url: images.url('case.jpg') }],
      }))
      const response = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ merchantReference: 'hundred', items }),
          headers: { 'content-type': 'application/json' },
        },
        t.account.liveKey,
      )
      assert.equal(response.statusCode, 200, response.body)
      const orderId = json(response).order.id
      const order = (await drive.allocate(orderId)).document
      const charge = order.charges[0] as Charge
      assert.equal(order.items.length, 100)
      const [invoice] = (await listInvoices('live', orderId, t.account.liveKey)).body.invoices
      const pdf = await PDFDocument.load((await fetchLink('live', invoice.pdfUrl)).rawPayload)
      assert.ok(pdf.getPageCount() >= 2)
      const text = documentText(pdf)
      for (const item of order.items) {
        assert.match(text, new RegExp(`^${item.sku} x ${item.copies} \\(${item.id}\\)$`, 'm'), item.id)
      }
      const runs = text.split('\n')
      const after = (label: string) => runs[runs.indexOf(label) + 1]
      assert.equal(after('Total tax'), charge.totalTax.amount)
      assert.equal(after(`Total due (${charge.totalCost.currency})`), charge.totalCost.amount)
    })

    test('the seller: printroute until set; a document keeps the seller it was issued with; changes audited', async () => {
      const account = await t.createAccount()
      const before = await create('live', account.liveKey, 'before-seller')
      await drive.allocate(before)
      const invoices = t.app.services.invoices
      assert.deepEqual(await invoices.seller(), {
        seller: { name: 'printroute', address: ['http://127.0.0.1:8080'], taxNumber: null, email: null },
        configured: false,
      })
      const operator = { kind: 'operator', operatorId: 'opr_1', name: 'Dana' } as const
      const refused = await invoices.setSeller({ name: ' ', address: [], taxNumber: null, email: 'nope' }, operator)
      assert.deepEqual(refused, { problems: { name: 'must not be empty', email: 'must be an email address' } })
      const seller = { name: 'Print Co Ltd', address: ['1 Press Lane', 'Leeds'], taxNumber: 'GB123', email: null }
      assert.deepEqual(await invoices.setSeller({ ...seller, name: ' Print Co Ltd ' }, operator), { seller })
      const after = await create('live', account.liveKey, 'after-seller')
      await drive.allocate(after)

      const pdfText = async (orderId: string) => {
        const [invoice] = (await listInvoices('live', orderId, account.liveKey)).body.invoices
        return documentText(await PDFDocument.load((await fetchLink('live', invoice.pdfUrl)).rawPayload))
      }
      const old = await pdfText(before)
      assert.match(old, /^printroute$/m)
      assert.doesNotMatch(old, /Print Co Ltd/)
      const fresh = await pdfText(after)
      assert.match(fresh, /^Print Co Ltd$/m)
      assert.match(fresh, /^Tax number: GB123$/m)

      const audit = await listAuditEvents(t.database.db, { actions: ['invoice.sellerChanged'], limit: 10 })
      assert.equal(audit.length, 1)
      assert.equal(audit[0]?.actorKind, 'operator')
      assert.equal(audit[0]?.before, null)
      assert.deepEqual(JSON.parse(audit[0]?.after as string), seller)
    })

    if (kind === 'postgres') {
      test('50 concurrent charges from two connection pools take INV-000001..50: no gap, no duplicate', async () => {
        const fresh = await startTestApp({ kind })
        const [{ schema }] = (await fresh.database.db.query<{ schema: string }>(
          'SELECT current_schema() AS schema',
        )) as [{ schema: string }]
        const second = await PostgresDatabase.open(POSTGRES_TEST_URL as string, {
          searchPath: schema,
          maxConnections: 10,
        })
        try {
          const orderId = json(
            await fresh.live(
              {
                method: 'POST',
                url: '/v4.0/orders',
                payload: phoneOrder('busy'),
                headers: { 'content-type': 'application/json' },
              },
              fresh.account.liveKey,
            ),
          ).order.id
          const order: PipelineOrder = await pipelineDriver(fresh).state(orderId)
          const charge = (id: number): Charge => ({
            id: `chg_${900_000 + id}`,
            chargeType: 'Other',
            prodigiInvoiceNumber: null,
            totalCost: { amount: '1.00', currency: 'GBP' },
            totalTax: { amount: '0.00', currency: 'GBP' },
            items: [],
          })
          const issue = (id: number, rollBack: boolean) =>
            (id % 2 === 0 ? fresh.database.db : second)
              .transaction(async (tx) => {
                const number = await fresh.app.services.invoices.issueForCharge(tx, order, charge(id), [])
                // Hold the counter a moment so the others queue behind it, as a slow charge would.
                await tx.query('SELECT pg_sleep(0.01)')
                if (rollBack) throw new Error('rolled back')
                return number
              })
              .catch((error: Error) => {
                if (error.message !== 'rolled back') throw error
                return null
              })
          // 50 that commit and 10 that roll back, all at once, alternating between the pools.
          const results = await Promise.all(Array.from({ length: 60 }, (_, index) => issue(index, index % 6 === 5)))
          const numbers = results.filter((number): number is string => number !== null).sort()
          assert.equal(numbers.length, 50)
          assert.deepEqual(
            numbers,
            Array.from({ length: 50 }, (_, index) => `INV-${String(index + 1).padStart(6, '0')}`),
          )
          const stored = await second.query<{ number: string }>('SELECT number FROM invoices ORDER BY number')
          assert.deepEqual(
            stored.map((row) => row.number),
            numbers,
          )
        } finally {
          await second.close()
          await fresh.close()
        }
      })
    }
  })
}
