// Card payments through Stripe end to end (docs/billing.md#card-payments-through-stripe): Stripe's signed events are
// delivered over HTTP to POST /payments/v1/stripe/webhooks by the stand-in, and the real workers run the job
// process-payment-event, which routes each to its service: a card setup (the card on file, which then pays an order
// that was already waiting), a refund made in the Stripe Dashboard, a dispute opened then won (each delivered twice).
// A refund to the card Stripe answered pending that it later reports failed (charge.refund.updated, delivered twice)
// goes back on the balance once, and a later charge.refunded leaves it failed; one it reports succeeded is marked so.
// Then, without workers and on a manual clock, the sweeper: card charges and refunds whose job the queue gave up are
// put back with the same idempotency key, and a charge or a refund Stripe left pending is read back.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import type { PaymentGateway } from '../../src/domain/payment-gateway.ts'
import { STRIPE_WEBHOOK_PATH } from '../../src/http/routes/payment-webhooks.routes.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { endProviderPayment, findPaymentBySession, storeCard } from '../../src/repositories/saved-cards.repository.ts'
import { SWEEP_AFTER_SECONDS } from '../../src/services/hosted-payments.service.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, pipelineDriver } from '../support/pipeline-driver.ts'
import { gatewayOnStandIn, STAND_IN_CARDS, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databases = tier('http')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number
const ISSUE = 'RequiresPaymentAuthorisation'

for (const kind of databases) {
  describe(`Stripe's webhooks through the route and the job (${kind})`, () => {
    let t: TestApp
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    let images: ImageServer
    let endpoint: string

    before(async () => {
      standIn = await startStripeStandIn()
      gateway = gatewayOnStandIn(standIn, {
        timeoutMs: 2000,
        maxNetworkRetries: 0,
      })
      t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        publicUrls: { live: 'https://live.printroute.test' },
        paymentGateway: gateway,
      })
      images = await startImageServer()
      await t.app.live.listen({ host: '127.0.0.1', port: 0 })
      endpoint = `http://127.0.0.1:${(t.app.live.server.address() as AddressInfo).port}${STRIPE_WEBHOOK_PATH}`
    })
    after(async () => {
      await t.close()
      await images.close()
      await standIn.close()
    })

    /** Stripe delivers the event (twice when asked) and the job processes it: its stored outcome. */
    async function delivered(type: string, object: Record<string, any>, times = 1): Promise<string> {
      const signed = standIn.signedEvent(type, object)
      for (let delivery = 0; delivery < times; delivery += 1) {
        const answer = await standIn.deliver(endpoint, signed)
        assert.equal(answer.status, 200, await answer.text())
      }
      return waitFor(`event ${signed.event.id} processed`, async () => {
        const rows = await t.database.db.query<{ outcome: string | null }>(
          `SELECT outcome FROM provider_events WHERE provider = 'stripe' AND event_id = $1 AND processed_at IS NOT NULL`,
          [signed.event.id],
        )
        return rows[0]?.outcome ?? undefined
      })
    }

    const ledgerOf = async (account: TestAccount) =>
      (await listLedger(t.database.db, accountNumber(account))).map((entry) => [entry.entry, entry.amountMinor])

    async function orderDocument(account: TestAccount, orderId: string) {
      return json(await t.live({ method: 'GET', url: `/v4.0/orders/${orderId}` }, account.liveKey)).order
    }

    /** A Live order of phone cases, placed for the account: its id. */
    async function placeOrder(account: TestAccount, copies: number): Promise<string> {
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }

    /** The order once the workers hold it for payment (no balance, no card). */
    function heldForPayment(account: TestAccount, orderId: string) {
      return waitFor('the order held for payment', async () => {
        const order = await orderDocument(account, orderId)
        return order.status.issues.some((issue: { errorCode: string }) => issue.errorCode === ISSUE) ? order : undefined
      })
    }

    /** The order's card charge once answered (not `open`): while it is in flight the issue is not shown. */
    function answeredCharge(orderId: string) {
      return waitFor('the card charge answered', async () => {
        const rows = await t.database.db.query<{ status: string; paymentId: string | null; amount: string }>(
          `SELECT status, payment_id AS "paymentId", amount_minor::text AS amount FROM provider_payments
            WHERE order_id = $1 AND purpose = 'orderCharge'`,
          [parseId('ord', orderId)],
        )
        return rows.length === 1 && rows[0]?.status !== 'open' ? rows[0] : undefined
      })
    }

    /** A card setup started on the dashboard: its Checkout Session's id at the stand-in. */
    async function cardSetupSession(account: TestAccount): Promise<string> {
      const setup = json(await t.live({ method: 'POST', url: '/v4.0/account/payment-method/setup' }, account.liveKey))
      return new URL(setup.setup.url).pathname.split('/').at(-1) as string
    }

    test('a card saved through the webhook pays the order already waiting; a Dashboard refund and a won dispute are recorded once', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const orderId = await placeOrder(account, 2)
      const held = await heldForPayment(account, orderId)
      const due = minor((held.charges[0] as Charge).totalCost.amount)

      // The card is saved on Checkout; Stripe's event reaches the route, and the job stores the card.
      const sessionId = await cardSetupSession(account)
      const outcome = await delivered('checkout.session.completed', standIn.completeCheckout(sessionId), 2)
      assert.match(outcome, new RegExp(`^card saved for ${account.id}: visa ending 4242; charging it for ${orderId}$`))
      const shown = json(await t.live({ method: 'GET', url: '/v4.0/account/payment-method' }, account.liveKey)).card
      assert.equal(shown.last4, '4242')

      // The order that was waiting is charged to the new card by its job, and released.
      const charge = await answeredCharge(orderId)
      assert.equal(charge.status, 'succeeded')
      assert.equal(BigInt(charge.amount), due)
      const paymentId = charge.paymentId as string
      const released = await orderDocument(account, orderId)
      assert.deepEqual(withoutResolutionWarnings(released.status.issues), [])
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', due],
        ['balance-charge', -due],
      ])

      // A partial refund made in the Stripe Dashboard: charge.refunded, delivered twice, recorded once.
      const part = due / 2n
      await gateway.refund({ paymentId, amountMinor: part, currency: 'GBP', idempotencyKey: `dashboard-${orderId}` })
      const refundedOutcome = await delivered('charge.refunded', standIn.chargeOf(paymentId), 2)
      assert.match(refundedOutcome, /^refunded outside printroute: /)
      assert.match(
        await delivered('charge.refunded', standIn.chargeOf(paymentId)),
        /as printroute knows: nothing changed$/,
      )
      assert.deepEqual((await ledgerOf(account)).slice(2), [['card-refund', -part]])
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n, 'the balance is unchanged')
      const outside = await listAuditEvents(t.database.db, {
        accountId: accountNumber(account),
        actions: ['payment.refundedOutside'],
        limit: 10,
      })
      assert.equal(outside.length, 1)
      assert.equal(outside[0]?.target, orderId)

      // A dispute opened, then won: each report delivered twice, each ledger entry written once.
      const opened = standIn.dispute(paymentId)
      await delivered('charge.dispute.created', opened, 2)
      await delivered('charge.dispute.created', opened)
      const won = { ...opened, status: 'won' }
      await delivered('charge.dispute.closed', won, 2)
      await delivered('charge.dispute.closed', won)
      assert.deepEqual((await ledgerOf(account)).slice(3), [
        ['card-dispute', -BigInt(opened.amount)],
        ['card-dispute-won', BigInt(opened.amount)],
      ])
      const disputes = await listAuditEvents(t.database.db, {
        accountId: accountNumber(account),
        actions: ['payment.disputeOpened', 'payment.disputeClosed'],
        limit: 10,
      })
      assert.deepEqual(disputes.map((entry) => entry.action).sort(), ['payment.disputeClosed', 'payment.disputeOpened'])
    })

    test("the card setup's job died after storing the card: its event run again charges the order waiting", async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const orderId = await placeOrder(account, 1)
      await heldForPayment(account, orderId)
      const sessionId = await cardSetupSession(account)
      const completed = standIn.completeCheckout(sessionId)
      // What the job's transaction committed before the process died: the setup ended, the card stored; the
      // waiting order's charge never started.
      const setupRow = await findPaymentBySession(t.database.db, gateway.name, sessionId)
      assert.ok(setupRow)
      const card = await gateway.readSavedCard(completed.setup_intent)
      await t.database.db.transaction(async (tx) => {
        assert.ok(await endProviderPayment(tx, setupRow.id, { status: 'succeeded', at: new Date() }))
        await storeCard(tx, accountNumber(account), { provider: gateway.name, ...card }, new Date())
      })
      assert.equal((await orderDocument(account, orderId)).status.stage, 'InProgress')

      // The event's job runs again (the queue's retry of the job that died, or the sweeper's requeue).
      const outcome = await delivered('checkout.session.completed', completed)
      assert.equal(outcome, `already recorded; charging it for ${orderId}`)
      assert.equal((await answeredCharge(orderId)).status, 'succeeded')
      const released = await orderDocument(account, orderId)
      assert.deepEqual(withoutResolutionWarnings(released.status.issues), [])
    })

    /** An account whose card on file (saved through the webhook) paid a Live order by the workers' charge. */
    async function orderPaidByCard(): Promise<{
      account: TestAccount
      orderId: string
      due: bigint
      paymentId: string
    }> {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const sessionId = await cardSetupSession(account)
      assert.match(await delivered('checkout.session.completed', standIn.completeCheckout(sessionId)), /^card saved/)
      const orderId = await placeOrder(account, 2)
      const charge = await answeredCharge(orderId)
      assert.equal(charge.status, 'succeeded')
      return { account, orderId, due: BigInt(charge.amount), paymentId: charge.paymentId as string }
    }

    /** The order cancelled by its merchant, its refund to the card answered `pending` by Stripe (through the job). */
    async function cancelledWithPendingRefund(orderId: string, account: TestAccount) {
      standIn.answerRefunds('pending')
      try {
        const cancelled = await t.live(
          { method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` },
          account.liveKey,
        )
        assert.equal(cancelled.statusCode, 200, cancelled.body)
        return await waitFor('the refund answered pending', async () => {
          const rows = await t.database.db.query<{ id: number; status: string; refundId: string | null }>(
            `SELECT id::int AS id, status, refund_id AS "refundId" FROM provider_refunds WHERE order_id = $1`,
            [parseId('ord', orderId)],
          )
          return rows[0]?.status === 'pending' ? { id: rows[0].id, refundId: rows[0].refundId as string } : undefined
        })
      } finally {
        standIn.answerRefunds('succeeded')
      }
    }

    const refundRow = async (id: number) =>
      (
        await t.database.db.query<{ status: string; failure: string | null }>(
          `SELECT status, failure_reason AS failure FROM provider_refunds WHERE id = $1`,
          [id],
        )
      )[0]

    test('a refund Stripe answered pending that then fails goes back on the balance once; charge.refunded leaves it failed', async () => {
      const { account, orderId, due, paymentId } = await orderPaidByCard()
      const refund = await cancelledWithPendingRefund(orderId, account)
      // On its way to the card: credited to the balance and taken off again.
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n)
      assert.deepEqual((await ledgerOf(account)).slice(2), [
        ['balance-refund', due],
        ['card-refund', -due],
      ])

      // Stripe's report of the payment as the refund was made (counting it), to be delivered late.
      const reportedBefore = structuredClone(standIn.chargeOf(paymentId))
      assert.equal(BigInt(reportedBefore.amount_refunded), due)

      // The card account was closed: Stripe reports the refund failed, delivered twice (and once more later).
      const failed = standIn.updateRefund(refund.refundId, 'failed', 'expired_or_canceled_card')
      const outcome = await delivered('charge.refund.updated', failed, 2)
      assert.equal(
        outcome,
        `refund ${refund.refundId} failed (expired_or_canceled_card): ${(Number(due) / 100).toFixed(2)} GBP back on the balance`,
      )
      assert.match(await delivered('charge.refund.updated', failed), /already failed here: nothing changed$/)
      assert.deepEqual(await refundRow(refund.id), { status: 'failed', failure: 'expired_or_canceled_card' })
      assert.equal(await readBalance(t.database.db, accountNumber(account)), due, 'the money is back, once')
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.slice(2).map((entry) => [entry.entry, entry.amountMinor]),
        [
          ['balance-refund', due],
          ['card-refund', -due],
          ['balance-refund', due],
        ],
      )
      assert.match(ledger.at(-1)?.reference ?? '', /^card refund failed \(expired_or_canceled_card\): /)
      const audit = await listAuditEvents(t.database.db, {
        accountId: accountNumber(account),
        actions: ['payment.cardRefundFailed'],
        limit: 10,
      })
      assert.equal(audit.length, 1)
      assert.equal(audit[0]?.target, orderId)
      const [was, now] = [audit[0]?.before, audit[0]?.after].map((state) => JSON.parse(state ?? 'null'))
      assert.deepEqual(
        [was?.status, now?.status, now?.reason, now?.refundId],
        ['pending', 'failed', 'expired_or_canceled_card', refund.refundId],
      )

      // Stripe's charge.refunded afterwards (the failed amount no longer refunded) leaves the refund failed.
      assert.match(await delivered('charge.refunded', standIn.chargeOf(paymentId)), /nothing changed$/)
      assert.equal((await refundRow(refund.id))?.status, 'failed')
      assert.equal(await readBalance(t.database.db, accountNumber(account)), due)
      assert.equal((await ledgerOf(account)).length, 5)
      // The report made before the failure, arriving only now (Stripe does not promise the order): still counting the
      // failed refund, it is no refund made outside printroute.
      const stale = standIn.signedEvent('charge.refunded', reportedBefore, {
        timestamp: Math.floor(Date.now() / 1000) - 60,
      })
      assert.equal((await standIn.deliver(endpoint, stale)).status, 200)
      const staleOutcome = await waitFor('the late report processed', async () => {
        const rows = await t.database.db.query<{ outcome: string | null }>(
          `SELECT outcome FROM provider_events WHERE event_id = $1 AND processed_at IS NOT NULL`,
          [stale.event.id],
        )
        return rows[0]?.outcome ?? undefined
      })
      assert.match(staleOutcome, /as reported before a refund failed: nothing changed$/)
      assert.equal((await ledgerOf(account)).length, 5)
      assert.equal(await readBalance(t.database.db, accountNumber(account)), due)
      // A refund printroute never asked for changes nothing.
      assert.match(
        await delivered('refund.failed', { ...failed, id: 're_unknown' }),
        /^no refund re_unknown asked by printroute: nothing changed$/,
      )
    })

    test('a refund Stripe answered pending that then succeeds is marked succeeded, the balance left as it is', async () => {
      const { account, orderId, due } = await orderPaidByCard()
      const refund = await cancelledWithPendingRefund(orderId, account)
      const succeeded = standIn.updateRefund(refund.refundId, 'succeeded')
      assert.equal(await delivered('charge.refund.updated', succeeded, 2), `refund ${refund.refundId} succeeded`)
      assert.deepEqual(await refundRow(refund.id), { status: 'succeeded', failure: null })
      // A failure reported for a refund already succeeded here does not pay the merchant twice.
      assert.match(
        await delivered('refund.failed', { ...succeeded, status: 'failed', failure_reason: 'unknown' }),
        /already succeeded here: nothing changed$/,
      )
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n)
      assert.deepEqual((await ledgerOf(account)).slice(2), [
        ['balance-refund', due],
        ['card-refund', -due],
      ])
    })
  })

  describe(`the sweeper over card charges and refunds (${kind})`, () => {
    let t: TestApp
    let standIn: StripeStandIn
    let images: ImageServer
    before(async () => {
      standIn = await startStripeStandIn()
      const gateway = gatewayOnStandIn(standIn, {
        timeoutMs: 2000,
        maxNetworkRetries: 0,
      })
      t = await startTestApp({ kind, publicUrls: { live: 'https://live.printroute.test' }, paymentGateway: gateway })
      images = await startImageServer()
    })
    after(async () => {
      await t.close()
      await images.close()
      await standIn.close()
    })

    const sweep = () => t.app.services.hostedPayments.sweep()
    const later = () => t.clock.advanceSeconds(SWEEP_AFTER_SECONDS + 1)
    const jobsOf = async (name: string, field: string, id: number) =>
      t.database.db.query<{ state: string }>(
        `SELECT state FROM ${t.database.jobSchema}.job WHERE name = $1 AND (data->>$2)::int = $3`,
        [name, field, id],
      )
    /** The queue gave up on the job (its retries spent and then deleted). */
    const dropJobs = (name: string, field: string, id: number) =>
      t.database.db.query(`DELETE FROM ${t.database.jobSchema}.job WHERE name = $1 AND (data->>$2)::int = $3`, [
        name,
        field,
        id,
      ])

    async function accountWithCard(card: string): Promise<TestAccount> {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const setup = json(await t.live({ method: 'POST', url: '/v4.0/account/payment-method/setup' }, account.liveKey))
      const sessionId = new URL(setup.setup.url).pathname.split('/').at(-1) as string
      const signed = standIn.signedEvent('checkout.session.completed', standIn.completeCheckout(sessionId, card))
      const event = t.app.services.paymentEvents
      assert.ok(event)
      await t.live(
        {
          method: 'POST',
          url: STRIPE_WEBHOOK_PATH,
          payload: signed.payload,
          headers: { 'content-type': 'application/json', 'stripe-signature': signed.header },
        },
        null,
      )
      await event.process('stripe', signed.event.id)
      return account
    }

    async function heldOrder(account: TestAccount): Promise<{ orderId: string; orderNumber: number; due: bigint }> {
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            items: [{ sku: PHONE_CASE, copies: 2, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
          }),
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id as string
      const held = await pipelineDriver(t).allocate(orderId)
      return {
        orderId,
        orderNumber: held.orderNumber,
        due: minor((held.document.charges[0] as Charge).totalCost.amount),
      }
    }

    async function chargeOf(orderNumber: number) {
      const rows = await t.database.db.query<{ id: number; status: string; key: string; paymentId: string | null }>(
        `SELECT id::int AS id, status, idempotency_key AS key, payment_id AS "paymentId" FROM provider_payments
          WHERE order_id = $1 AND purpose = 'orderCharge' ORDER BY id`,
        [orderNumber],
      )
      assert.equal(rows.length, 1)
      return rows[0] as (typeof rows)[number]
    }

    const intentCalls = (key: string) =>
      standIn.calls.filter((call) => call.path === '/v1/payment_intents' && call.idempotencyKey === key)

    test('a card charge whose job the queue gave up is put back and charged once; one still queued is left alone', async () => {
      const account = await accountWithCard(STAND_IN_CARDS.visa)
      const { orderId, orderNumber, due } = await heldOrder(account)
      const payment = await chargeOf(orderNumber)
      assert.equal(payment.status, 'open')
      later()
      // Its job still waits in the queue: nothing to put back.
      assert.equal((await sweep()).requeued, 0)
      // Stripe charged the card but its answer was lost, and the queue gave the job up.
      standIn.failNext({ status: 500, when: 'after', pathPrefix: '/v1/payment_intents' })
      await assert.rejects(t.app.services.savedCards.chargeHeldOrder(payment.id))
      await dropJobs('charge-saved-card', 'providerPaymentId', payment.id)
      assert.deepEqual(await sweep(), { counted: 0, expired: 0, requeued: 1, refundsSettled: 0, failed: 0 })
      assert.deepEqual(
        (await jobsOf('charge-saved-card', 'providerPaymentId', payment.id)).map((job) => job.state),
        ['created'],
      )
      assert.equal((await sweep()).requeued, 0, 'put back once')
      await t.app.services.savedCards.chargeHeldOrder(payment.id)
      assert.equal((await chargeOf(orderNumber)).status, 'succeeded')
      // The same key both times: Stripe answered the first PaymentIntent again, one payment.
      assert.deepEqual(
        intentCalls(payment.key).map((call) => call.replayed),
        [false, true],
      )
      const ledger = (await listLedger(t.database.db, accountNumber(account))).map((entry) => [
        entry.entry,
        entry.amountMinor,
      ])
      assert.deepEqual(ledger, [
        ['card-payment', due],
        ['balance-charge', -due],
      ])
      const document = await pipelineDriver(t).document(orderId)
      assert.deepEqual(withoutResolutionWarnings(document.status.issues), [])
    })

    test('a charge Stripe left pending is read back by the sweeper: paid releases the order, declined shows why', async () => {
      for (const outcome of ['succeeded', 'failed'] as const) {
        const account = await accountWithCard(STAND_IN_CARDS.pending)
        const { orderId, orderNumber, due } = await heldOrder(account)
        const payment = await chargeOf(orderNumber)
        await t.app.services.savedCards.chargeHeldOrder(payment.id)
        const pending = await chargeOf(orderNumber)
        assert.equal(pending.status, 'open')
        assert.ok(pending.paymentId?.startsWith('pi_'), 'the PaymentIntent is kept for the sweeper')
        later()
        // Still processing at the bank: read, left open.
        assert.equal((await sweep()).counted, 0)
        assert.equal((await chargeOf(orderNumber)).status, 'open')
        standIn.settlePayment(pending.paymentId as string, outcome)
        standIn.failNext({ status: 500, pathPrefix: '/v1/payment_intents/' })
        assert.equal((await sweep()).failed, 1, 'a Stripe failure is left for the next sweep')
        assert.deepEqual(await sweep(), { counted: 1, expired: 0, requeued: 0, refundsSettled: 0, failed: 0 })
        assert.equal((await sweep()).counted, 0, 'counted once')
        const issues = withoutResolutionWarnings((await pipelineDriver(t).document(orderId)).status.issues)
        const balance = await readBalance(t.database.db, accountNumber(account))
        if (outcome === 'succeeded') {
          assert.equal((await chargeOf(orderNumber)).status, 'succeeded')
          assert.deepEqual(issues, [])
          assert.equal(balance, 0n)
        } else {
          assert.equal((await chargeOf(orderNumber)).status, 'declined')
          assert.equal(issues.length, 1)
          assert.match(issues[0]?.description ?? '', /the card on file was declined: insufficient_funds$/)
          assert.equal(issues[0]?.authorisationDetails?.paymentDetails?.amount, (Number(due) / 100).toFixed(2))
        }
      }
    })

    test('a refund to the card whose job the queue gave up is put back, and refunded once', async () => {
      const account = await accountWithCard(STAND_IN_CARDS.visa)
      const { orderId, orderNumber } = await heldOrder(account)
      const payment = await chargeOf(orderNumber)
      await t.app.services.savedCards.chargeHeldOrder(payment.id)
      assert.equal((await chargeOf(orderNumber)).status, 'succeeded')
      const cancelled = await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.liveKey)
      assert.equal(cancelled.statusCode, 200, cancelled.body)
      const refunds = await t.database.db.query<{ id: number; key: string; status: string }>(
        `SELECT id::int AS id, idempotency_key AS key, status FROM provider_refunds WHERE order_id = $1`,
        [orderNumber],
      )
      assert.equal(refunds.length, 1)
      const refund = refunds[0] as (typeof refunds)[number]
      // Stripe refunded, the answer was lost, and the queue gave up on the job.
      standIn.failNext({ status: 500, when: 'after', pathPrefix: '/v1/refunds' })
      await assert.rejects(t.app.services.cardRefunds.runRefund(refund.id))
      await dropJobs('refund-card-payment', 'refundId', refund.id)
      // Not before 10 minutes.
      assert.equal((await sweep()).requeued, 0)
      later()
      assert.deepEqual(await sweep(), { counted: 0, expired: 0, requeued: 1, refundsSettled: 0, failed: 0 })
      assert.equal((await jobsOf('refund-card-payment', 'refundId', refund.id)).length, 1)
      await t.app.services.cardRefunds.runRefund(refund.id)
      const calls = standIn.calls.filter((call) => call.path === '/v1/refunds' && call.idempotencyKey === refund.key)
      assert.deepEqual(
        calls.map((call) => call.replayed),
        [false, true],
      )
      const paymentId = (await chargeOf(orderNumber)).paymentId
      assert.equal([...standIn.refunds.values()].filter((entry) => entry.payment_intent === paymentId).length, 1)
      const after = await t.database.db.query<{ status: string }>(`SELECT status FROM provider_refunds WHERE id = $1`, [
        refund.id,
      ])
      assert.equal(after[0]?.status, 'succeeded')
      assert.equal((await sweep()).requeued, 0, 'an answered refund is not swept')
    })

    test('a refund Stripe left pending and failed with no webhook is settled by the sweeper, once; a Stripe 500 leaves it for the next', async () => {
      const account = await accountWithCard(STAND_IN_CARDS.visa)
      const { orderId, orderNumber, due } = await heldOrder(account)
      const payment = await chargeOf(orderNumber)
      await t.app.services.savedCards.chargeHeldOrder(payment.id)
      const cancelled = await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.liveKey)
      assert.equal(cancelled.statusCode, 200, cancelled.body)
      const refundOf = async () => {
        const rows = await t.database.db.query<{ id: number; status: string; refundId: string | null }>(
          `SELECT id::int AS id, status, refund_id AS "refundId" FROM provider_refunds WHERE order_id = $1`,
          [orderNumber],
        )
        assert.equal(rows.length, 1)
        return rows[0] as (typeof rows)[number]
      }
      standIn.answerRefunds('pending')
      try {
        await t.app.services.cardRefunds.runRefund((await refundOf()).id)
      } finally {
        standIn.answerRefunds('succeeded')
      }
      const pending = await refundOf()
      assert.equal(pending.status, 'pending')
      const reads = () => standIn.calls.filter((call) => call.path === `/v1/refunds/${pending.refundId}`).length
      const balance = () => readBalance(t.database.db, accountNumber(account))
      assert.equal(await balance(), 0n)
      // Not before 10 minutes.
      assert.equal((await sweep()).refundsSettled, 0)
      assert.equal(reads(), 0)
      // Stripe's pending refund is still pending when first read: left as it is.
      later()
      assert.deepEqual(await sweep(), { counted: 0, expired: 0, requeued: 0, refundsSettled: 0, failed: 0 })
      assert.equal(reads(), 1)
      // The card account was closed; no webhook reaches printroute.
      standIn.updateRefund(pending.refundId as string, 'failed', 'expired_or_canceled_card')
      standIn.failNext({ status: 500, pathPrefix: '/v1/refunds/' })
      assert.deepEqual(await sweep(), { counted: 0, expired: 0, requeued: 0, refundsSettled: 0, failed: 1 })
      assert.equal((await refundOf()).status, 'pending', 'a Stripe failure is left for the next sweep')
      assert.equal(await balance(), 0n)
      assert.deepEqual(await sweep(), { counted: 0, expired: 0, requeued: 0, refundsSettled: 1, failed: 0 })
      assert.equal((await refundOf()).status, 'failed')
      assert.equal(await balance(), due, 'the money is back on the balance')
      // Settled once: the next sweep neither reads it again nor credits it again.
      const readsBefore = reads()
      assert.equal((await sweep()).refundsSettled, 0)
      assert.equal(reads(), readsBefore)
      assert.equal(await balance(), due)
      const ledger = (await listLedger(t.database.db, accountNumber(account))).map((entry) => [
        entry.entry,
        entry.amountMinor,
      ])
      assert.deepEqual(ledger.slice(-3), [
        ['balance-refund', due],
        ['card-refund', -due],
        ['balance-refund', due],
      ])
      const audit = await listAuditEvents(t.database.db, {
        accountId: accountNumber(account),
        actions: ['payment.cardRefundFailed'],
        limit: 10,
      })
      assert.equal(audit.length, 1)
      assert.equal(audit[0]?.target, orderId)
      // Stripe's webhook arriving late changes nothing more.
      const event = t.app.services.paymentEvents
      assert.ok(event)
      const late = standIn.signedEvent('charge.refund.updated', standIn.refunds.get(pending.refundId as string) ?? {})
      const received = await t.live(
        {
          method: 'POST',
          url: STRIPE_WEBHOOK_PATH,
          payload: late.payload,
          headers: { 'content-type': 'application/json', 'stripe-signature': late.header },
        },
        null,
      )
      assert.equal(received.statusCode, 200, received.body)
      await event.process('stripe', late.event.id)
      assert.equal(await balance(), due)
    })
  })
}
