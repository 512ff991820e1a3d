// The console's actions on an order (src/web/operator/orders.pages.ts over services/operator/orders.ts and the order
// operations service): cancel, refund part of a charge, retry a failed download, release a held order, notes. Each
// form posts with the CSRF token and the order's version, each action needs a reason and leaves an audit entry,
// refusals come back in the console's words, and two operators acting at once on one order: one wins, the other is
// told the order changed, nothing is done twice. Orders put in their states with the pipeline step helper.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import type { AuditEntry } from '../../src/domain/audit.ts'
import { statementCsv } from '../../src/domain/invoices.ts'
import { formatMinorAsAmount, parseAmountToMinor } from '../../src/domain/money.ts'
import { OperatorRefusal } from '../../src/domain/operator-refusal.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { consoleOrderActionsOf } from '../../src/services/operator/console-sections.ts'
import * as orderActions from '../../src/services/operator/orders.ts'
import { registerOrdersPages } from '../../src/web/operator/orders.pages.ts'
import { type AdminPagesHarness, startAdminPages, TEST_OPERATOR } from '../support/admin-pages.ts'
import { type ImageServer, solidJpeg, startImageServer } from '../support/image-server.ts'
import { documentText } from '../support/pdf-reading.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
// One database: the console's routes over the services are what is tested, not the SQL.
const kind = databaseKinds[0] ?? 'pglite'

describe(`console order actions (${kind})`, () => {
  let t: TestApp
  let pages: AdminPagesHarness
  let images: ImageServer
  const served: Record<string, { body: Buffer; type: string }> = {}

  before(async () => {
    served['/canvas.jpg'] = await solidJpeg(300, 500, { r: 40, g: 120, b: 200 })
    // Anything else is 404: an asset whose download fails until the test serves it.
    images = await startImageServer(served, null)
    t = await startTestApp({ kind, labCancelWaitSeconds: 0 })
    pages = await startAdminPages((scope, console) =>
      registerOrdersPages(scope, console, t.app.services.adminViews.orders, {
        actions: consoleOrderActionsOf(t.app.services.orderOperations),
      }),
    )
  })
  after(async () => {
    await pages.close()
    await t.close()
    await images.close()
  })

  async function place(account: TestAccount = t.account, asset = 'canvas.jpg'): Promise<string> {
    const created = await t.live(
      {
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json' },
        payload: sampleOrder({
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 2,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: images.url(asset) }],
            },
          ],
        }),
      },
      account.liveKey,
    )
    assert.equal(created.statusCode, 200, created.body)
    return json(created).order.id as string
  }

  /** The version the order's page puts in its forms. */
  async function pageVersion(orderId: string): Promise<string> {
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.equal(page.status, 200, page.body)
    const version = /name="version" value="([0-9a-f]{16})"/.exec(page.body)?.[1]
    assert.ok(version, 'the page has a form with the order’s version')
    return version
  }

  /** Posts an action's form; the notice it redirects with. */
  async function post(path: string, form: Record<string, string>): Promise<{ kind: string; text: string }> {
    const answer = await pages.request(path, form)
    assert.equal(answer.status, 303, answer.body)
    assert.ok(answer.notice, 'a notice is carried to the order’s page')
    return JSON.parse(answer.notice)
  }

  async function audited(action: string) {
    return (await t.app.services.audit.list({ actions: [action as never], top: 50 })).entries
  }

  /** The one audit entry of `action` about the order. */
  async function entryFor(action: string, orderId: string): Promise<AuditEntry> {
    const found = (await audited(action)).filter((entry) => entry.target === orderId)
    assert.equal(found.length, 1, `one ${action} entry`)
    return found[0] as AuditEntry
  }

  const minor = (amount: string) => parseAmountToMinor(amount) ?? 0n
  const chargesTotal = (charges: { totalCost: { amount: string } }[]) =>
    charges.reduce((sum, charge) => sum + minor(charge.totalCost.amount), 0n)

  test('the page offers the actions the order allows, each form with the CSRF token, its version and a reason', async () => {
    const orderId = await place()
    await pipelineDriver(t).allocate(orderId)
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.equal(page.status, 200)
    for (const action of ['cancel', 'refund']) {
      const form = new RegExp(
        `<form method="post" action="/admin/orders/${orderId}/${action}"[^>]*>([\\s\\S]*?)</form>`,
      )
      const content = form.exec(page.body)?.[1] ?? ''
      assert.ok(content.includes(`name="_csrf" value="${TEST_OPERATOR.csrfToken}"`), `${action}: CSRF token`)
      assert.match(content, /name="version" value="[0-9a-f]{16}"/, `${action}: version`)
      assert.match(content, /name="reason" required/, `${action}: reason required`)
    }
    // Neither held nor with a failed download: no release, no retry.
    assert.ok(!page.body.includes(`/admin/orders/${orderId}/release"`))
    assert.ok(!page.body.includes(`/admin/orders/${orderId}/retry-download"`))
    assert.ok(page.body.includes(`/admin/orders/${orderId}/notes"`))
  })

  test('notes: stored, shown with author and time, audited; an empty one refused', async () => {
    const orderId = await place()
    const empty = await post(`/admin/orders/${orderId}/notes`, { text: '   ' })
    assert.deepEqual(empty, { kind: 'error', text: 'Note: write something' })
    const added = await post(`/admin/orders/${orderId}/notes`, { text: 'Customer phoned: <gift> wrap please' })
    assert.deepEqual(added, { kind: 'success', text: 'Added the note.' })
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.match(page.body, /operator opr_1 \(Test Operator\)/)
    assert.ok(page.body.includes('Customer phoned: &lt;gift&gt; wrap please'), 'the note, escaped')
    assert.match(page.body, /<li id="ont_\d+">/)
    const entry = await entryFor('order.noteAdded', orderId)
    assert.equal(entry.actor.kind, 'operator')
    assert.equal((entry.after as { text: string }).text, 'Customer phoned: <gift> wrap please')
  })

  test('refund part of a charge: a credit note, charges add up, refusals in the console’s words, audited', async () => {
    const orderId = await place()
    const allocated = await pipelineDriver(t).allocate(orderId)
    const [first] = allocated.document.charges
    assert.ok(first)
    const charged = minor(first.totalCost.amount)
    const path = `/admin/orders/${orderId}/refund`
    let version = await pageVersion(orderId)

    assert.deepEqual(await post(path, { amount: '5.00', charge: first.id, reason: '', version }), {
      kind: 'error',
      text: 'Reason: say why (it is kept in the audit trail)',
    })
    assert.deepEqual(await post(path, { amount: 'five', charge: first.id, reason: 'late', version }), {
      kind: 'error',
      text: 'Amount: a positive amount such as 50.00 is needed, not "five"',
    })
    const tooMuch = await post(path, { amount: '9999.00', charge: first.id, reason: 'late', version })
    assert.equal(tooMuch.kind, 'error')
    assert.equal(tooMuch.text, `Amount: at most ${first.totalCost.amount} GBP can be refunded, not "9999.00"`)

    const done = await post(path, { amount: '5.00', charge: first.id, reason: 'arrived late', version })
    assert.equal(done.kind, 'success', done.text)
    assert.match(done.text, new RegExp(`^Refunded 5\\.00 GBP of ${first.id} \\(credit note \\S+\\)\\.$`))
    const after = await pipelineDriver(t).document(orderId)
    const refund = after.charges.at(-1)
    assert.equal(refund?.chargeType, 'Refund')
    assert.equal(refund?.totalCost.amount, '-5.00')
    assert.equal(refund?.items[0]?.shipmentId, null)
    assert.equal(chargesTotal(after.charges), charged - 500n)
    const invoices = await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}/invoices` })
    const documents = json(invoices).invoices as { kind: string; number: string; totalCost: { amount: string } }[]
    assert.deepEqual(
      documents.map((document) => document.kind),
      ['Invoice', 'CreditNote'],
    )
    const entry = await entryFor('order.refunded', orderId)
    assert.equal(entry.actor.description, 'operator opr_1 (Test Operator)')
    assert.deepEqual(entry.before, { charged: first.totalCost.amount, refundable: first.totalCost.amount })
    const recorded = entry.after as Record<string, unknown>
    assert.equal(recorded.credited, '5.00')
    assert.equal(recorded.reason, 'arrived late')
    assert.equal(recorded.creditNote, documents[1]?.number)

    // The page read before the refund is out of date: the same form again is refused, nothing credited twice.
    const stale = await post(path, { amount: '5.00', charge: first.id, reason: 'arrived late', version })
    assert.equal(stale.kind, 'error')
    assert.match(stale.text, new RegExp(`^${orderId} changed since it was read`))
    assert.equal((await pipelineDriver(t).document(orderId)).charges.length, after.charges.length)

    // What is left to refund is what the charge took less the credit.
    version = await pageVersion(orderId)
    const over = await post(path, {
      amount: formatMinorAsAmount(charged - 500n + 1n),
      charge: first.id,
      reason: 'x',
      version,
    })
    assert.equal(over.kind, 'error')
    assert.match(over.text, new RegExp(`^Amount: at most ${formatMinorAsAmount(charged - 500n)} GBP can be refunded`))
  })

  test('cancel through the console: the merchant’s cancel, refunds netting the earlier credit to zero; a second refused', async () => {
    const orderId = await place()
    await pipelineDriver(t).allocate(orderId)
    const refunded = await post(`/admin/orders/${orderId}/refund`, {
      amount: '1.00',
      reason: 'goodwill',
      version: await pageVersion(orderId),
    })
    assert.equal(refunded.kind, 'success', refunded.text)
    const cancelled = await post(`/admin/orders/${orderId}/cancel`, {
      reason: 'merchant asked by phone',
      version: await pageVersion(orderId),
    })
    assert.deepEqual(cancelled, {
      kind: 'success',
      text: 'Cancelled the order; what it was charged has been refunded.',
    })
    const document = await pipelineDriver(t).document(orderId)
    assert.equal(document.status.stage, 'Cancelled')
    assert.equal(chargesTotal(document.charges), 0n, 'the charges add up to nothing')
    const entry = await entryFor('order.cancelled', orderId)
    assert.deepEqual(entry.before, { stage: 'InProgress' })
    assert.deepEqual(entry.after, { stage: 'Cancelled', outcome: 'Cancelled', reason: 'merchant asked by phone' })

    const again = await post(`/admin/orders/${orderId}/cancel`, { reason: 'again', version: '' })
    assert.deepEqual(again, {
      kind: 'error',
      text: `${orderId} can no longer be cancelled (already cancelled or complete, or its labs have started)`,
    })
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.ok(!page.body.includes(`/admin/orders/${orderId}/cancel"`), 'no cancel form on a cancelled order')
  })

  test('retry a failed download: the asset is downloaded again and the order goes on to allocation', async () => {
    const orderId = await place(t.account, 'late.jpg')
    const failed = await pipelineDriver(t).download(orderId)
    assert.equal(failed.pipeline.phase, 'failed')
    const assetId = failed.document.items[0]?.assets[0]?.id as string
    assert.equal(failed.document.items[0]?.assets[0]?.status, 'Error')
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.match(page.body, new RegExp(`<option value="${assetId}">${assetId}</option>`))

    served['/late.jpg'] = served['/canvas.jpg'] as { body: Buffer; type: string }
    const retried = await post(`/admin/orders/${orderId}/retry-download`, {
      asset: assetId,
      reason: 'the shop fixed its file server',
      version: await pageVersion(orderId),
    })
    assert.deepEqual(retried, { kind: 'success', text: `Queued another download of ${assetId}.` })
    const pending = await pipelineDriver(t).state(orderId)
    assert.equal(pending.pipeline.phase, 'downloading')
    const file = pending.pipeline.files[assetId]
    assert.equal(file?.status, 'pending')
    assert.ok(
      !pending.document.status.issues.some((issue) => issue.errorCode === 'order.items.assets.FailedToDownloaded'),
    )
    // The job the retry queued: the attempt after the last failed one.
    await t.app.services.pipeline.downloadFile(orderId, assetId, (file?.failedAttempts ?? 0) + 1)
    const downloaded = await pipelineDriver(t).state(orderId)
    assert.equal(downloaded.pipeline.files[assetId]?.status, 'downloaded')
    assert.equal(downloaded.pipeline.phase, 'allocating')
    const entry = await entryFor('order.downloadRetried', orderId)
    assert.deepEqual(entry.after, {
      phase: 'downloading',
      retriedAssets: [assetId],
      reason: 'the shop fixed its file server',
    })
    const nothing = await post(`/admin/orders/${orderId}/retry-download`, { asset: '', reason: 'again', version: '' })
    assert.deepEqual(nothing, { kind: 'error', text: `${orderId} has no asset whose download failed` })
  })

  test('release: a prepaid order the balance cannot cover goes on, its charge owed on the next invoice and statement', async () => {
    const prepaid = await t.createAccount({ billingMode: 'prepaid' })
    const accountNumber = Number(prepaid.id.slice(4))
    const orderId = await place(prepaid)
    await pipelineDriver(t).allocate(orderId)
    await pipelineDriver(t).render(orderId)
    const held = await pipelineDriver(t).state(orderId)
    const due = BigInt(held.pipeline.billing?.unpaid as string)
    assert.ok(due > 0n, 'held for payment')
    const balanceBefore = (await t.app.services.accounts.getAccount(prepaid.id)).balance
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.match(page.body, /else recorded as owed on the account&#39;s next invoice/)

    const released = await post(`/admin/orders/${orderId}/release`, {
      reason: 'paid by bank transfer',
      version: await pageVersion(orderId),
    })
    assert.equal(released.kind, 'success', released.text)
    const amount = formatMinorAsAmount(due)
    assert.equal(
      released.text,
      `The balance did not cover it: ${amount} GBP recorded as owed on the account's next invoice (ledger: invoice-charge; the balance is unchanged). Its fulfilment goes on now.`,
    )
    const after = await pipelineDriver(t).state(orderId)
    assert.equal(after.pipeline.billing?.unpaid, '0')
    assert.equal(after.pipeline.billing?.owedOnInvoice, String(due))
    assert.ok(!after.document.status.issues.some((issue) => issue.errorCode === 'RequiresPaymentAuthorisation'))
    assert.equal(after.document.status.details.inProduction, 'InProgress', 'handed on to its labs')
    assert.equal((await t.app.services.accounts.getAccount(prepaid.id)).balance, balanceBefore, 'the balance unchanged')

    // The ledger records it as owed: an invoice-charge of the amount, the balance after it unchanged.
    const ledger = await listLedger(t.database.db, accountNumber)
    const owedEntries = ledger.filter((entry) => entry.entry === 'invoice-charge')
    assert.equal(owedEntries.length, 1)
    assert.equal(owedEntries[0]?.amountMinor, -due)
    assert.equal(owedEntries[0]?.orderNumber, Number(orderId.slice(4)))
    assert.equal(formatMinorAsAmount(owedEntries[0]?.balanceAfterMinor ?? -1n), balanceBefore)

    // The audit entry keeps the amount and where it went.
    const entry = await entryFor('order.released', orderId)
    assert.equal(minor((entry.before as { unpaid: string }).unpaid), due)
    assert.deepEqual(entry.after, {
      payment: 'owedOnInvoice',
      amount,
      currency: 'GBP',
      ledgerEntry: 'invoice-charge',
      pauseWindowEnded: false,
      reason: 'paid by bank transfer',
    })

    // A refund on it afterwards is taken off what is owed, never paid into a balance that never received it.
    const refunded = await post(`/admin/orders/${orderId}/refund`, {
      amount: '1.00',
      reason: 'goodwill',
      version: await pageVersion(orderId),
    })
    assert.equal(refunded.kind, 'success', refunded.text)
    assert.equal((await t.app.services.accounts.getAccount(prepaid.id)).balance, balanceBefore)
    const refundEntries = (await listLedger(t.database.db, accountNumber)).filter(
      (row) => row.entry === 'invoice-refund' || row.entry === 'balance-refund',
    )
    assert.deepEqual(
      refundEntries.map((row) => [row.entry, row.amountMinor]),
      [['invoice-refund', 100n]],
    )
    // The merchant reads what it owes on its next invoice in its billing view.
    const billing = await t.live({ method: 'GET', url: '/v4.0/account/billing' }, prepaid.liveKey)
    assert.deepEqual(json(billing).billing.openAmount, { amount: formatMinorAsAmount(due - 100n), currency: 'GBP' })

    // The month's statement collects it: its Owed lines and total, in the CSV and the PDF.
    const month = t.clock.now().toISOString().slice(0, 7)
    const statement = await t.app.services.invoices.statement(accountNumber, 'live', month)
    assert.deepEqual(
      statement.owed?.lines.map((line) => [line.orderId, line.chargeId === null, line.amountMinor]),
      [
        [orderId, true, due],
        [orderId, false, -100n],
      ],
    )
    assert.deepEqual(statement.owed?.totals, [{ currency: 'GBP', amount: formatMinorAsAmount(due - 100n) }])
    const csv = statementCsv(statement).split('\r\n')
    assert.ok(
      csv.some((line) => line.startsWith(`,Owed,`) && line.includes(`,${orderId},,GBP,${amount},`)),
      csv.join('\n'),
    )
    assert.ok(csv.includes(`Owed total,,,,,GBP,${formatMinorAsAmount(due - 100n)},`), csv.join('\n'))
    const text = documentText(await PDFDocument.load(await t.app.services.invoices.statementPdf(statement)))
    assert.match(text, /Owed on this statement/)
    assert.ok(text.includes(formatMinorAsAmount(due - 100n)), 'the amount to collect')
    // An invoice account's statement is all owed already: no such section.
    const invoiceAccount = await t.app.services.invoices.statement(Number(t.account.id.slice(4)), 'live', month)
    assert.equal(invoiceAccount.owed, undefined)

    const again = await post(`/admin/orders/${orderId}/release`, { reason: 'again', version: '' })
    assert.deepEqual(again, {
      kind: 'error',
      text: `${orderId} is neither waiting for a payment nor in its pause window: nothing to release`,
    })
  })

  test('release: a Sandbox order held by its scenario paymentRequired is authorised, no balance touched', async () => {
    // A prepaid account with a Live balance that would cover the order: it must not pay for a Sandbox order.
    const prepaid = await t.createAccount({ billingMode: 'prepaid' })
    await t.app.services.payments.topUp(Number(prepaid.id.slice(4)), 100_000n, 'float', {
      kind: 'cli',
      host: 'test',
      user: 'ops',
    })
    const created = await t.sandbox(
      {
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'content-type': 'application/json', 'x-sandbox-scenario': 'paymentRequired' },
        payload: sampleOrder({
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fillPrintArea',
              attributes: { wrap: 'Black' },
              assets: [{ url: images.url('canvas.jpg') }],
            },
          ],
        }),
      },
      prepaid.sandboxKey,
    )
    assert.equal(created.statusCode, 200, created.body)
    const orderId = json(created).order.id as string
    await pipelineDriver(t).allocate(orderId)
    const held = await pipelineDriver(t).state(orderId)
    assert.equal(held.pipeline.billing?.settlement, 'sandboxHold')
    assert.ok(BigInt(held.pipeline.billing?.unpaid ?? '0') > 0n)
    const balance = (await t.app.services.accounts.getAccount(prepaid.id)).balance
    assert.equal(balance, '1000.00')
    const released = await post(`/admin/orders/${orderId}/release`, {
      reason: 'demo for the merchant',
      version: await pageVersion(orderId),
    })
    assert.equal(released.kind, 'success', released.text)
    const after = await pipelineDriver(t).state(orderId)
    assert.equal(after.pipeline.billing?.unpaid, '0')
    assert.ok(!after.document.status.issues.some((issue) => issue.errorCode === 'RequiresPaymentAuthorisation'))
    assert.equal((await t.app.services.accounts.getAccount(prepaid.id)).balance, balance, 'the Live balance untouched')
  })

  test('release: an order in its pause window starts now', async () => {
    const paused = await t.createAccount({ pauseWindowSeconds: 3600 })
    const orderId = await place(paused)
    const page = await pages.request(`/admin/orders/${orderId}`)
    assert.match(page.body, /The order is in its pause window/)
    const released = await post(`/admin/orders/${orderId}/release`, {
      reason: 'merchant wants it today',
      version: await pageVersion(orderId),
    })
    assert.deepEqual(released, { kind: 'success', text: 'Ended its pause window. Its fulfilment goes on now.' })
    // The start job the release queued runs now (the clock has not moved): the downloads begin.
    await t.app.services.pipeline.startOrder(orderId)
    const started = await pipelineDriver(t).state(orderId)
    assert.equal(started.pipeline.phase, 'downloading')
  })

  test('two operators at once on one order: one wins, the other is told it changed, nothing doubled', async () => {
    const orderId = await place()
    const allocated = await pipelineDriver(t).allocate(orderId)
    const version = await pageVersion(orderId)
    const form = { amount: '2.00', reason: 'damaged box', version }
    const answers = await Promise.all([
      post(`/admin/orders/${orderId}/refund`, form),
      post(`/admin/orders/${orderId}/refund`, form),
    ])
    const kinds = answers.map((answer) => answer.kind).sort()
    assert.deepEqual(kinds, ['error', 'success'], JSON.stringify(answers))
    const loser = answers.find((answer) => answer.kind === 'error')
    assert.match(loser?.text ?? '', new RegExp(`^${orderId} changed since it was read .*read the order again`))
    const after = await pipelineDriver(t).document(orderId)
    assert.equal(after.charges.length, allocated.document.charges.length + 1, 'one credit, not two')
    assert.equal((await audited('order.refunded')).filter((entry) => entry.target === orderId).length, 1)

    // Without a version (the command line's way), two cancels at once: the row lock orders them; one cancels.
    const actor = { kind: 'cli' as const, host: 'test', user: 'ops' }
    const deps = { orderOperations: async () => t.app.services.orderOperations, actor }
    const cancels = await Promise.allSettled([
      orderActions.cancelOrder(deps, { order: orderId, reason: 'one' }),
      orderActions.cancelOrder(deps, { order: orderId, reason: 'two' }),
    ])
    assert.deepEqual(cancels.map((result) => result.status).sort(), ['fulfilled', 'rejected'])
    const refused = cancels.find((result) => result.status === 'rejected')
    assert.ok(refused?.reason instanceof OperatorRefusal)
    assert.equal(refused.reason.reason, 'not-cancellable')
    const cancelled = await pipelineDriver(t).document(orderId)
    assert.equal(cancelled.status.stage, 'Cancelled')
    assert.equal(chargesTotal(cancelled.charges), 0n)
    assert.equal(cancelled.charges.filter((charge) => charge.chargeType === 'Refund').length, 2, 'one cancel refund')
    assert.equal((await audited('order.cancelled')).filter((entry) => entry.target === orderId).length, 1)
  })
})
