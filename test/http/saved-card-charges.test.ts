// Off-session charges of the card on file (docs/billing.md#a-card-on-file): a Live prepaid order the balance cannot
// cover is held, its card charged by the job `charge-saved-card` through the Stripe gateway against the local Stripe
// stand-in, and the answer recorded once: paid -> credited and paid from the balance, released; authentication
// needed or declined -> the RequiresPaymentAuthorisation issue saying why. Retries repeat the same idempotency key,
// after a 500, a 429 or a request that timed out (before or after Stripe made the payment).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import type { Charge, OrderDocument } from '../../src/domain/order.ts'
import { type PaymentGateway, PaymentGatewayError } from '../../src/domain/payment-gateway.ts'
import { readBalance } from '../../src/repositories/accounts.repository.ts'
import { listLedger } from '../../src/repositories/billing.repository.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { withoutResolutionWarnings } from '../support/issues.ts'
import { minorUnits as minor } from '../support/money.ts'
import { PHONE_CASE, type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { gatewayOnStandIn, STAND_IN_CARDS, type StripeStandIn, startStripeStandIn } from '../support/stripe-stand-in.ts'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const accountNumber = (account: TestAccount) => parseId('acc', account.id) as number
const ISSUE = 'RequiresPaymentAuthorisation'

interface PaymentRow {
  id: number
  status: string
  amount: string
  key: string
  paymentId: string | null
  declineReason: string | null
  ledgerEntry: number | null
}

for (const kind of databaseKinds) {
  describe(`charges of the card on file (${kind})`, () => {
    let t: TestApp
    let standIn: StripeStandIn
    let gateway: PaymentGateway
    /** The gateway the app charges through: `gateway`, or for the timeout tests one that gives up after 300 ms. */
    let inUse: PaymentGateway
    let images: ImageServer
    let drive: PipelineDriver
    before(async () => {
      standIn = await startStripeStandIn()
      // No retries inside the library: the job's own retry is what these tests watch.
      gateway = gatewayOnStandIn(standIn, {
        maxNetworkRetries: 0,
        timeoutMs: 2000,
      })
      inUse = gateway
      // The app keeps the gateway it is given; this one hands each call to `inUse` (the Stripe gateway uses no `this`).
      const switching = new Proxy({} as PaymentGateway, { get: (_target, property) => Reflect.get(inUse, property) })
      t = await startTestApp({ kind, publicUrls: { live: 'https://live.printroute.test' }, paymentGateway: switching })
      images = await startImageServer()
      drive = pipelineDriver(t)
    })
    after(async () => {
      await t.close()
      await images.close()
      await standIn.close()
    })

    const phoneOrder = (copies = 3) =>
      sampleOrder({
        items: [{ sku: PHONE_CASE, copies, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      })

    async function create(account: TestAccount, copies = 3): Promise<string> {
      const response = await t.live(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: phoneOrder(copies),
          headers: { 'content-type': 'application/json' },
        },
        account.liveKey,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response).order.id
    }

    /** A prepaid account whose card on file is `card` (saved through the setup page and its webhook event). */
    async function accountWithCard(card: string = STAND_IN_CARDS.visa): Promise<TestAccount> {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const setup = json(await t.live({ method: 'POST', url: '/v4.0/account/payment-method/setup' }, account.liveKey))
      const sessionId = new URL(setup.setup.url).pathname.split('/').at(-1) as string
      const signed = standIn.signedEvent('checkout.session.completed', standIn.completeCheckout(sessionId, card))
      const event = gateway.verifyWebhook(signed.payload, signed.header)
      assert.equal(event.kind, 'checkoutCompleted')
      if (event.kind !== 'checkoutCompleted') throw new Error('not a checkout')
      assert.match(await t.app.services.savedCards.completeCardSetup(event), /^card saved for acc_\d+/)
      return account
    }

    async function paymentsOf(orderId: string): Promise<PaymentRow[]> {
      return t.database.db.query<PaymentRow>(
        `SELECT id::int AS id, status, amount_minor::text AS amount, idempotency_key AS key, payment_id AS "paymentId",
                decline_reason AS "declineReason", ledger_entry_id::int AS "ledgerEntry"
         FROM provider_payments WHERE order_id = $1 AND purpose = 'orderCharge' ORDER BY id`,
        [parseId('ord', orderId)],
      )
    }

    /** Allocates the order (held: the balance is empty) and answers its one open charge of the card. */
    async function heldWithCharge(orderId: string): Promise<{ payment: PaymentRow; due: bigint }> {
      const held = await drive.allocate(orderId)
      const due = minor((held.document.charges[0] as Charge).totalCost.amount)
      const payments = await paymentsOf(orderId)
      assert.equal(payments.length, 1)
      const payment = payments[0] as PaymentRow
      assert.equal(payment.status, 'open')
      assert.equal(BigInt(payment.amount), due)
      // Its job was queued with the hold, in the same transaction.
      const jobs = await t.database.db.query(
        `SELECT 1 FROM ${t.database.jobSchema}.job WHERE name = 'charge-saved-card' AND (data->>'providerPaymentId')::int = $1`,
        [payment.id],
      )
      assert.equal(jobs.length, 1)
      return { payment, due }
    }

    const charge = (payment: PaymentRow) => t.app.services.savedCards.chargeHeldOrder(payment.id)
    const paymentIntentCalls = (key: string) =>
      standIn.calls.filter((call) => call.path === '/v1/payment_intents' && call.idempotencyKey === key)
    const issuesOf = async (orderId: string) => withoutResolutionWarnings((await drive.document(orderId)).status.issues)
    /** The account's ledger as [entry, amount] pairs. */
    const ledgerOf = async (account: TestAccount) =>
      (await listLedger(t.database.db, accountNumber(account))).map((entry) => [entry.entry, entry.amountMinor])
    /** The PaymentIntents the stand-in holds for the order. */
    const intentsOf = (orderId: string) =>
      [...standIn.paymentIntents.values()].filter((intent) => intent.metadata?.printroute_order_id === orderId)

    async function rejectsRetryably(promise: Promise<unknown>): Promise<void> {
      await assert.rejects(promise, (error: unknown) => error instanceof PaymentGatewayError && error.retryable)
    }

    test('held with a card on file: no issue while charged; paid: credited, paid from the balance, released', async () => {
      const account = await accountWithCard()
      const orderId = await create(account)
      const { payment, due } = await heldWithCharge(orderId)
      assert.match(payment.key, new RegExp(`^printroute-order-charge-${orderId}-chg_\\d+-${payment.id}$`))
      // On hold while the card is charged: no issue shown, and no shipment goes to a lab.
      assert.deepEqual(await issuesOf(orderId), [])
      await drive.render(orderId)
      const waiting = await drive.submit(orderId)
      assert.ok(Object.values(waiting.pipeline.shipments).every((shipment) => shipment.state === 'allocated'))
      const list = async () =>
        json(await t.live({ method: 'GET', url: '/v4.0/orders?status=awaitingPayment' }, account.liveKey)).orders.map(
          (order: OrderDocument) => order.id,
        )
      assert.deepEqual(await list(), [orderId])

      await charge(payment)
      const [paid] = await paymentsOf(orderId)
      assert.equal(paid?.status, 'succeeded')
      assert.match(paid?.paymentId ?? '', /^pi_/)
      const ledger = await listLedger(t.database.db, accountNumber(account))
      assert.deepEqual(
        ledger.map((entry) => [entry.entry, entry.amountMinor, entry.reference?.startsWith('stripe:') ?? false]),
        [
          ['card-payment', due, true],
          ['balance-charge', -due, false],
        ],
      )
      assert.equal(ledger[0]?.reference, `stripe:${paid?.paymentId}`)
      assert.ok(paid?.ledgerEntry)
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n)
      assert.deepEqual(await list(), [])
      const released = await drive.state(orderId)
      assert.deepEqual(withoutResolutionWarnings(released.document.status.issues), [])
      assert.equal(released.document.status.details.inProduction, 'InProgress')
      const submitted = await drive.submit(orderId)
      assert.ok(Object.values(submitted.pipeline.shipments).every((shipment) => shipment.state === 'submitted'))
      // Stripe was asked once, for the order's amount, off-session, with the payment's key.
      const calls = paymentIntentCalls(payment.key)
      assert.equal(calls.length, 1)
      assert.equal(calls[0]?.params.amount, String(due))
      assert.equal(calls[0]?.params.off_session, 'true')

      // The job run again (a redelivered job) finds the payment ended: nothing is asked or counted twice.
      await charge(payment)
      assert.equal(paymentIntentCalls(payment.key).length, 1)
      assert.equal((await listLedger(t.database.db, accountNumber(account))).length, 2)
    })

    for (const [label, card] of [
      ['authentication required (402)', STAND_IN_CARDS.authenticationRequired],
      ['3-D Secure required (requires_action)', STAND_IN_CARDS.threeDSecureRequired],
    ] as const) {
      test(`the bank wants the cardholder, ${label}: the issue with the payment page, saying so`, async () => {
        const account = await accountWithCard(card)
        const orderId = await create(account)
        const { payment, due } = await heldWithCharge(orderId)
        await charge(payment)
        const [ended] = await paymentsOf(orderId)
        assert.equal(ended?.status, 'requiresAction')
        const [issue] = await issuesOf(orderId)
        assert.equal(issue?.errorCode, ISSUE)
        assert.match(issue?.description ?? '', /card on file needs the cardholder's authentication \(3-D Secure\)/)
        const url = new URL(issue?.authorisationDetails?.authorisationUrl as string)
        assert.equal(url.origin, 'https://live.printroute.test')
        assert.equal(url.pathname, `/payments/${orderId}`)
        assert.equal(minor(issue?.authorisationDetails?.paymentDetails.amount as string), due)
        assert.deepEqual(await listLedger(t.database.db, accountNumber(account)), [])
      })
    }

    for (const [card, reason] of [
      [STAND_IN_CARDS.declined, 'generic_decline'],
      [STAND_IN_CARDS.insufficientFunds, 'insufficient_funds'],
    ] as const) {
      test(`a decline (${reason}): the issue names the reason; nothing is counted`, async () => {
        const account = await accountWithCard(card)
        const orderId = await create(account)
        const { payment } = await heldWithCharge(orderId)
        await charge(payment)
        const [ended] = await paymentsOf(orderId)
        assert.equal(ended?.status, 'declined')
        assert.equal(ended?.declineReason, reason)
        const [issue] = await issuesOf(orderId)
        assert.equal(issue?.errorCode, ISSUE)
        assert.match(issue?.description ?? '', new RegExp(`the card on file was declined: ${reason}$`))
        assert.deepEqual(await listLedger(t.database.db, accountNumber(account)), [])
        // A retried job changes nothing more.
        await charge(payment)
        assert.equal((await issuesOf(orderId)).length, 1)
      })
    }

    for (const status of [500, 429]) {
      test(`Stripe answers ${status}: the job is retried with the same key and the order paid once`, async () => {
        const account = await accountWithCard()
        const orderId = await create(account)
        const { payment, due } = await heldWithCharge(orderId)
        standIn.failNext({ status, pathPrefix: '/v1/payment_intents' })
        await rejectsRetryably(charge(payment))
        assert.equal((await paymentsOf(orderId))[0]?.status, 'open')
        assert.deepEqual(await issuesOf(orderId), [], 'still being charged: no issue yet')
        await charge(payment)
        const calls = paymentIntentCalls(payment.key)
        assert.deepEqual(
          calls.map((call) => call.status),
          [status, 200],
        )
        assert.deepEqual(await ledgerOf(account), [
          ['card-payment', due],
          ['balance-charge', -due],
        ])
      })
    }

    test('the answer lost after the effect: the retry finds the same PaymentIntent, counted once', async () => {
      const account = await accountWithCard()
      const orderId = await create(account)
      const { payment, due } = await heldWithCharge(orderId)
      standIn.failNext({ status: 500, when: 'after', pathPrefix: '/v1/payment_intents' })
      await rejectsRetryably(charge(payment))
      await charge(payment)
      const calls = paymentIntentCalls(payment.key)
      assert.deepEqual(
        calls.map((call) => [call.status, call.replayed]),
        [
          [500, false],
          [200, true],
        ],
      )
      const intents = intentsOf(orderId)
      assert.equal(intents.length, 1, 'one PaymentIntent at Stripe')
      const [paid] = await paymentsOf(orderId)
      assert.equal(paid?.paymentId, intents[0]?.id)
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', due],
        ['balance-charge', -due],
      ])
      assert.deepEqual(await issuesOf(orderId), [])
    })

    for (const when of ['before', 'after'] as const) {
      const what = when === 'before' ? 'before Stripe made the payment' : 'after Stripe made the payment'
      test(`a charge that times out ${what}: retried with the same key, counted once`, async () => {
        const account = await accountWithCard()
        const orderId = await create(account)
        const { payment, due } = await heldWithCharge(orderId)
        // Stripe holds its answer; the gateway gives up after 300 ms, without retrying inside the library.
        inUse = gatewayOnStandIn(standIn, { maxNetworkRetries: 0, timeoutMs: 300 })
        try {
          standIn.failNext({ hang: true, when, pathPrefix: '/v1/payment_intents' })
          await rejectsRetryably(charge(payment))
        } finally {
          inUse = gateway
        }
        assert.equal(intentsOf(orderId).length, when === 'after' ? 1 : 0)
        // Nothing counted while the answer is unknown: the payment stays open, the order held without an issue.
        const [open] = await paymentsOf(orderId)
        assert.equal(open?.status, 'open')
        assert.equal(open?.ledgerEntry, null)
        assert.deepEqual(await listLedger(t.database.db, accountNumber(account)), [])
        assert.deepEqual(await issuesOf(orderId), [], 'still being charged: no issue yet')

        // The job's retry: the same key finds the payment Stripe made (a replay) or makes it now; a run after that
        // asks Stripe nothing more.
        await charge(payment)
        await charge(payment)
        assert.deepEqual(
          paymentIntentCalls(payment.key).map((call) => [call.status, call.replayed]),
          [
            [0, false],
            [200, when === 'after'],
          ],
        )
        const intents = intentsOf(orderId)
        assert.equal(intents.length, 1, 'one PaymentIntent at Stripe')
        const [paid] = await paymentsOf(orderId)
        assert.equal(paid?.status, 'succeeded')
        assert.equal(paid?.paymentId, intents[0]?.id)
        assert.deepEqual(await ledgerOf(account), [
          ['card-payment', due],
          ['balance-charge', -due],
        ])
        assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n)
        assert.deepEqual(await issuesOf(orderId), [])
      })
    }

    test('the job run twice at once (two workers): one PaymentIntent, the answer counted once', async () => {
      const account = await accountWithCard()
      const orderId = await create(account)
      const { payment, due } = await heldWithCharge(orderId)
      await Promise.all([charge(payment), charge(payment)])
      const intents = intentsOf(orderId)
      assert.equal(intents.length, 1)
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', due],
        ['balance-charge', -due],
      ])
    })

    test('an order cancelled while its charge is in flight: the money stays on the balance', async () => {
      const account = await accountWithCard()
      const orderId = await create(account)
      const { payment, due } = await heldWithCharge(orderId)
      const cancelled = json(
        await t.live({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/cancel` }, account.liveKey),
      )
      assert.equal(cancelled.outcome, 'Cancelled')
      await charge(payment)
      assert.equal((await paymentsOf(orderId))[0]?.status, 'succeeded')
      assert.deepEqual(await ledgerOf(account), [['card-payment', due]])
      assert.equal(await readBalance(t.database.db, accountNumber(account)), due)
      assert.deepEqual(await issuesOf(orderId), [])
    })

    test('a second order held while the first is charged: each is charged once, for its own amount', async () => {
      const account = await accountWithCard()
      const first = await create(account, 3)
      const second = await create(account, 1)
      const one = await heldWithCharge(first)
      const two = await heldWithCharge(second)
      assert.notEqual(one.due, two.due)
      assert.notEqual(one.payment.key, two.payment.key)
      await charge(two.payment)
      await charge(one.payment)
      for (const { payment, due } of [one, two]) {
        const calls = paymentIntentCalls(payment.key)
        assert.equal(calls.length, 1)
        assert.equal(calls[0]?.params.amount, String(due))
      }
      assert.deepEqual(await ledgerOf(account), [
        ['card-payment', two.due],
        ['balance-charge', -two.due],
        ['card-payment', one.due],
        ['balance-charge', -one.due],
      ])
      assert.equal(await readBalance(t.database.db, accountNumber(account)), 0n)
      assert.deepEqual(await issuesOf(first), [])
      assert.deepEqual(await issuesOf(second), [])
    })

    test('a prepaid account without a card: held with the issue at once, as before; no charge is asked', async () => {
      const account = await t.createAccount({ billingMode: 'prepaid' })
      const orderId = await create(account)
      await drive.allocate(orderId)
      assert.deepEqual(await paymentsOf(orderId), [])
      const [issue] = await issuesOf(orderId)
      assert.equal(issue?.errorCode, ISSUE)
      assert.match(issue?.description ?? '', /the account's prepaid balance does not cover it$/)
    })

    test('a balance that covers the order is used first: the card is not charged', async () => {
      const account = await accountWithCard()
      await t.app.services.payments.topUp(accountNumber(account), 100_000n, null, {
        kind: 'cli',
        host: 'test',
        user: 'test',
      })
      const orderId = await create(account)
      await drive.allocate(orderId)
      assert.deepEqual(await paymentsOf(orderId), [])
      assert.deepEqual(await issuesOf(orderId), [])
    })
  })
}
