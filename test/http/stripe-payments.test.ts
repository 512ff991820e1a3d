// Card payments through Stripe (docs/billing.md#card-payments-through-stripe), against the Stripe stand-in: a held
// order's payment link sends the payer to Checkout, the signed webhook is stored once and its job counts the payment
// once (redelivered, raced by a second event or by the sweeper), top-ups asked for on the API, the sweeper for a
// webhook that never came, and Stripe failing while a session is made.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge } from '../../src/domain/order.ts'
import type { PaymentGateway } from '../../src/domain/payment-gateway.ts'
import { STRIPE_WEBHOOK_PATH } from '../../src/http/routes/payment-webhooks.routes.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { createPaymentEventsService, type RefundedEvent } from '../../src/services/payment-events.service.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { gatewayOnStandIn, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databases = tier('http')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number
const LIVE = 'http://live.printroute.test'

for (const kind of databases) {
  describe(`card payments through Stripe (${kind})`, () => {
    let t: TestApp
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    let images: ImageServer
    let drive: PipelineDriver
    const now = () => (t ? t.clock.now() : new Date('2026-03-01T09:00:00.000Z'))

    before(async () => {
      standIn = await startStripeStandIn({ now })
      gateway = gatewayOnStandIn(standIn, {
        now,
        timeoutMs: 1000,
        maxNetworkRetries: 0,
      })
      t = await startTestApp({ kind, publicUrls: { live: LIVE }, paymentGateway: gateway })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
      await standIn.close()
    })

    const sessionCalls = () => standIn.calls.filter((call) => call.path === '/v1/checkout/sessions').length

    async function heldOrder(
      balance = 500n,
    ): Promise<{ account: TestAccount; orderId: string; link: URL; due: bigint }> {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      if (balance > 0n) await t.app.services.payments.topUp(accountNumber(account), balance, null, TEST_ACTOR)
      const payload = sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 3, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })
      const created = await t.live(
        { method: 'POST', url: '/v4.0/orders', payload, headers: { 'content-type': 'application/json' } },
        account.liveKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const orderId = json(created).order.id as string
      const held = await drive.allocate(orderId)
      const issue = held.document.status.issues.find((entry) => entry.errorCode === 'RequiresPaymentAuthorisation')
      assert.ok(issue, 'the order is held for payment')
      const link = new URL(issue.authorisationDetails?.authorisationUrl as string)
      assert.equal(link.pathname, `/payments/${orderId}`, 'the link keeps its shape')
      const due = minor((held.document.charges[0] as Charge).totalCost.amount)
      return { account, orderId, link, due }
    }

    /** Opens the payment link: the 303's Location (a Checkout Session at the stand-in). */
    async function checkout(link: URL): Promise<{ status: number; location: string; sessionId: string }> {
      const response = await t.live({ method: 'GET', url: `${link.pathname}${link.search}` }, null)
      const location = String(response.headers.location ?? '')
      return { status: response.statusCode, location, sessionId: location.split('/').at(-1) ?? '' }
    }

    async function deliver(signed: { payload: string; header?: string }) {
      return t.live(
        {
          method: 'POST',
          url: STRIPE_WEBHOOK_PATH,
          payload: signed.payload,
          headers: {
            'content-type': 'application/json; charset=utf-8',
            ...(signed.header ? { 'stripe-signature': signed.header } : {}),
          },
        },
        null,
      )
    }

    const processEvent = (eventId: string) => t.app.services.paymentEvents?.process('stripe', eventId)

    async function storedEvent(eventId: string) {
      const rows = await t.database.db.query<{ outcome: string | null; processed: boolean; livemode: boolean }>(
        `SELECT outcome, processed_at IS NOT NULL AS processed, livemode FROM provider_events
          WHERE provider = 'stripe' AND event_id = $1`,
        [eventId],
      )
      return rows[0]
    }

    const ledgerOf = async (account: TestAccount) =>
      (await listLedger(t.database.db, accountNumber(account))).map((entry) => [entry.entry, entry.amountMinor])

    test('a held order pays on Checkout: 303, the webhook stored once, the payment counted once, the order released', async () => {
      const { account, orderId, link, due } = await heldOrder()
      const calls = sessionCalls()
      const first = await checkout(link)
      assert.equal(first.status, 303)
      assert.ok(first.location.startsWith(`${standIn.url}/c/pay/`), first.location)
      const session = standIn.sessions.get(first.sessionId)
      assert.equal(session?.amount_total, Number(due), 'the session asks for what is due now')
      assert.equal(session?.success_url.startsWith(`${LIVE}/payments/${orderId}/return?token=`), true)
      // The same amount: the same open session, no new call to Stripe.
      assert.equal((await checkout(link)).location, first.location)
      assert.equal(sessionCalls(), calls + 1)
      // The simulated card form is not taken while Stripe takes the payments.
      const simulated = await t.live(
        {
          method: 'POST',
          url: link.pathname,
          payload: {
            token: link.searchParams.get('token'),
            amount: '1.00',
            card: { number: '4242424242424242', expiry: '12/39', cvc: '123' },
          },
          headers: { 'content-type': 'application/json' },
        },
        null,
      )
      assert.equal(simulated.statusCode, 404)

      const completed = standIn.completeCheckout(first.sessionId)
      const signed = standIn.signedEvent('checkout.session.completed', completed)
      const answer = await deliver(signed)
      assert.equal(answer.statusCode, 200, answer.body)
      assert.equal(json(answer).received, 'accepted')
      // Queued, not done: the balance moves only when the job runs.
      assert.equal((await storedEvent(signed.event.id))?.processed, false)
      assert.deepEqual(await ledgerOf(account), [['top-up', 500n]])

      await processEvent(signed.event.id)
      const stored = await storedEvent(signed.event.id)
      assert.match(stored?.outcome ?? '', /counted for .*released/)
      assert.equal(stored?.livemode, false)
      const released = await drive.state(orderId)
      assert.deepEqual(withoutResolutionWarnings(released.document.status.issues), [])
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.map((entry) => [entry.entry, entry.amountMinor]),
        [
          ['top-up', 500n],
          ['card-payment', due],
          ['balance-charge', -due],
        ],
      )
      assert.equal(ledger[1]?.reference, `stripe:${completed.payment_intent}`)
      const [row] = await t.database.db.query<{ status: string; linked: boolean }>(
        `SELECT status, ledger_entry_id IS NOT NULL AS linked FROM provider_payments WHERE session_id = $1`,
        [first.sessionId],
      )
      assert.deepEqual({ ...row }, { status: 'succeeded', linked: true })

      // Redelivered: stored already; processed again: nothing. Another event of the same session: nothing either.
      assert.equal(json(await deliver(signed)).received, 'duplicate')
      await processEvent(signed.event.id)
      const again = standIn.signedEvent('checkout.session.completed', completed)
      await deliver(again)
      await processEvent(again.event.id)
      assert.match((await storedEvent(again.event.id))?.outcome ?? '', /^already succeeded/)
      assert.equal((await listLedger(t.database.db, accountNumber(account))).length, 3)
      // The payer's return page says paid; the link now shows the page (nothing due), not Checkout.
      const back = await t.live({ method: 'GET', url: `/payments/${orderId}/return${link.search}&result=paid` }, null)
      assert.match(back.body, /Paid: nothing is due/)
      assert.equal((await checkout(link)).status, 200)
    })

    test('a double delivery at once and two events racing count the payment once', async () => {
      const { account, link, due } = await heldOrder(0n)
      const { sessionId } = await checkout(link)
      const completed = standIn.completeCheckout(sessionId)
      const signed = standIn.signedEvent('checkout.session.completed', completed)
      const answers = await Promise.all([deliver(signed), deliver(signed)])
      assert.deepEqual(answers.map((answer) => json(answer).received).sort(), ['accepted', 'duplicate'])
      const second = standIn.signedEvent('checkout.session.completed', completed)
      await deliver(second)
      await Promise.all([
        processEvent(signed.event.id),
        processEvent(second.event.id),
        t.app.services.hostedPayments.sweep(),
      ])
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', due],
        ['balance-charge', -due],
      ])
    })

    test('a wrong, missing or old signature is 400 with the error body, and nothing is stored', async () => {
      const completed = { id: 'cs_test_never', object: 'checkout.session', mode: 'payment' }
      const count = async () =>
        Number((await t.database.db.query<{ n: string }>('SELECT count(*)::text AS n FROM provider_events'))[0]?.n)
      const before = await count()
      const wrong = standIn.signedEvent('checkout.session.completed', completed, { secret: 'whsec_someoneelse' })
      const old = standIn.signedEvent('checkout.session.completed', completed, {
        timestamp: Math.floor(now().getTime() / 1000) - 400,
      })
      const tampered = standIn.signedEvent('checkout.session.completed', completed)
      for (const [name, signed] of [
        ['wrong secret', wrong],
        ['old timestamp', old],
        ['tampered body', { ...tampered, payload: tampered.payload.replace('cs_test_never', 'cs_test_other') }],
        ['no header', { payload: tampered.payload }],
      ] as const) {
        const answer = await deliver(signed)
        assert.equal(answer.statusCode, 400, name)
        const body = json(answer)
        assert.equal(body.outcome, 'ValidationFailed', name)
        assert.ok(body.failures['Stripe-Signature'], name)
        assert.doesNotMatch(answer.body, /whsec_|sk_test/, name)
      }
      assert.equal(await count(), before)
    })

    test('an event for a session printroute never made is stored and says so; nothing is counted', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const foreign = await gateway.startHostedPayment({
        purpose: 'topUp',
        accountId: account.id,
        currency: 'GBP',
        amountMinor: 1000n,
        description: 'made elsewhere',
        successUrl: 'https://elsewhere.example/ok',
        cancelUrl: 'https://elsewhere.example/no',
        idempotencyKey: 'not-printroute-1',
      })
      const signed = standIn.signedEvent('checkout.session.completed', standIn.completeCheckout(foreign.sessionId))
      assert.equal((await deliver(signed)).statusCode, 200)
      await processEvent(signed.event.id)
      assert.match((await storedEvent(signed.event.id))?.outcome ?? '', /^unknown payment/)
      assert.deepEqual(await ledgerOf(account), [])
      // Kinds nobody handles yet are stored and processed as such.
      const other = standIn.signedEvent('customer.created', { id: 'cus_x', object: 'customer' })
      await deliver(other)
      await processEvent(other.event.id)
      assert.equal((await storedEvent(other.event.id))?.outcome, 'not handled: customer.created')
    })

    test('a handler that throws leaves the event unprocessed for the retry; a handler routes its kind', async () => {
      const { link } = await heldOrder()
      const { sessionId } = await checkout(link)
      const completed = standIn.completeCheckout(sessionId)
      const paid = standIn.signedEvent('checkout.session.completed', completed)
      await deliver(paid)
      await processEvent(paid.event.id)
      const refunded = standIn.signedEvent('charge.refunded', standIn.chargeOf(completed.payment_intent))
      assert.equal((await deliver(refunded)).statusCode, 200)
      const withHandler = (refundedHandler: (event: RefundedEvent) => Promise<string>) =>
        createPaymentEventsService({
          db: t.database.db,
          clock: t.clock,
          jobs: { enqueue: async () => {}, insertStatement: async () => ({ text: '', parameter: '' }) },
          gateway,
          hostedPayments: t.app.services.hostedPayments,
          handlers: { refunded: refundedHandler },
        })
      await assert.rejects(
        withHandler(async () => {
          throw new Error('the refunds service is down')
        }).process('stripe', refunded.event.id),
        /down/,
      )
      assert.equal((await storedEvent(refunded.event.id))?.processed, false)
      let seen: RefundedEvent | undefined
      await withHandler(async (event) => {
        seen = event
        return 'refund recorded'
      }).process('stripe', refunded.event.id)
      assert.equal((await storedEvent(refunded.event.id))?.outcome, 'refund recorded')
      assert.equal(seen?.paymentId, completed.payment_intent)
      assert.equal(typeof seen?.amountRefundedMinor, 'bigint', 'amounts come back as bigint from the stored payload')
      // The application's own dispatcher routes it to the refunds service: nothing refunded, nothing changed.
      const again = standIn.signedEvent('charge.refunded', standIn.chargeOf(completed.payment_intent))
      await deliver(again)
      await processEvent(again.event.id)
      assert.match((await storedEvent(again.event.id))?.outcome ?? '', /^refunded 0\.00 GBP as printroute knows/)
    })

    for (const fault of [
      { name: '500', status: 500 },
      { name: '429', status: 429 },
      { name: 'a timeout', hang: true },
      { name: 'a 500 after the session was made', status: 500, when: 'after' as const },
    ]) {
      test(`Stripe failing with ${fault.name} while the session is made: a retry-later page, then the next try works`, async () => {
        const { link } = await heldOrder()
        standIn.failNext({ ...fault, pathPrefix: '/v1/checkout/sessions' })
        const failed = await t.live({ method: 'GET', url: `${link.pathname}${link.search}` }, null)
        assert.equal(failed.statusCode, 503)
        assert.match(failed.headers['content-type'] as string, /text\/html/)
        assert.match(failed.body, /try again/)
        assert.doesNotMatch(failed.body, /sk_test|whsec_/)
        const retried = await checkout(link)
        assert.equal(retried.status, 303)
        assert.ok(standIn.sessions.has(retried.sessionId))
        // One session for the payment, however the first call ended: the same idempotency key was repeated.
        const keys = standIn.calls.filter((call) => call.path === '/v1/checkout/sessions').map((c) => c.idempotencyKey)
        assert.equal(keys.at(-1), keys.at(-2))
      })
    }

    test('the sweeper counts a payment whose webhook never came, once; expires ended sessions; survives Stripe errors', async () => {
      const { account, orderId, link, due } = await heldOrder(0n)
      const { sessionId } = await checkout(link)
      // Stripe took the money; the process died before any webhook was counted.
      const completed = standIn.completeCheckout(sessionId)
      assert.deepEqual(await t.app.services.hostedPayments.sweep(), {
        counted: 0,
        expired: 0,
        requeued: 0,
        refundsSettled: 0,
        failed: 0,
      })
      t.clock.advanceSeconds(11 * 60)
      standIn.failNext({ status: 500, pathPrefix: `/v1/checkout/sessions/${sessionId}` })
      const failing = await t.app.services.hostedPayments.sweep()
      assert.equal(failing.failed, 1)
      assert.equal(failing.counted, 0)
      const swept = await t.app.services.hostedPayments.sweep()
      assert.equal(swept.counted, 1)
      assert.equal((await t.app.services.hostedPayments.sweep()).counted, 0)
      assert.deepEqual(withoutResolutionWarnings((await drive.state(orderId)).document.status.issues), [])
      // The webhook arrives late: nothing twice.
      const late = standIn.signedEvent('checkout.session.completed', completed)
      await deliver(late)
      await processEvent(late.event.id)
      assert.match((await storedEvent(late.event.id))?.outcome ?? '', /^already/)
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', due],
        ['balance-charge', -due],
      ])

      // A session that ended unpaid is expired; one still open is left.
      const other = await heldOrder(0n)
      const open = await checkout(other.link)
      const ending = await heldOrder(0n)
      const ended = await checkout(ending.link)
      ;(standIn.sessions.get(ended.sessionId) as Record<string, unknown>).status = 'expired'
      t.clock.advanceSeconds(11 * 60)
      const result = await t.app.services.hostedPayments.sweep()
      assert.equal(result.expired, 1)
      const statuses = await t.database.db.query<{ sessionId: string; status: string }>(
        `SELECT session_id AS "sessionId", status FROM provider_payments WHERE session_id = ANY($1::text[])`,
        [[open.sessionId, ended.sessionId]],
      )
      assert.deepEqual(Object.fromEntries(statuses.map((row) => [row.sessionId, row.status])), {
        [open.sessionId]: 'open',
        [ended.sessionId]: 'expired',
      })
      // The expired one's link makes a new session; the order still owes.
      const renewed = await checkout(ending.link)
      assert.notEqual(renewed.sessionId, ended.sessionId)
    })

    test('paid after the order was cancelled: the payment stays on the balance', async () => {
      const { account, orderId, link, due } = await heldOrder(0n)
      const { sessionId } = await checkout(link)
      const cancel = await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.liveKey)
      assert.equal(json(cancel).outcome, 'Cancelled')
      const signed = standIn.signedEvent('checkout.session.completed', standIn.completeCheckout(sessionId))
      await deliver(signed)
      await processEvent(signed.event.id)
      assert.match((await storedEvent(signed.event.id))?.outcome ?? '', /credited to the balance/)
      assert.equal(await readBalance(t.database.db, accountNumber(account)), due)
    })

    test('a top-up: asked for on the API, paid on Checkout, counted once with its audit entry, releasing held orders', async () => {
      const { account, orderId, due } = await heldOrder(0n)
      const post = (payload: Record<string, string>, key = account.liveKey) =>
        t.live(
          { method: 'POST', url: '/v4.0/account/top-ups', payload, headers: { 'content-type': 'application/json' } },
          key,
        )
      const amount = (due + 1000n).toString().replace(/(\d\d)$/, '.$1')
      const created = await post({ amount })
      assert.equal(created.statusCode, 201, created.body)
      const topUp = json(created).topUp
      assert.match(topUp.id, /^top_\d+$/)
      assert.equal(topUp.amount, amount)
      assert.equal(topUp.currency, 'GBP')
      assert.equal(topUp.status, 'open')
      const url = new URL(topUp.url)
      assert.equal(url.origin, LIVE)
      assert.equal(url.pathname, `/payments/top-ups/${topUp.id}`)
      assert.equal(new Date(topUp.expiresAt).getTime() - new Date(topUp.created).getTime(), 24 * 3600 * 1000)

      const page = await t.live({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
      assert.equal(page.statusCode, 303)
      const sessionId = String(page.headers.location).split('/').at(-1) as string
      assert.equal(standIn.sessions.get(sessionId)?.metadata.printroute_purpose, 'topUp')
      assert.equal((await t.live({ method: 'GET', url: `${url.pathname}?token=wrong` }, null)).statusCode, 404)
      const completed = standIn.completeCheckout(sessionId)
      const signed = standIn.signedEvent('checkout.session.completed', completed)
      await deliver(signed)
      await processEvent(signed.event.id)
      assert.match((await storedEvent(signed.event.id))?.outcome ?? '', new RegExp(`released ${orderId}`))
      await t.app.services.hostedPayments.sweep()
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.map((entry) => [entry.entry, entry.amountMinor]),
        [
          ['top-up', due + 1000n],
          ['balance-charge', -due],
        ],
      )
      assert.equal(ledger[0]?.reference, `stripe:${completed.payment_intent}`)
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 1000n)
      const [audit] = await listAuditEvents(t.database.db, {
        accountId: accountNumber(account),
        actions: ['account.toppedUp'],
        limit: 5,
      })
      assert.equal(audit?.actorKind, 'key')
      const read = await t.live({ method: 'GET', url: `/v4.0/account/top-ups/${topUp.id}` }, account.liveKey)
      assert.equal(json(read).topUp.status, 'succeeded')
      assert.equal(json(read).topUp.url, undefined, 'the link is given once')
      const closed = await t.live({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
      assert.match(closed.body, /added to the balance/)
      // Another account's top-up is not found.
      const stranger = await t.createAccount({ billingMode: 'prepaid' })
      const hidden = await t.live({ method: 'GET', url: `/v4.0/account/top-ups/${topUp.id}` }, stranger.liveKey)
      assert.equal(hidden.statusCode, 404)
    })

    test('top-ups refused: Sandbox key, invoice account, amounts out of bounds', async () => {
      const prepaid = await t.createAccount({ billingMode: 'prepaid' })
      const post = (payload: Record<string, string>, key: string, server: 'live' | 'sandbox' = 'live') =>
        t[server](
          { method: 'POST', url: '/v4.0/account/top-ups', payload, headers: { 'content-type': 'application/json' } },
          key,
        )
      const sandbox = await post({ amount: '10.00' }, prepaid.sandboxKey, 'sandbox')
      assert.equal(sandbox.statusCode, 400)
      assert.ok(json(sandbox).failures.apiKey)
      const invoice = await post({ amount: '10.00' }, t.account.liveKey)
      assert.equal(invoice.statusCode, 400)
      assert.deepEqual(json(invoice).failures.billingMode[0].validValues, ['prepaid'])
      for (const [amount, code] of [
        ['0', 'MustBeGreaterThanOrEqualTo'],
        ['-5.00', 'MustBeGreaterThanOrEqualTo'],
        ['1000000.00', 'MustBeLessThanOrEqualTo'],
        ['ten', 'InvalidFormat'],
        ['1.234', 'InvalidFormat'],
      ] as const) {
        const refused = await post({ amount }, prepaid.liveKey)
        assert.equal(refused.statusCode, 400, amount)
        assert.equal(json(refused).failures.amount[0].code, code, amount)
      }
      assert.equal((await post({ amount: '999999.99' }, prepaid.liveKey)).statusCode, 201)
    })
  })

  describe(`top-ups and webhooks without a payment gateway (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind, publicUrls: { live: LIVE } })
    })
    after(async () => {
      await t.close()
    })

    test('the top-up link shows the card form, and paying it credits the balance; no webhook route', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/account/top-ups',
          payload: { amount: '25.00' },
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      assert.equal(created.statusCode, 201, created.body)
      const url = new URL(json(created).topUp.url)
      const form = await t.live({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
      assert.equal(form.statusCode, 200)
      assert.match(form.body, /Pay 25\.00 GBP/)
      const pay = (number: string) =>
        t.live(
          {
            method: 'POST',
            url: url.pathname,
            payload: {
              token: url.searchParams.get('token'),
              amount: '25.00',
              card: { number, expiry: '12/39', cvc: '123' },
            },
            headers: { 'content-type': 'application/json' },
          },
          null,
        )
      assert.equal(json(await pay('4000000000000002')).outcome, 'Declined')
      assert.equal(json(await pay('4242424242424242')).outcome, 'Paid')
      assert.equal(json(await pay('4242424242424242')).outcome, 'NothingDue')
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 2500n)
      const read = await t.live(
        { method: 'GET', url: `/v4.0/account/top-ups/${json(created).topUp.id}` },
        account.liveKey,
      )
      assert.equal(json(read).topUp.status, 'succeeded')
      const webhook = await t.live(
        { method: 'POST', url: STRIPE_WEBHOOK_PATH, payload: '{}', headers: { 'content-type': 'application/json' } },
        null,
      )
      assert.equal(webhook.statusCode, 404)
    })

    test('a top-up link past its 24 hours is expired', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const created = await t.live(
        {
          method: 'POST',
          url: '/v4.0/account/top-ups',
          payload: { amount: '5.00' },
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      const url = new URL(json(created).topUp.url)
      t.clock.advanceSeconds(24 * 3600 + 1)
      const page = await t.live({ method: 'GET', url: `${url.pathname}${url.search}` }, null)
      assert.match(page.body, /expired/)
      const read = await t.live(
        { method: 'GET', url: `/v4.0/account/top-ups/${json(created).topUp.id}` },
        account.liveKey,
      )
      assert.equal(json(read).topUp.status, 'expired')
    })
  })
}
