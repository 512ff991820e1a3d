// Refunds to the card, charge.refunded and disputes (docs/billing.md#card-payments-through-stripe), against the local
// Stripe stand-in through the real gateway: a Live prepaid order paid by a card payment through the provider gets
// its refunds (an operator's partial credits, a cancel) sent back to the card by the job, with the refund's own
// idempotency key on every attempt; faults are retried with that key and counted once; a refund the provider
// refuses stays on the balance. charge.refunded and the dispute events are read by the gateway from signed events
// and applied once, whatever the redelivery.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Charge } from '../../src/domain/order.ts'
import type { PaymentEvent, PaymentGateway, RefundRequest, RefundResult } from '../../src/domain/payment-gateway.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import type { DisputeEvent } from '../../src/services/card-disputes.service.ts'
import type { RefundedEvent, RefundUpdatedEvent } from '../../src/services/card-refunds.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { gatewayOnStandIn, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databases = tier('http')

const OPERATOR = { kind: 'operator', operatorId: 'opr_1', name: 'Test operator' } as const

for (const kind of databases) {
  describe(`refunds to the card and disputes (${kind})`, () => {
    let t: TestApp
    let plain: TestApp
    let images: ImageServer
    let drive: PipelineDriver
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    let sessions = 0
    let refundAnswer: ((request: RefundRequest) => Promise<RefundResult>) | null = null

    before(async () => {
      standIn = await startStripeStandIn()
      gateway = gatewayOnStandIn(standIn, {
        // Faults reach printroute's job (the library would otherwise retry them itself, with the same key).
        maxNetworkRetries: 0,
        timeoutMs: 400,
      })
      // The app's gateway is the real one, except that a test may answer a refund itself (a `canceled` refund, which
      // the stand-in never answers).
      const answering: PaymentGateway = Object.assign(Object.create(gateway), {
        refund: (request: RefundRequest) => (refundAnswer ? refundAnswer(request) : gateway.refund(request)),
      })
      t = await startTestApp({ kind, paymentGateway: answering })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await plain?.close()
      await images.close()
      await standIn.close()
    })

    const cardRefunds = () => t.app.services.cardRefunds
    const cardDisputes = () => t.app.services.cardDisputes

    /** A Live prepaid order charged and paid: `cardMinor` of it by a card payment through the provider. */
    async function paidByCard(app: TestApp, options: { cardShort?: bigint } = {}) {
      const account = await app.createAccount({ billingMode: 'prepaid' })
      const accountNumber = Number(account.id.slice(4))
      const payload = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await app.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        account.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId: string = json(created).order.id
      const held = await pipelineDriver(app).allocate(orderId)
      const total = minor((held.document.charges[0] as Charge).totalCost.amount)
      const cardMinor = total - (options.cardShort ?? 0n)
      // The card payment at the provider (its Checkout page, paid) and printroute's record of it.
      const session = await gateway.startHostedPayment({
        purpose: 'orderPayment',
        accountId: account.id,
        orderId,
        currency: 'GBP',
        amountMinor: cardMinor,
        description: `Order ${orderId}`,
        successUrl: 'http://127.0.0.1:1/paid',
        cancelUrl: 'http://127.0.0.1:1/cancelled',
        idempotencyKey: `test-session-${kind}-${++sessions}`,
      })
      const paymentId = standIn.completeCheckout(session.sessionId).payment_intent as string
      await app.database.db.query(
        `INSERT INTO provider_payments (provider, account_id, order_id, purpose, amount_minor, currency, idempotency_key,
                                        session_id, payment_id, status, created_at, completed_at)
         VALUES ('stripe', $1, $2, 'orderPayment', $3, 'GBP', $4, $5, $6, 'succeeded', now(), now())`,
        [
          accountNumber,
          held.orderNumber,
          String(cardMinor),
          `test-payment-${session.sessionId}`,
          session.sessionId,
          paymentId,
        ],
      )
      // The money reaches the balance and pays the order (what the card paid, and the rest from elsewhere).
      await app.app.services.payments.topUp(accountNumber, total, 'card payment', TEST_ACTOR)
      assert.equal(await readBalance(app.database.db, accountNumber), 0n)
      return { account, accountNumber, orderId, orderNumber: held.orderNumber, total, cardMinor, paymentId }
    }

    async function refundRows(app: TestApp, orderNumber: number) {
      return app.database.db.query<{
        id: number
        amount: string
        status: string
        key: string
        refundId: string | null
        failure: string | null
      }>(
        `SELECT id::int AS id, amount_minor::text AS amount, status, idempotency_key AS key, refund_id AS "refundId",
                failure_reason AS failure
           FROM provider_refunds WHERE order_id = $1 ORDER BY id`,
        [orderNumber],
      )
    }

    async function ledgerOf(app: TestApp, accountNumber: number) {
      return (await listLedger(app.database.db, accountNumber)).map((entry) => [
        entry.entry,
        entry.amountMinor,
        entry.balanceAfterMinor,
      ])
    }

    /** The refund rows whose job `refund-card-payment` is queued. */
    async function queuedRefundJobs(app: TestApp): Promise<number[]> {
      const rows = await app.database.db.query<{ refundId: number }>(
        `SELECT (data->>'refundId')::int AS "refundId" FROM ${app.database.jobSchema}.job
          WHERE name = 'refund-card-payment' ORDER BY 1`,
      )
      return rows.map((row) => row.refundId)
    }

    const refundCalls = () => standIn.calls.filter((call) => call.method === 'POST' && call.path === '/v1/refunds')

    function read<E extends PaymentEvent>(type: string, object: Record<string, any>): E {
      const signed = standIn.signedEvent(type, object)
      return gateway.verifyWebhook(signed.payload, signed.header) as E
    }

    test('two partial credits, then a cancel: each goes back to the card, never more than the card paid', async () => {
      const paid = await paidByCard(t, { cardShort: 200n })
      const refund = (amountMinor: bigint) =>
        t.app.services.orderOperations.refund({ orderId: paid.orderId, reason: 'goodwill', amountMinor }, OPERATOR)
      const first = await refund(500n)
      const second = await refund(300n)
      let rows = await refundRows(t, paid.orderNumber)
      assert.deepEqual(
        rows.map((row) => [row.amount, row.status]),
        [
          ['500', 'requested'],
          ['300', 'requested'],
        ],
      )
      // The refund charge's id names the request: a retry, a restart, asks the same refund.
      assert.match(rows[0]?.key ?? '', new RegExp(`^printroute-refund-${first.refundChargeId}-\\d+$`))
      assert.match(rows[1]?.key ?? '', new RegExp(`^printroute-refund-${second.refundChargeId}-\\d+$`))
      // Credited to the balance and taken off again: the account is never paid twice.
      assert.equal(await readBalance(t.database.db, paid.accountNumber), 0n)
      const jobs = await queuedRefundJobs(t)
      for (const row of rows) assert.ok(jobs.includes(row.id), `job of refund ${row.id} queued`)
      for (const row of rows) await cardRefunds().runRefund(row.id)
      rows = await refundRows(t, paid.orderNumber)
      assert.deepEqual(
        rows.map((row) => row.status),
        ['succeeded', 'succeeded'],
      )
      assert.equal(standIn.chargeOf(paid.paymentId).amount_refunded, 800)
      // The cancel refunds what the order still nets: the card gets what is left of its payment, the rest stays.
      const cancelled = await t.app.services.orderOperations.cancel(
        { orderId: paid.orderId, reason: 'customer asked' },
        OPERATOR,
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      rows = await refundRows(t, paid.orderNumber)
      const third = rows[2]
      assert.ok(third)
      assert.equal(BigInt(third.amount), paid.cardMinor - 800n)
      await cardRefunds().runRefund(third.id)
      assert.equal(standIn.chargeOf(paid.paymentId).amount_refunded, Number(paid.cardMinor))
      assert.equal(await readBalance(t.database.db, paid.accountNumber), 200n, 'what the card did not pay stays')
      const entries = (await ledgerOf(t, paid.accountNumber)).map(([entry, amount]) => [entry, amount])
      assert.deepEqual(entries.slice(-2), [
        ['balance-refund', paid.total - 800n],
        ['card-refund', -(paid.cardMinor - 800n)],
      ])
      // A job run again does nothing more.
      await cardRefunds().runRefund(third.id)
      assert.equal(refundCalls().filter((call) => call.idempotencyKey === third.key).length, 1)
    })

    test('Stripe 500, 429, a timeout and a lost answer: retried with the same key, refunded once', async () => {
      const paid = await paidByCard(t)
      const faults = [
        { status: 500, pathPrefix: '/v1/refunds' },
        { status: 429, pathPrefix: '/v1/refunds' },
        { hang: true, pathPrefix: '/v1/refunds' },
        { status: 500, when: 'after' as const, pathPrefix: '/v1/refunds' },
      ]
      let refunded = 0
      for (const [index, fault] of faults.entries()) {
        await t.app.services.orderOperations.refund(
          { orderId: paid.orderId, reason: `fault ${index}`, amountMinor: 100n },
          OPERATOR,
        )
        const row = (await refundRows(t, paid.orderNumber)).at(-1)
        assert.ok(row)
        standIn.failNext(fault)
        await assert.rejects(cardRefunds().runRefund(row.id), `the job fails and is retried (${JSON.stringify(fault)})`)
        assert.equal((await refundRows(t, paid.orderNumber)).at(-1)?.status, 'requested')
        await cardRefunds().runRefund(row.id)
        const after = (await refundRows(t, paid.orderNumber)).at(-1)
        assert.equal(after?.status, 'succeeded')
        refunded += 100
        assert.equal(standIn.chargeOf(paid.paymentId).amount_refunded, refunded, 'counted once')
        const calls = refundCalls().filter((call) => call.idempotencyKey === row.key)
        assert.ok(calls.length >= 2, 'asked again')
        assert.ok(calls.every((call) => call.params.amount === '100'))
      }
      assert.equal(await readBalance(t.database.db, paid.accountNumber), 0n)
    })

    test('a refund Stripe refuses stays on the balance, once, and is audited', async () => {
      const paid = await paidByCard(t)
      // Refunded whole in the Stripe Dashboard meanwhile: nothing is left for printroute's refund.
      await gateway.refund({
        paymentId: paid.paymentId,
        amountMinor: paid.cardMinor,
        currency: 'GBP',
        idempotencyKey: `dashboard-${paid.paymentId}`,
      })
      await t.app.services.orderOperations.refund(
        { orderId: paid.orderId, reason: 'refused', amountMinor: 250n },
        OPERATOR,
      )
      const row = (await refundRows(t, paid.orderNumber)).at(-1)
      assert.ok(row)
      await cardRefunds().runRefund(row.id)
      await cardRefunds().runRefund(row.id)
      const [refused] = await refundRows(t, paid.orderNumber)
      assert.equal(refused?.status, 'failed')
      assert.match(refused?.failure ?? '', /invalidRequest/)
      assert.doesNotMatch(refused?.failure ?? '', /sk_|whsec_/)
      assert.equal(await readBalance(t.database.db, paid.accountNumber), 250n, 'the refund stays on the balance')
      const entries = (await ledgerOf(t, paid.accountNumber)).slice(-3).map(([entry, amount]) => [entry, amount])
      assert.deepEqual(entries, [
        ['balance-refund', 250n],
        ['card-refund', -250n],
        ['balance-refund', 250n],
      ])
      const audit = await listAuditEvents(t.database.db, {
        accountId: paid.accountNumber,
        actions: ['payment.cardRefundFailed'],
        limit: 10,
      })
      assert.equal(audit.length, 1)
      assert.equal(audit[0]?.target, paid.orderId)

      // Stripe takes a refund but answers it canceled: the same, with its refund id.
      const other = await paidByCard(t)
      await t.app.services.orderOperations.refund(
        { orderId: other.orderId, reason: 'canceled', amountMinor: 120n },
        OPERATOR,
      )
      const asked = (await refundRows(t, other.orderNumber)).at(-1)
      assert.ok(asked)
      refundAnswer = async (request) => ({
        refundId: 're_canceled',
        status: 'canceled',
        amountMinor: request.amountMinor,
      })
      try {
        await cardRefunds().runRefund(asked.id)
      } finally {
        refundAnswer = null
      }
      const canceled = (await refundRows(t, other.orderNumber)).at(-1)
      assert.deepEqual([canceled?.status, canceled?.refundId], ['canceled', 're_canceled'])
      assert.equal(await readBalance(t.database.db, other.accountNumber), 120n)
      const unrefunded = await t.database.db.query<{ refunded: string }>(
        `SELECT refunded_minor::text AS refunded FROM provider_payments WHERE payment_id = $1`,
        [other.paymentId],
      )
      assert.equal(unrefunded[0]?.refunded, '0', 'what was not refunded may be refunded again')
    })

    test('a pending refund reported waiting changes nothing; reported canceled it goes back on the balance once', async () => {
      const paid = await paidByCard(t)
      await t.app.services.orderOperations.refund(
        { orderId: paid.orderId, reason: 'pending', amountMinor: 330n },
        OPERATOR,
      )
      const asked = (await refundRows(t, paid.orderNumber)).at(-1)
      assert.ok(asked)
      standIn.answerRefunds('pending')
      try {
        await cardRefunds().runRefund(asked.id)
      } finally {
        standIn.answerRefunds('succeeded')
      }
      const pending = (await refundRows(t, paid.orderNumber)).at(-1)
      assert.deepEqual([pending?.status, pending?.refundId?.startsWith('re_')], ['pending', true])
      const refundId = pending?.refundId as string
      const object = standIn.refunds.get(refundId) ?? {}
      // Still pending at Stripe: the sweeper's read changes nothing.
      assert.equal(await cardRefunds().settlePendingRefund(asked.id), false)
      const waiting = read<RefundUpdatedEvent>('refund.updated', { ...object, status: 'requires_action' })
      assert.equal(
        await cardRefunds().recordRefundUpdate(waiting),
        `refund ${refundId} is requiresAction: nothing changed`,
      )
      assert.equal((await refundRows(t, paid.orderNumber)).at(-1)?.status, 'pending')

      const canceled = read<RefundUpdatedEvent>('charge.refund.updated', standIn.updateRefund(refundId, 'canceled'))
      assert.equal(canceled.failureReason, 'canceled')
      assert.equal(
        await cardRefunds().recordRefundUpdate(canceled),
        `refund ${refundId} canceled (canceled): 3.30 GBP back on the balance`,
      )
      assert.match(await cardRefunds().recordRefundUpdate(canceled), /already canceled here: nothing changed$/)
      assert.equal(await cardRefunds().settlePendingRefund(asked.id), false, 'a settled refund is not read again')
      const after = (await refundRows(t, paid.orderNumber)).at(-1)
      assert.deepEqual([after?.status, after?.failure], ['canceled', 'canceled'])
      assert.equal(await readBalance(t.database.db, paid.accountNumber), 330n)
      const unrefunded = await t.database.db.query<{ refunded: string }>(
        `SELECT refunded_minor::text AS refunded FROM provider_payments WHERE payment_id = $1`,
        [paid.paymentId],
      )
      assert.equal(unrefunded[0]?.refunded, '0', 'what was not refunded may be refunded again')
      // charge.refunded afterwards (nothing refunded at Stripe) leaves the canceled refund canceled.
      assert.match(
        await cardRefunds().recordRefunded(read<RefundedEvent>('charge.refunded', standIn.chargeOf(paid.paymentId))),
        /nothing changed$/,
      )
      assert.equal((await refundRows(t, paid.orderNumber)).at(-1)?.status, 'canceled')
    })

    test('charge.refunded: printroute refunds change nothing more; a refund outside printroute is recorded once', async () => {
      const paid = await paidByCard(t)
      await t.app.services.orderOperations.refund(
        { orderId: paid.orderId, reason: 'ours', amountMinor: 400n },
        OPERATOR,
      )
      const ours = (await refundRows(t, paid.orderNumber))[0]
      assert.ok(ours)
      await cardRefunds().runRefund(ours.id)
      const known = read<RefundedEvent>('charge.refunded', standIn.chargeOf(paid.paymentId))
      assert.equal(known.kind, 'refunded')
      const before = await ledgerOf(t, paid.accountNumber)
      assert.match(await cardRefunds().recordRefunded(known), /nothing changed/)
      assert.deepEqual(await ledgerOf(t, paid.accountNumber), before)
      // 150 more refunded in the Stripe Dashboard.
      await gateway.refund({
        paymentId: paid.paymentId,
        amountMinor: 150n,
        currency: 'GBP',
        idempotencyKey: `dashboard-${paid.paymentId}`,
      })
      const outside = read<RefundedEvent>('charge.refunded', standIn.chargeOf(paid.paymentId))
      assert.equal(outside.amountRefundedMinor, 550n)
      assert.match(await cardRefunds().recordRefunded(outside), /refunded outside printroute: 1\.50 GBP/)
      assert.match(await cardRefunds().recordRefunded(outside), /nothing changed|already recorded/)
      const rows = await refundRows(t, paid.orderNumber)
      assert.deepEqual(
        rows.map((row) => [row.amount, row.status]),
        [
          ['400', 'succeeded'],
          ['150', 'external'],
        ],
      )
      // Money the operator gave back at Stripe: on the ledger, the balance as it was.
      const after = await ledgerOf(t, paid.accountNumber)
      assert.deepEqual(after.slice(before.length), [['card-refund', -150n, 0n]])
      const audit = await listAuditEvents(t.database.db, {
        accountId: paid.accountNumber,
        actions: ['payment.refundedOutside'],
        limit: 10,
      })
      assert.equal(audit.length, 1)
      // A payment printroute never asked for: said so, nothing changes.
      const unknown = { ...outside, paymentId: 'pi_unknown' }
      assert.match(await cardRefunds().recordRefunded(unknown), /no payment pi_unknown known/)
    })

    test('disputes: owed once when opened, taken off when won, owed on the statement when lost', async () => {
      const paid = await paidByCard(t)
      const opened = read<DisputeEvent>('charge.dispute.created', standIn.dispute(paid.paymentId))
      assert.equal(opened.kind, 'disputeOpened')
      assert.match(await cardDisputes().recordDispute(opened), /recorded as owed/)
      assert.match(await cardDisputes().recordDispute(opened), /nothing more/)
      const owed = await ledgerOf(t, paid.accountNumber)
      assert.deepEqual(owed.at(-1), ['card-dispute', -paid.cardMinor, 0n], 'owed; the balance does not move')
      assert.equal(owed.filter(([entry]) => entry === 'card-dispute').length, 1)
      const billing = json(await t.live({ method: 'GET', url: '/v4.0/account/billing' }, paid.account.liveKey))
      assert.equal(minor(billing.billing.openAmount.amount), paid.cardMinor, 'the merchant sees it owed')
      const statement = await t.app.services.invoices.statement(paid.accountNumber, 'live', '2026-03')
      assert.deepEqual(
        statement.owed?.lines.map((line) => [line.orderId, line.amountMinor]),
        [[paid.orderId, paid.cardMinor]],
      )
      const audit = await listAuditEvents(t.database.db, {
        accountId: paid.accountNumber,
        actions: ['payment.disputeOpened', 'payment.disputeClosed'],
        limit: 10,
      })
      assert.deepEqual(
        audit.map((entry) => [entry.action, entry.target]),
        [['payment.disputeOpened', paid.orderId]],
      )
      // Won: what was owed is taken off, once.
      const won = read<DisputeEvent>('charge.dispute.closed', {
        ...standIn.dispute(paid.paymentId),
        id: opened.disputeId,
        status: 'won',
      })
      assert.match(await cardDisputes().recordDispute(won), /won/)
      await cardDisputes().recordDispute(won)
      const settled = await ledgerOf(t, paid.accountNumber)
      assert.deepEqual(settled.at(-1), ['card-dispute-won', paid.cardMinor, 0n])
      assert.equal(settled.filter(([entry]) => entry === 'card-dispute-won').length, 1)
      const cleared = json(await t.live({ method: 'GET', url: '/v4.0/account/billing' }, paid.account.liveKey))
      assert.equal(minor(cleared.billing.openAmount.amount), 0n)

      // Another payment's dispute, first heard of lost: owed, and it stays owed.
      const other = await paidByCard(t)
      const lost = read<DisputeEvent>(
        'charge.dispute.closed',
        standIn.dispute(other.paymentId, 'lost', 'product_not_received'),
      )
      await cardDisputes().recordDispute(lost)
      await cardDisputes().recordDispute(lost)
      const rows = await t.database.db.query<{ status: string; reason: string; closed: boolean }>(
        `SELECT status, reason, closed_at IS NOT NULL AS closed FROM provider_disputes WHERE order_id = $1`,
        [other.orderNumber],
      )
      assert.deepEqual(rows, [{ status: 'lost', reason: 'product_not_received', closed: true }])
      const lostStatement = await t.app.services.invoices.statement(other.accountNumber, 'live', '2026-03')
      assert.deepEqual(lostStatement.owed?.totals, [
        { currency: 'GBP', amount: (Number(other.cardMinor) / 100).toFixed(2) },
      ])
      assert.match(
        await cardDisputes().recordDispute({ ...lost, paymentId: 'pi_unknown' }),
        /no payment pi_unknown known/,
      )
    })

    test('without a payment provider, or without a card payment, a refund stays on the balance as before', async () => {
      // The same app, an order paid by a top-up only: no card payment to refund to.
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const accountNumber = Number(account.id.slice(4))
      await t.app.services.payments.topUp(accountNumber, 100_000n, 'bank transfer', TEST_ACTOR)
      const payload = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        account.liveKey,
      )
      const orderId: string = json(created).order.id
      const charged = await drive.allocate(orderId)
      await t.app.services.orderOperations.refund({ orderId, reason: 'goodwill', amountMinor: 500n }, OPERATOR)
      assert.deepEqual(await refundRows(t, charged.orderNumber), [])
      assert.deepEqual((await ledgerOf(t, accountNumber)).at(-1)?.slice(0, 2), ['balance-refund', 500n])

      // An app without a gateway: a card payment recorded for the order changes nothing either.
      plain = await startTestApp({ kind })
      const paid = await paidByCard(plain)
      await plain.app.services.orderOperations.refund(
        { orderId: paid.orderId, reason: 'goodwill', amountMinor: 500n },
        OPERATOR,
      )
      assert.deepEqual(await refundRows(plain, paid.orderNumber), [])
      assert.equal(await readBalance(plain.database.db, paid.accountNumber), 500n)
      assert.deepEqual(await queuedRefundJobs(plain), [])
    })
  })
}
