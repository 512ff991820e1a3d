import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { STAND_IN_CARDS, type StripeStandIn, startStripeStandIn } from '../../test/support/stripe-stand-in.ts'
import { tier } from '../../test/support/tiers.ts'
import { type PaymentEvent, type PaymentGateway, PaymentGatewayError } from '../domain/payment-gateway.ts'
import {
  createStripeGateway,
  fromStripeAmount,
  type StripeGatewayOptions,
  stripeConnectionSettings,
  toStripeAmount,
} from './stripe-gateway.ts'

tier('pure')

let standIn: StripeStandIn
let gateway: PaymentGateway
let keys = 0
const key = (label: string) => `test-${label}-${++keys}`

function gatewayWith(overrides: Partial<StripeGatewayOptions> = {}): PaymentGateway {
  return createStripeGateway({
    secretKey: standIn.secretKey,
    webhookSecret: standIn.webhookSecret,
    apiUrl: standIn.url,
    maxNetworkRetries: 0,
    ...overrides,
  })
}

before(async () => {
  standIn = await startStripeStandIn()
  gateway = gatewayWith()
})
after(() => standIn.close())

async function rejectsWith(promise: Promise<unknown>, code: string, retryable: boolean): Promise<PaymentGatewayError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof PaymentGatewayError, `expected a PaymentGatewayError, got ${String(error)}`)
    assert.equal(error.code, code, error.message)
    assert.equal(error.retryable, retryable)
    return error
  }
  assert.fail(`expected ${code}`)
}

function hostedPayment(idempotencyKey: string, amountMinor = 1250n) {
  return gateway.startHostedPayment({
    purpose: 'orderPayment',
    accountId: 'acc_1',
    orderId: 'ord_1',
    currency: 'GBP',
    amountMinor,
    description: 'Order ord_1',
    successUrl: 'http://127.0.0.1:1/paid',
    cancelUrl: 'http://127.0.0.1:1/cancelled',
    idempotencyKey,
  })
}

async function savedCard(accountId: string) {
  const setup = await gateway.startCardSetup({
    accountId,
    successUrl: 'http://127.0.0.1:1/saved',
    cancelUrl: 'http://127.0.0.1:1/cancelled',
    idempotencyKey: key('setup'),
  })
  standIn.completeCheckout(setup.sessionId)
  const state = await gateway.readSession(setup.sessionId)
  return gateway.readSavedCard(state.setupId!)
}

function charge(customerId: string, paymentMethodId: string, idempotencyKey: string, amountMinor = 999n) {
  return gateway.chargeSavedCard({
    accountId: 'acc_card',
    orderId: 'ord_card',
    customerId,
    paymentMethodId,
    currency: 'GBP',
    amountMinor,
    description: 'Order ord_card',
    idempotencyKey,
  })
}

async function paidPayment(amountMinor: bigint): Promise<string> {
  const session = await hostedPayment(key('pay'), amountMinor)
  standIn.completeCheckout(session.sessionId)
  return (await gateway.readSession(session.sessionId)).paymentId!
}

describe('hosted payments', () => {
  test("a Checkout Session in payment mode carries the amount, currency, purpose and the caller's key", async () => {
    const idempotencyKey = key('session')
    const session = await hostedPayment(idempotencyKey)
    assert.match(session.url, /^http:\/\/127\.0\.0\.1:\d+\/c\/pay\/cs_test_/)
    assert.ok(session.expiresAt.getTime() > Date.now())
    const call = standIn.calls.findLast((each) => each.path === '/v1/checkout/sessions')!
    assert.equal(call.idempotencyKey, idempotencyKey)
    assert.equal(call.params.mode, 'payment')
    assert.deepEqual(call.params.line_items[0].price_data, {
      currency: 'gbp',
      unit_amount: '1250',
      product_data: { name: 'Order ord_1' },
    })
    assert.deepEqual(call.params.metadata, {
      printroute_account_id: 'acc_1',
      printroute_purpose: 'orderPayment',
      printroute_order_id: 'ord_1',
    })
    assert.deepEqual(call.params.payment_intent_data.metadata, call.params.metadata)
  })

  test('the same key twice answers the same session and creates one', async () => {
    const idempotencyKey = key('twice')
    const before = standIn.sessions.size
    const first = await hostedPayment(idempotencyKey)
    const second = await hostedPayment(idempotencyKey)
    assert.equal(second.sessionId, first.sessionId)
    assert.equal(standIn.sessions.size, before + 1)
    assert.equal(standIn.calls.at(-1)!.replayed, true)
  })

  test('the same key for a different amount is an idempotency conflict, not a second session', async () => {
    const idempotencyKey = key('conflict')
    await hostedPayment(idempotencyKey, 100n)
    await rejectsWith(hostedPayment(idempotencyKey, 200n), 'idempotencyConflict', false)
  })

  test('readSession tells open from paid, with what was paid and for whom', async () => {
    const session = await hostedPayment(key('read'), 4321n)
    const open = await gateway.readSession(session.sessionId)
    assert.equal(open.status, 'open')
    assert.equal(open.paid, false)
    assert.equal(open.paymentId, null)
    standIn.completeCheckout(session.sessionId)
    const paid = await gateway.readSession(session.sessionId)
    assert.deepEqual(
      { ...paid, paymentId: typeof paid.paymentId },
      {
        sessionId: session.sessionId,
        mode: 'payment',
        status: 'complete',
        paid: true,
        purpose: 'orderPayment',
        accountId: 'acc_1',
        orderId: 'ord_1',
        amountMinor: 4321n,
        currency: 'GBP',
        paymentId: 'string',
        customerId: null,
        setupId: null,
      },
    )
  })

  test('an unknown session is notFound', async () => {
    await rejectsWith(gateway.readSession('cs_test_nothing'), 'notFound', false)
  })

  test('a bad amount or currency is refused before any request', async () => {
    const before = standIn.calls.length
    await rejectsWith(hostedPayment(key('zero'), 0n), 'invalidRequest', false)
    await rejectsWith(hostedPayment(key('huge'), 100_000_000n), 'invalidRequest', false)
    assert.equal(standIn.calls.length, before)
  })
})

describe('saved cards', () => {
  test("a card setup creates the account's customer once and saves a card to charge later", async () => {
    const before = standIn.customers.size
    const first = await gateway.startCardSetup({
      accountId: 'acc_setup',
      email: 'shop@example.com',
      successUrl: 'http://127.0.0.1:1/saved',
      cancelUrl: 'http://127.0.0.1:1/cancelled',
      idempotencyKey: key('setup'),
    })
    assert.match(first.customerId, /^cus_/)
    const setupCall = standIn.calls.findLast((each) => each.path === '/v1/checkout/sessions')!
    assert.equal(setupCall.params.mode, 'setup')
    assert.equal(setupCall.params.customer, first.customerId)
    assert.deepEqual(setupCall.params.allowed_payment_method_types, ['card'])
    // A second setup passes the stored customer: no new one.
    const second = await gateway.startCardSetup({
      accountId: 'acc_setup',
      customerId: first.customerId,
      successUrl: 'http://127.0.0.1:1/saved',
      cancelUrl: 'http://127.0.0.1:1/cancelled',
      idempotencyKey: key('setup'),
    })
    assert.equal(second.customerId, first.customerId)
    assert.equal(standIn.customers.size, before + 1)

    standIn.completeCheckout(second.sessionId)
    const state = await gateway.readSession(second.sessionId)
    assert.equal(state.mode, 'setup')
    assert.equal(state.paid, true)
    assert.equal(state.amountMinor, null)
    const card = await gateway.readSavedCard(state.setupId!)
    assert.deepEqual(card, {
      customerId: first.customerId,
      paymentMethodId: STAND_IN_CARDS.visa,
      brand: 'visa',
      last4: '4242',
      expiryMonth: 12,
      expiryYear: 2034,
    })
  })

  test('an off-session charge succeeds, and the same charge id twice takes the money once', async () => {
    const card = await savedCard('acc_charge')
    const chargeId = key('charge')
    const before = standIn.paymentIntents.size
    const first = await charge(card.customerId, card.paymentMethodId, chargeId)
    const again = await charge(card.customerId, card.paymentMethodId, chargeId)
    assert.equal(first.status, 'succeeded')
    assert.match(first.paymentId!, /^pi_/)
    assert.deepEqual(again, first)
    assert.equal(standIn.paymentIntents.size, before + 1)
    const call = standIn.calls.findLast((each) => each.path === '/v1/payment_intents')!
    assert.equal(call.params.off_session, 'true')
    assert.equal(call.params.confirm, 'true')
    assert.equal(call.params.amount, '999')
    assert.equal(call.idempotencyKey, chargeId)
  })

  test('a card that wants its holder is requiresAction, whichever way Stripe says so', async () => {
    const customerId = (await savedCard('acc_3ds')).customerId
    const refused = await charge(customerId, STAND_IN_CARDS.authenticationRequired, key('auth'))
    assert.equal(refused.status, 'requiresAction')
    assert.match(refused.paymentId!, /^pi_/)
    const waiting = await charge(customerId, STAND_IN_CARDS.threeDSecureRequired, key('3ds'))
    assert.equal(waiting.status, 'requiresAction')
  })

  test("a declined card is declined with Stripe's reason, and a retry with its key is the same decline", async () => {
    const customerId = (await savedCard('acc_declined')).customerId
    const declined = await charge(customerId, STAND_IN_CARDS.declined, key('declined'))
    assert.equal(declined.status, 'declined')
    assert.equal(declined.declineReason, 'generic_decline')
    const poorKey = key('poor')
    const poor = await charge(customerId, STAND_IN_CARDS.insufficientFunds, poorKey)
    assert.equal(poor.declineReason, 'insufficient_funds')
    assert.deepEqual(await charge(customerId, STAND_IN_CARDS.insufficientFunds, poorKey), poor)
  })

  test('readSavedCard of a setup that saved nothing is refused', async () => {
    await rejectsWith(gateway.readSavedCard('seti_nothing'), 'notFound', false)
  })
})

describe('refunds', () => {
  test('part then the rest of a payment; more than is left is refused; a repeated key refunds once', async () => {
    const paymentId = await paidPayment(5000n)
    const firstKey = key('refund')
    const part = await gateway.refund({ paymentId, amountMinor: 1500n, currency: 'GBP', idempotencyKey: firstKey })
    assert.equal(part.status, 'succeeded')
    assert.equal(part.amountMinor, 1500n)
    assert.deepEqual(
      await gateway.refund({ paymentId, amountMinor: 1500n, currency: 'GBP', idempotencyKey: firstKey }),
      part,
    )
    assert.equal(standIn.chargeOf(paymentId).amount_refunded, 1500)
    await rejectsWith(
      gateway.refund({ paymentId, amountMinor: 3501n, currency: 'GBP', idempotencyKey: key('refund') }),
      'invalidRequest',
      false,
    )
    const rest = await gateway.refund({ paymentId, amountMinor: 3500n, currency: 'GBP', idempotencyKey: key('refund') })
    assert.equal(rest.amountMinor, 3500n)
    assert.equal(standIn.chargeOf(paymentId).refunded, true)
    assert.equal(standIn.calls.findLast((each) => each.path === '/v1/refunds')!.params.payment_intent, paymentId)
  })

  test("a refund answered pending is read back as it is now: pending, then failed with Stripe's reason", async () => {
    const paymentId = await paidPayment(4000n)
    standIn.answerRefunds('pending')
    let refund: Awaited<ReturnType<PaymentGateway['refund']>>
    try {
      refund = await gateway.refund({ paymentId, amountMinor: 1200n, currency: 'GBP', idempotencyKey: key('refund') })
    } finally {
      standIn.answerRefunds('succeeded')
    }
    assert.equal(refund.status, 'pending')
    assert.deepEqual(await gateway.readRefund(refund.refundId), {
      refundId: refund.refundId,
      status: 'pending',
      failureReason: null,
    })
    standIn.updateRefund(refund.refundId, 'failed', 'expired_or_canceled_card')
    assert.deepEqual(await gateway.readRefund(refund.refundId), {
      refundId: refund.refundId,
      status: 'failed',
      failureReason: 'expired_or_canceled_card',
    })
    assert.equal(standIn.calls.at(-1)?.path, `/v1/refunds/${refund.refundId}`)
    // The failed amount went back to the Stripe balance: the charge no longer counts it refunded.
    assert.equal(standIn.chargeOf(paymentId).amount_refunded, 0)
  })

  test('readRefund: an unknown refund is notFound; 500 and 429 are retryable', async () => {
    await rejectsWith(gateway.readRefund('re_unknown'), 'notFound', false)
    const paymentId = await paidPayment(900n)
    const refund = await gateway.refund({
      paymentId,
      amountMinor: 900n,
      currency: 'GBP',
      idempotencyKey: key('refund'),
    })
    standIn.failNext({ status: 500, pathPrefix: '/v1/refunds/' })
    await rejectsWith(gateway.readRefund(refund.refundId), 'unavailable', true)
    standIn.failNext({ status: 429, pathPrefix: '/v1/refunds/' })
    await rejectsWith(gateway.readRefund(refund.refundId), 'rateLimited', true)
    assert.equal((await gateway.readRefund(refund.refundId)).status, 'succeeded')
  })
})

describe('webhooks', () => {
  test('checkout.session.completed reads into checkoutCompleted with its event id', async () => {
    const session = await hostedPayment(key('hook'), 2500n)
    const completed = standIn.completeCheckout(session.sessionId)
    const signed = standIn.signedEvent('checkout.session.completed', completed)
    const event = gateway.verifyWebhook(Buffer.from(signed.payload), signed.header)
    assert.deepEqual(event, {
      eventId: signed.event.id,
      livemode: false,
      createdAt: new Date(signed.event.created * 1000),
      kind: 'checkoutCompleted',
      sessionId: session.sessionId,
      mode: 'payment',
      purpose: 'orderPayment',
      accountId: 'acc_1',
      orderId: 'ord_1',
      paid: true,
      amountMinor: 2500n,
      currency: 'GBP',
      paymentId: completed.payment_intent,
      customerId: null,
      setupId: null,
      paymentMethodId: null,
    } satisfies PaymentEvent)
  })

  test("a setup session's completion carries the customer and the setup to read the card from", async () => {
    const setup = await gateway.startCardSetup({
      accountId: 'acc_hook',
      successUrl: 'http://127.0.0.1:1/saved',
      cancelUrl: 'http://127.0.0.1:1/cancelled',
      idempotencyKey: key('setup'),
    })
    const signed = standIn.signedEvent('checkout.session.completed', standIn.completeCheckout(setup.sessionId))
    const event = gateway.verifyWebhook(signed.payload, signed.header)
    assert.equal(event.kind, 'checkoutCompleted')
    if (event.kind !== 'checkoutCompleted') return
    assert.equal(event.mode, 'setup')
    assert.equal(event.purpose, null)
    assert.equal(event.accountId, 'acc_hook')
    assert.equal(event.customerId, setup.customerId)
    assert.equal((await gateway.readSavedCard(event.setupId!)).paymentMethodId, STAND_IN_CARDS.visa)
  })

  test('charge.refunded reads into refunded with the total refunded so far', async () => {
    const paymentId = await paidPayment(3000n)
    await gateway.refund({ paymentId, amountMinor: 1000n, currency: 'GBP', idempotencyKey: key('refund') })
    const signed = standIn.signedEvent('charge.refunded', standIn.chargeOf(paymentId))
    const event = gateway.verifyWebhook(signed.payload, signed.header)
    assert.deepEqual(
      { kind: event.kind, ...(event.kind === 'refunded' ? event : {}) },
      {
        kind: 'refunded',
        eventId: signed.event.id,
        livemode: false,
        createdAt: new Date(signed.event.created * 1000),
        paymentId,
        amountRefundedMinor: 1000n,
        currency: 'GBP',
      },
    )
  })

  test('charge.refund.updated, refund.updated and refund.failed read into refundUpdated with its failure reason', async () => {
    const paymentId = await paidPayment(2600n)
    standIn.answerRefunds('pending')
    let refundId: string
    try {
      refundId = (
        await gateway.refund({ paymentId, amountMinor: 600n, currency: 'GBP', idempotencyKey: key('refund') })
      ).refundId
    } finally {
      standIn.answerRefunds('succeeded')
    }
    const failed = standIn.updateRefund(refundId, 'failed', 'lost_or_stolen_card')
    for (const type of ['charge.refund.updated', 'refund.updated', 'refund.failed']) {
      const signed = standIn.signedEvent(type, failed)
      assert.deepEqual(gateway.verifyWebhook(signed.payload, signed.header), {
        eventId: signed.event.id,
        livemode: false,
        createdAt: new Date(signed.event.created * 1000),
        kind: 'refundUpdated',
        refundId,
        status: 'failed',
        failureReason: 'lost_or_stolen_card',
        paymentId,
        amountMinor: 600n,
        currency: 'GBP',
      } satisfies PaymentEvent)
    }
    // Succeeded and still pending carry no failure reason; canceled carries its status when Stripe gives none.
    const succeeded = standIn.signedEvent('charge.refund.updated', {
      ...failed,
      status: 'succeeded',
      failure_reason: null,
    })
    const read = gateway.verifyWebhook(succeeded.payload, succeeded.header)
    assert.deepEqual(read.kind === 'refundUpdated' && [read.status, read.failureReason], ['succeeded', null])
    const canceled = standIn.signedEvent('refund.updated', { ...failed, status: 'canceled', failure_reason: null })
    const readCanceled = gateway.verifyWebhook(canceled.payload, canceled.header)
    assert.deepEqual(readCanceled.kind === 'refundUpdated' && [readCanceled.status, readCanceled.failureReason], [
      'canceled',
      'canceled',
    ])
  })

  test('charge.dispute.created and closed read into disputeOpened and disputeClosed', async () => {
    const paymentId = await paidPayment(1800n)
    const opened = standIn.dispute(paymentId)
    const openedEvent = standIn.signedEvent('charge.dispute.created', opened)
    assert.deepEqual(gateway.verifyWebhook(openedEvent.payload, openedEvent.header), {
      eventId: openedEvent.event.id,
      livemode: false,
      createdAt: new Date(openedEvent.event.created * 1000),
      kind: 'disputeOpened',
      paymentId,
      disputeId: opened.id,
      amountMinor: 1800n,
      currency: 'GBP',
      reason: 'fraudulent',
      status: 'needs_response',
    })
    const closedEvent = standIn.signedEvent('charge.dispute.closed', { ...opened, status: 'lost' })
    const closed = gateway.verifyWebhook(closedEvent.payload, closedEvent.header)
    assert.equal(closed.kind, 'disputeClosed')
    assert.equal(closed.kind === 'disputeClosed' && closed.status, 'lost')
  })

  test('any other event type is other, with its type', () => {
    const signed = standIn.signedEvent('payment_intent.created', { id: 'pi_x', object: 'payment_intent' })
    const event = gateway.verifyWebhook(signed.payload, signed.header)
    assert.deepEqual(
      { kind: event.kind, type: event.kind === 'other' && event.type },
      {
        kind: 'other',
        type: 'payment_intent.created',
      },
    )
  })

  test('a wrong secret, a tampered body, an old timestamp or no header is badSignature', () => {
    const object = { id: 'ch_x', object: 'charge', amount_refunded: 1, currency: 'gbp', payment_intent: 'pi_x' }
    const wrongSecret = standIn.signedEvent('charge.refunded', object, { secret: 'whsec_someoneelse' })
    const good = standIn.signedEvent('charge.refunded', object)
    const stale = standIn.signedEvent('charge.refunded', object, { timestamp: Math.floor(Date.now() / 1000) - 301 })
    const refusals = [
      () => gateway.verifyWebhook(wrongSecret.payload, wrongSecret.header),
      () => gateway.verifyWebhook(good.payload.replace('"amount_refunded": 1', '"amount_refunded": 9'), good.header),
      () => gateway.verifyWebhook(stale.payload, stale.header),
      () => gateway.verifyWebhook(good.payload, undefined),
      () => gateway.verifyWebhook(good.payload, 't=1,v1=00'),
    ]
    for (const [index, refuse] of refusals.entries()) {
      assert.throws(
        refuse,
        (error: unknown) => {
          assert.ok(error instanceof PaymentGatewayError)
          assert.equal(error.code, 'badSignature')
          assert.equal(error.retryable, false)
          assert.ok(!error.message.includes(standIn.webhookSecret), 'the message names the webhook secret')
          return true
        },
        `refusal ${index}`,
      )
    }
    // Within the library's 300-second tolerance of the gateway's clock is accepted.
    const late = standIn.signedEvent('charge.refunded', object, { timestamp: Math.floor(Date.now() / 1000) - 290 })
    assert.equal(gateway.verifyWebhook(late.payload, late.header).kind, 'refunded')
  })

  test("the timestamp is checked against the gateway's clock, not the machine's", () => {
    const signed = standIn.signedEvent('payment_intent.created', { id: 'pi_z', object: 'payment_intent' })
    const later = gatewayWith({ now: () => new Date((signed.event.created + 301) * 1000) })
    assert.throws(() => later.verifyWebhook(signed.payload, signed.header), { code: 'badSignature' })
    const soon = gatewayWith({ now: () => new Date((signed.event.created + 299) * 1000) })
    assert.equal(soon.verifyWebhook(signed.payload, signed.header).kind, 'other')
  })

  test('the stand-in delivers a signed event over HTTP that the gateway verifies from the raw body', async () => {
    const received: { body: Buffer; signature: string | undefined }[] = []
    const receiver = createServer(async (request, response) => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      received.push({ body: Buffer.concat(chunks), signature: request.headers['stripe-signature'] as string })
      response.end('{}')
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const port = (receiver.address() as AddressInfo).port
      const signed = standIn.signedEvent('payment_intent.created', { id: 'pi_y', object: 'payment_intent' })
      const answer = await standIn.deliver(`http://127.0.0.1:${port}/payments/v1/stripe/webhooks`, signed)
      assert.equal(answer.status, 200)
      assert.equal(gateway.verifyWebhook(received[0]!.body, received[0]!.signature).eventId, signed.event.id)
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })
})

describe("the stand-in's checkout page", () => {
  test('paying on the page completes the session, sends the signed webhook, and redirects to success_url', async () => {
    const received: { body: Buffer; signature: string | undefined }[] = []
    const receiver = createServer(async (request, response) => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      received.push({ body: Buffer.concat(chunks), signature: request.headers['stripe-signature'] as string })
      response.end('{}')
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/payments/v1/stripe/webhooks`
    const paging = await startStripeStandIn({ webhookEndpoint: endpoint })
    try {
      const pageGateway = createStripeGateway({
        secretKey: paging.secretKey,
        webhookSecret: paging.webhookSecret,
        apiUrl: paging.url,
        maxNetworkRetries: 0,
      })
      const session = await pageGateway.startHostedPayment({
        purpose: 'topUp',
        accountId: 'acc_page',
        currency: 'EUR',
        amountMinor: 5000n,
        description: 'Top-up',
        successUrl: 'http://127.0.0.1:1/billing?topUp=done',
        cancelUrl: 'http://127.0.0.1:1/billing',
        idempotencyKey: key('page'),
      })
      const page = await fetch(session.url)
      assert.equal(page.status, 200)
      assert.match(await page.text(), /<button type="submit">Pay 5000 eur<\/button>/)
      const paid = await fetch(session.url, { method: 'POST', redirect: 'manual' })
      assert.equal(paid.status, 303)
      assert.equal(paid.headers.get('location'), 'http://127.0.0.1:1/billing?topUp=done')
      assert.equal(received.length, 1)
      const event = pageGateway.verifyWebhook(received[0]!.body, received[0]!.signature)
      assert.equal(event.kind, 'checkoutCompleted')
      assert.equal(event.kind === 'checkoutCompleted' && event.purpose, 'topUp')
      assert.equal(event.kind === 'checkoutCompleted' && event.amountMinor, 5000n)
      assert.equal((await pageGateway.readSession(session.sessionId)).paid, true)
      assert.equal((await fetch(session.url, { method: 'POST', redirect: 'manual' })).status, 404)
    } finally {
      await paging.close()
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  })
})

describe('faults', () => {
  test('429 is rateLimited and retryable; nothing was created', async () => {
    const before = standIn.sessions.size
    standIn.failNext({ status: 429, pathPrefix: '/v1/checkout/sessions' })
    await rejectsWith(hostedPayment(key('429')), 'rateLimited', true)
    assert.equal(standIn.sessions.size, before)
  })

  test('500 is unavailable and retryable', async () => {
    standIn.failNext({ status: 500, pathPrefix: '/v1/payment_intents' })
    await rejectsWith(charge('cus_x', STAND_IN_CARDS.visa, key('500')), 'unavailable', true)
  })

  test('a refused secret key is unauthorised, not retryable, and no key appears in the message', async () => {
    const wrongKey = 'sk_test_notthekey0123456789'
    const wrong = gatewayWith({ secretKey: wrongKey })
    const error = await rejectsWith(wrong.readSession('cs_test_any'), 'unauthorised', false)
    assert.equal(error.status, 401)
    assert.ok(!error.message.includes(wrongKey), error.message)
    assert.ok(!error.message.includes(standIn.secretKey), error.message)
    assert.ok(!JSON.stringify(error).includes(wrongKey))
  })

  test('a charge whose answer is lost: retrying with the charge id finds the first payment', async () => {
    const card = await savedCard('acc_lost')
    const chargeId = key('lost')
    const before = standIn.paymentIntents.size
    standIn.failNext({ status: 500, when: 'after', pathPrefix: '/v1/payment_intents' })
    await rejectsWith(charge(card.customerId, card.paymentMethodId, chargeId), 'unavailable', true)
    // As after a restart: the same charge id answers the payment Stripe already made.
    const retried = await charge(card.customerId, card.paymentMethodId, chargeId)
    assert.equal(retried.status, 'succeeded')
    assert.equal(standIn.paymentIntents.size, before + 1)
  })

  test("a charge that times out is unavailable; the library's own retry with the key pays once", async () => {
    const card = await savedCard('acc_timeout')
    const impatient = gatewayWith({ timeoutMs: 300 })
    const before = standIn.paymentIntents.size
    standIn.failNext({ hang: true, when: 'after', pathPrefix: '/v1/payment_intents' })
    await rejectsWith(
      impatient.chargeSavedCard({
        accountId: 'acc_timeout',
        customerId: card.customerId,
        paymentMethodId: card.paymentMethodId,
        currency: 'GBP',
        amountMinor: 700n,
        description: 'Order',
        idempotencyKey: key('timeout'),
      }),
      'unavailable',
      true,
    )
    const retrying = gatewayWith({ timeoutMs: 300, maxNetworkRetries: 2 })
    standIn.failNext({ hang: true, when: 'after', pathPrefix: '/v1/payment_intents' })
    const paid = await retrying.chargeSavedCard({
      accountId: 'acc_timeout',
      customerId: card.customerId,
      paymentMethodId: card.paymentMethodId,
      currency: 'GBP',
      amountMinor: 800n,
      description: 'Order',
      idempotencyKey: key('timeout'),
    })
    assert.equal(paid.status, 'succeeded')
    assert.equal(standIn.paymentIntents.size, before + 2)
  })
})

describe('settings and amounts', () => {
  test('the API URL gives the library host, port and protocol; a path or another scheme is refused', () => {
    assert.deepEqual(stripeConnectionSettings(undefined), {})
    assert.deepEqual(stripeConnectionSettings('http://127.0.0.1:12111'), {
      host: '127.0.0.1',
      port: '12111',
      protocol: 'http',
    })
    assert.deepEqual(stripeConnectionSettings('https://stripe.internal.test/'), {
      host: 'stripe.internal.test',
      port: 443,
      protocol: 'https',
    })
    assert.throws(() => stripeConnectionSettings('http://127.0.0.1:1/v1'), PaymentGatewayError)
    assert.throws(() => stripeConnectionSettings('ftp://127.0.0.1'), PaymentGatewayError)
    assert.throws(() => stripeConnectionSettings('not a url'), PaymentGatewayError)
  })

  test("hundredths become Stripe's smallest unit: whole yen, thousandths of a dinar", () => {
    assert.equal(toStripeAmount(1250n, 'GBP'), 1250)
    assert.equal(toStripeAmount(150000n, 'JPY'), 1500)
    assert.throws(() => toStripeAmount(150050n, 'JPY'), PaymentGatewayError)
    assert.equal(toStripeAmount(1234n, 'KWD'), 12340)
    assert.equal(fromStripeAmount(1500, 'jpy'), 150000n)
    assert.equal(fromStripeAmount(12340, 'kwd'), 1234n)
    assert.throws(() => toStripeAmount(100n, 'pounds'), PaymentGatewayError)
    assert.throws(() => toStripeAmount(-1n, 'GBP'), PaymentGatewayError)
  })
})
