// A Stripe stand-in on 127.0.0.1 for the real `stripe` library (its host/port/protocol settings): exactly the calls
// adapters/stripe-gateway.ts makes, in the shapes Stripe documents (test/fixtures/stripe/README.md names the page
// of each). It checks the Bearer secret key, honours Idempotency-Key the way Stripe does (same key and parameters:
// the first answer replayed, one effect; same key, other parameters: 400 idempotency_error), records every call,
// can fail the next request (500 or 429, before or after its effect) or hold it unanswered, and signs webhooks the
// way Stripe signs them (the library's generateTestHeaderString). Off-session charges answer by Stripe's test
// payment method ids (STAND_IN_CARDS; its own `pending` one leaves a PaymentIntent `processing` until settlePayment),
// and a PaymentIntent is read back by its id. Refunds answer `succeeded`, or `pending` after answerRefunds('pending')
// until updateRefund ends them (failed with Stripe's failure_reason, canceled or succeeded: charge.refund.updated's
// object); a refund is read back by its id. A session's `url` serves a one-button page whose Pay completes the
// session, sends checkout.session.completed to `webhookEndpoint` and redirects to success_url. Nothing leaves the
// machine.

import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import { createStripeGateway, type StripeGatewayOptions } from '../../src/adapters/stripe-gateway.ts'
import type { PaymentGateway } from '../../src/domain/payment-gateway.ts'

const FIXTURES = new URL('../fixtures/stripe/', import.meta.url)

function fixture(name: string): Record<string, any> {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8'))
}

/** Stripe's test payment method ids and what an off-session confirm answers for each (docs.stripe.com/testing). */
export const STAND_IN_CARDS = {
  /** Succeeds. */
  visa: 'pm_card_visa',
  /** 402 card_error `authentication_required`: the bank wants the cardholder (off-session 3-D Secure). */
  authenticationRequired: 'pm_card_authenticationRequired',
  /** 200 with status `requires_action` (a PaymentIntent left waiting for 3-D Secure rather than failed). */
  threeDSecureRequired: 'pm_card_threeDSecureRequired',
  /** 402 card_error `card_declined`, decline code `generic_decline`. */
  declined: 'pm_card_chargeDeclined',
  /** 402 card_error `card_declined`, decline code `insufficient_funds`. */
  insufficientFunds: 'pm_card_chargeDeclinedInsufficientFunds',
  /** The stand-in's own: 200 with status `processing` (a payment the bank settles later); settlePayment ends it. */
  pending: 'pm_card_standinProcessing',
} as const

export interface RecordedCall {
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string | null
  readonly params: Record<string, any>
  readonly status: number
  /** True when the answer was a replay of an earlier one with the same key. */
  readonly replayed: boolean
}

export interface StandInFault {
  /** 500 or 429 (or any status); ignored with `hang`. */
  readonly status?: number
  /** `before`: nothing happens (Stripe failed first). `after`: the effect happens and is kept for the key, the
   * answer is lost (a reply that never reached printroute). */
  readonly when?: 'before' | 'after'
  /** Never answer (until the client gives up): a timeout. With `when: 'after'` the effect still happens. */
  readonly hang?: boolean
  /** Only a request whose path starts with this; any request when absent. */
  readonly pathPrefix?: string
}

interface Answer {
  readonly status: number
  readonly body: unknown
}

interface Stored {
  readonly fingerprint: string
  readonly answer: Answer
}

export interface StripeStandIn {
  /** `http://127.0.0.1:PORT`, for the gateway's apiUrl. */
  readonly url: string
  readonly secretKey: string
  readonly webhookSecret: string
  readonly calls: RecordedCall[]
  readonly customers: Map<string, Record<string, any>>
  readonly sessions: Map<string, Record<string, any>>
  readonly paymentIntents: Map<string, Record<string, any>>
  readonly refunds: Map<string, Record<string, any>>
  /** The next matching request fails as described (once). */
  failNext(fault: StandInFault): void
  /** The payer pays (mode payment) or saves STAND_IN_CARDS.visa (mode setup); answers the completed session. */
  completeCheckout(sessionId: string, paymentMethod?: string): Record<string, any>
  /** The bank settles a `processing` PaymentIntent: paid (with its charge) or failed (declined with `reason`). */
  settlePayment(paymentIntentId: string, outcome: 'succeeded' | 'failed', reason?: string): Record<string, any>
  /** How the refunds created from now on answer: `succeeded` (the default) or `pending` (until updateRefund). */
  answerRefunds(status: 'succeeded' | 'pending'): void
  /**
   * A refund's status changes at Stripe (the card's bank answered): `failed` (with `failure_reason`, such as
   * `expired_or_canceled_card`) or `canceled` reverses the refund on the Stripe balance, and the stand-in then stops
   * counting it in the charge's amount_refunded (its reading; see test/fixtures/stripe/README.md). Answers the
   * refund: the object of `charge.refund.updated`.
   */
  updateRefund(
    refundId: string,
    status: 'succeeded' | 'failed' | 'canceled',
    failureReason?: string,
  ): Record<string, any>
  /** A dispute opened (or, with a status such as `won` / `lost`, closed) on a payment; answers the dispute. */
  dispute(paymentIntentId: string, status?: string, reason?: string): Record<string, any>
  /** The charge behind a payment, refunds included (charge.refunded's object). */
  chargeOf(paymentIntentId: string): Record<string, any>
  /** A Stripe event around `object`, its raw body, and a Stripe-Signature header for it. */
  signedEvent(
    type: string,
    object: Record<string, any>,
    options?: { timestamp?: number; secret?: string },
  ): { event: Record<string, any>; payload: string; header: string }
  /** POSTs a signed event to a 127.0.0.1 webhook endpoint, as Stripe delivers it. */
  deliver(endpoint: string, signed: { payload: string; header: string }): Promise<Response>
  close(): Promise<void>
}

/** Stripe's form encoding (`a[b][0][c]=v`) read back into objects and arrays. */
export function parseStripeForm(body: string): Record<string, any> {
  const root: Record<string, any> = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[')
    let node: Record<string, any> = root
    path.forEach((part, index) => {
      if (index === path.length - 1) node[part] = value
      else {
        node[part] ??= {}
        node = node[part]
      }
    })
  }
  return arraysFromIndexedObjects(root)
}

function arraysFromIndexedObjects(value: any): any {
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value)
  const converted = Object.fromEntries(keys.map((key) => [key, arraysFromIndexedObjects(value[key])]))
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => converted[key])
  }
  return converted
}

function stripeError(status: number, error: Record<string, any>): Answer {
  return { status, body: { error: { ...fixture('error').error, ...error } } }
}

function missing(kind: string, id: string): Answer {
  return stripeError(404, { code: 'resource_missing', message: `No such ${kind}: '${id}'`, param: 'id' })
}

export interface StripeStandInOptions {
  readonly now?: () => Date
  /** Where the checkout page's Pay button sends checkout.session.completed (a 127.0.0.1 URL), as Stripe would. */
  readonly webhookEndpoint?: string
}

export async function startStripeStandIn(options: StripeStandInOptions = {}): Promise<StripeStandIn> {
  const now = options.now ?? (() => new Date())
  const seconds = () => Math.floor(now().getTime() / 1000)
  const secretKey = `sk_test_standin${randomBytes(12).toString('hex')}`
  const webhookSecret = `whsec_standin${randomBytes(12).toString('hex')}`
  const calls: RecordedCall[] = []
  const faults: StandInFault[] = []
  const idempotent = new Map<string, Stored>()
  const customers = new Map<string, Record<string, any>>()
  const sessions = new Map<string, Record<string, any>>()
  const paymentIntents = new Map<string, Record<string, any>>()
  const setupIntents = new Map<string, Record<string, any>>()
  const charges = new Map<string, Record<string, any>>()
  const refunds = new Map<string, Record<string, any>>()
  let counter = 0
  let refundStatus: 'succeeded' | 'pending' = 'succeeded'
  const newId = (prefix: string) => `${prefix}_standin${(++counter).toString().padStart(6, '0')}`
  let baseUrl = ''

  function paymentMethod(id: string): Record<string, any> {
    const last4 = id === STAND_IN_CARDS.visa ? '4242' : '0002'
    return { ...fixture('payment-method'), id, created: seconds(), card: { ...fixture('payment-method').card, last4 } }
  }

  /** A succeeded PaymentIntent with its charge. */
  function succeededIntent(fields: Record<string, any>, id: string = newId('pi')): Record<string, any> {
    const intent: Record<string, any> = {
      ...fixture('payment-intent'),
      ...fields,
      id,
      created: seconds(),
      status: 'succeeded',
    }
    const charge = {
      ...fixture('charge'),
      id: newId('ch'),
      created: seconds(),
      amount: intent.amount,
      amount_captured: intent.amount,
      currency: intent.currency,
      customer: intent.customer,
      metadata: intent.metadata,
      payment_intent: intent.id,
      payment_method: intent.payment_method,
    }
    intent.amount_received = intent.amount
    intent.latest_charge = charge.id
    charges.set(charge.id, charge)
    paymentIntents.set(intent.id, intent)
    return intent
  }

  function createCustomer(params: Record<string, any>): Answer {
    const customer = {
      ...fixture('customer'),
      id: newId('cus'),
      created: seconds(),
      email: params.email ?? null,
      name: params.name ?? null,
      metadata: params.metadata ?? {},
    }
    customers.set(customer.id, customer)
    return { status: 200, body: customer }
  }

  function createSession(params: Record<string, any>): Answer {
    const mode = params.mode
    if (mode !== 'payment' && mode !== 'setup') {
      return stripeError(400, { message: 'Missing required param: mode.', param: 'mode' })
    }
    if (!params.success_url)
      return stripeError(400, { message: 'Missing required param: success_url.', param: 'success_url' })
    if (params.customer !== undefined && !customers.has(params.customer)) return missing('customer', params.customer)
    let amountTotal: number | null = null
    let currency: string | null = params.currency ?? null
    if (mode === 'payment') {
      const items: any[] = params.line_items ?? []
      if (items.length === 0)
        return stripeError(400, { message: 'line_items is required in payment mode.', param: 'line_items' })
      amountTotal = items.reduce((sum, item) => sum + Number(item.price_data.unit_amount) * Number(item.quantity), 0)
      currency = items[0].price_data.currency
    }
    const id = newId(mode === 'payment' ? 'cs_test_a' : 'cs_test_c')
    const session = {
      ...fixture('checkout-session'),
      id,
      created: seconds(),
      expires_at: seconds() + 24 * 3600,
      mode,
      amount_subtotal: amountTotal,
      amount_total: amountTotal,
      currency,
      customer: params.customer ?? null,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      payment_status: mode === 'setup' ? 'no_payment_required' : 'unpaid',
      success_url: params.success_url,
      cancel_url: params.cancel_url ?? null,
      url: `${baseUrl}/c/pay/${id}`,
      // Kept for completeCheckout; Stripe does not echo these on the session.
      _payment_intent_data: params.payment_intent_data ?? {},
      _setup_intent_data: params.setup_intent_data ?? {},
    }
    sessions.set(id, session)
    return { status: 200, body: publicSession(session) }
  }

  function publicSession(session: Record<string, any>): Record<string, any> {
    const { _payment_intent_data, _setup_intent_data, ...rest } = session
    return rest
  }

  function createPaymentIntent(params: Record<string, any>): Answer {
    const amount = Number(params.amount)
    if (!Number.isInteger(amount) || amount < 1) {
      return stripeError(400, { message: 'Invalid positive integer', param: 'amount' })
    }
    if (params.customer !== undefined && !customers.has(params.customer)) return missing('customer', params.customer)
    const fields = {
      amount,
      currency: params.currency,
      customer: params.customer ?? null,
      description: params.description ?? null,
      metadata: params.metadata ?? {},
      payment_method: params.payment_method ?? null,
    }
    if (params.confirm !== 'true') {
      const intent: Record<string, any> = {
        ...fixture('payment-intent'),
        ...fields,
        id: newId('pi'),
        created: seconds(),
      }
      paymentIntents.set(intent.id, intent)
      return { status: 200, body: intent }
    }
    return confirmOffSession(fields)
  }

  function confirmOffSession(fields: Record<string, any>): Answer {
    const card = fields.payment_method
    if (card === STAND_IN_CARDS.visa) return { status: 200, body: succeededIntent(fields) }
    const intent: Record<string, any> = { ...fixture('payment-intent'), ...fields, id: newId('pi'), created: seconds() }
    paymentIntents.set(intent.id, intent)
    if (card === STAND_IN_CARDS.pending) {
      intent.status = 'processing'
      return { status: 200, body: intent }
    }
    if (card === STAND_IN_CARDS.threeDSecureRequired) {
      intent.status = 'requires_action'
      intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: {} }
      return { status: 200, body: intent }
    }
    const failure =
      card === STAND_IN_CARDS.authenticationRequired
        ? {
            code: 'authentication_required',
            decline_code: 'authentication_required',
            message: 'Your card requires authentication.',
          }
        : card === STAND_IN_CARDS.insufficientFunds
          ? { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' }
          : card === STAND_IN_CARDS.declined
            ? { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' }
            : null
    if (failure === null) return missing('payment_method', String(card))
    intent.status = 'requires_payment_method'
    intent.last_payment_error = { type: 'card_error', ...failure }
    return stripeError(402, { type: 'card_error', ...failure, payment_intent: intent })
  }

  function createRefund(params: Record<string, any>): Answer {
    const intent = paymentIntents.get(params.payment_intent)
    if (!intent) return missing('payment_intent', String(params.payment_intent))
    const charge = intent.latest_charge ? charges.get(intent.latest_charge) : undefined
    if (!charge || intent.status !== 'succeeded') {
      return stripeError(400, {
        code: 'charge_not_refundable',
        message: 'This PaymentIntent has no successful charge to refund.',
      })
    }
    const left = charge.amount - charge.amount_refunded
    const amount = params.amount === undefined ? left : Number(params.amount)
    if (!Number.isInteger(amount) || amount < 1 || amount > left) {
      return stripeError(400, {
        code: 'amount_too_large',
        message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        param: 'amount',
      })
    }
    charge.amount_refunded += amount
    charge.refunded = charge.amount_refunded === charge.amount
    const refund = {
      ...fixture('refund'),
      id: newId('re'),
      created: seconds(),
      amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: intent.id,
      metadata: params.metadata ?? {},
      status: refundStatus,
    }
    refunds.set(refund.id, refund)
    return { status: 200, body: refund }
  }

  function retrieve(path: string, query: URLSearchParams): Answer | null {
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)
    if (session) {
      const found = sessions.get(session[1]!)
      return found ? { status: 200, body: publicSession(found) } : missing('checkout.session', session[1]!)
    }
    const intent = /^\/v1\/payment_intents\/([^/]+)$/.exec(path)
    if (intent) {
      const found = paymentIntents.get(intent[1]!)
      return found ? { status: 200, body: found } : missing('payment_intent', intent[1]!)
    }
    const refund = /^\/v1\/refunds\/([^/]+)$/.exec(path)
    if (refund) {
      const found = refunds.get(refund[1]!)
      return found ? { status: 200, body: found } : missing('refund', refund[1]!)
    }
    const setup = /^\/v1\/setup_intents\/([^/]+)$/.exec(path)
    if (setup) {
      const found = setupIntents.get(setup[1]!)
      if (!found) return missing('setup_intent', setup[1]!)
      const expanded =
        query.getAll('expand[]').includes('payment_method') || query.get('expand[0]') === 'payment_method'
      return {
        status: 200,
        body:
          expanded && found.payment_method ? { ...found, payment_method: paymentMethod(found.payment_method) } : found,
      }
    }
    return null
  }

  function handlePost(path: string, params: Record<string, any>): Answer | null {
    if (path === '/v1/customers') return createCustomer(params)
    if (path === '/v1/checkout/sessions') return createSession(params)
    if (path === '/v1/payment_intents') return createPaymentIntent(params)
    if (path === '/v1/refunds') return createRefund(params)
    return null
  }

  function takeFault(path: string): StandInFault | undefined {
    const index = faults.findIndex((fault) => fault.pathPrefix === undefined || path.startsWith(fault.pathPrefix))
    return index === -1 ? undefined : faults.splice(index, 1)[0]
  }

  function send(response: ServerResponse, answer: Answer, headers: Record<string, string> = {}): void {
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      'request-id': `req_standin${randomBytes(6).toString('hex')}`,
      ...headers,
    })
    response.end(JSON.stringify(answer.body))
  }

  function faultAnswer(fault: StandInFault): Answer {
    const status = fault.status ?? 500
    if (status === 429) {
      return stripeError(429, { code: 'rate_limit', message: 'Too many requests hit the API too quickly.' })
    }
    return stripeError(status, { type: 'api_error', message: 'An unknown error occurred (stand-in fault).' })
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    const target = new URL(request.url ?? '/', 'http://127.0.0.1')
    const method = request.method ?? 'GET'
    const params = method === 'POST' ? parseStripeForm(raw) : Object.fromEntries(target.searchParams)
    const key = method === 'POST' ? ((request.headers['idempotency-key'] as string | undefined) ?? null) : null
    const record = (status: number, replayed = false) =>
      calls.push({ method, path: target.pathname, idempotencyKey: key, params, status, replayed })

    if (target.pathname.startsWith('/c/pay/')) return checkoutPage(method, target.pathname.slice(7), response)

    const auth = request.headers.authorization
    if (auth !== `Bearer ${secretKey}`) {
      // Stripe masks the key in this message; the stand-in echoes it whole so the adapter's redaction is tested.
      const presented = auth?.replace(/^Bearer /, '') ?? ''
      record(401)
      return send(response, stripeError(401, { message: `Invalid API Key provided: ${presented}` }))
    }

    const fault = takeFault(target.pathname)
    if (fault && fault.when !== 'after') {
      record(fault.hang ? 0 : (fault.status ?? 500))
      if (fault.hang) return // left open: the client's timeout decides
      return send(response, faultAnswer(fault))
    }

    const fingerprint = createHash('sha256').update(`${method} ${target.pathname} ${raw}`).digest('hex')
    const stored = key ? idempotent.get(key) : undefined
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        record(400)
        return send(
          response,
          stripeError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          }),
        )
      }
      record(stored.answer.status, true)
      return send(response, stored.answer, { 'idempotent-replayed': 'true' })
    }

    const answer =
      method === 'POST' ? handlePost(target.pathname, params) : retrieve(target.pathname, target.searchParams)
    const final = answer ?? stripeError(404, { message: `Unrecognized request URL (${method}: ${target.pathname}).` })
    if (key && final.status < 500) idempotent.set(key, { fingerprint, answer: final })
    if (fault) {
      record(fault.hang ? 0 : (fault.status ?? 500))
      if (fault.hang) return
      return send(response, faultAnswer(fault))
    }
    record(final.status)
    send(response, final)
  }

  /** Stripe's hosted page, reduced to one Pay button: paying completes the session, sends its webhook when an
   * endpoint is set, and redirects (303) to the session's success_url, as Stripe does. */
  async function checkoutPage(method: string, sessionId: string, response: ServerResponse): Promise<void> {
    const session = sessions.get(sessionId)
    if (session?.status !== 'open') {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
      return void response.end('<!doctype html><title>Checkout</title><p>This session is not open.</p>')
    }
    if (method !== 'POST') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      const label = session.mode === 'payment' ? `Pay ${session.amount_total} ${session.currency}` : 'Save card'
      return void response.end(
        `<!doctype html><title>Checkout</title><form method="post"><button type="submit">${label}</button></form>`,
      )
    }
    const completed = completeCheckout(sessionId)
    if (options.webhookEndpoint)
      await deliver(options.webhookEndpoint, signedEvent('checkout.session.completed', completed))
    response.writeHead(303, { location: completed.success_url })
    response.end()
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, stripeError(500, { type: 'api_error', message: String(error) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  function completeCheckout(sessionId: string, card: string = STAND_IN_CARDS.visa): Record<string, any> {
    const session = sessions.get(sessionId)
    if (!session) throw new Error(`stand-in: no session ${sessionId}`)
    if (session.status !== 'open') throw new Error(`stand-in: session ${sessionId} is ${session.status}`)
    if (session.mode === 'payment') {
      const extra = session._payment_intent_data
      const intent = succeededIntent({
        amount: session.amount_total,
        currency: session.currency,
        customer: session.customer,
        description: extra.description ?? null,
        metadata: extra.metadata ?? {},
        payment_method: card,
      })
      session.payment_intent = intent.id
      session.payment_status = 'paid'
    } else {
      const setup = {
        ...fixture('setup-intent'),
        id: newId('seti'),
        created: seconds(),
        customer: session.customer,
        metadata: session._setup_intent_data.metadata ?? {},
        payment_method: card,
        status: 'succeeded',
      }
      setupIntents.set(setup.id, setup)
      session.setup_intent = setup.id
    }
    session.status = 'complete'
    session.url = null
    return publicSession(session)
  }

  function settlePayment(paymentIntentId: string, outcome: 'succeeded' | 'failed', reason = 'insufficient_funds') {
    const intent = paymentIntents.get(paymentIntentId)
    if (intent?.status !== 'processing') throw new Error(`stand-in: ${paymentIntentId} is not processing`)
    if (outcome === 'succeeded') {
      const { id: _id, created: _created, status: _status, ...fields } = intent
      return succeededIntent(fields, paymentIntentId)
    }
    intent.status = 'requires_payment_method'
    intent.last_payment_error = { type: 'card_error', code: 'card_declined', decline_code: reason }
    return { ...intent }
  }

  function updateRefund(
    refundId: string,
    status: 'succeeded' | 'failed' | 'canceled',
    failureReason = 'expired_or_canceled_card',
  ): Record<string, any> {
    const refund = refunds.get(refundId)
    if (!refund) throw new Error(`stand-in: no refund ${refundId}`)
    if (refund.status !== 'pending' && refund.status !== 'requires_action') {
      throw new Error(`stand-in: refund ${refundId} is ${refund.status}`)
    }
    refund.status = status
    if (status !== 'succeeded') {
      refund.failure_reason = status === 'failed' ? failureReason : null
      const charge = charges.get(refund.charge)
      if (charge) {
        charge.amount_refunded -= refund.amount
        charge.refunded = charge.amount_refunded === charge.amount
      }
    }
    return { ...refund }
  }

  function dispute(paymentIntentId: string, status = 'needs_response', reason = 'fraudulent'): Record<string, any> {
    const intent = paymentIntents.get(paymentIntentId)
    const charge = intent?.latest_charge ? charges.get(intent.latest_charge) : undefined
    if (!intent || !charge) throw new Error(`stand-in: no charged payment ${paymentIntentId}`)
    charge.disputed = true
    return {
      ...fixture('dispute'),
      id: newId('dp'),
      created: seconds(),
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: intent.id,
      reason,
      status,
    }
  }

  function chargeOf(paymentIntentId: string): Record<string, any> {
    const intent = paymentIntents.get(paymentIntentId)
    const charge = intent?.latest_charge ? charges.get(intent.latest_charge) : undefined
    if (!charge) throw new Error(`stand-in: no charge for ${paymentIntentId}`)
    return { ...charge }
  }

  function signedEvent(
    type: string,
    object: Record<string, any>,
    signing: { timestamp?: number; secret?: string } = {},
  ) {
    const timestamp = signing.timestamp ?? seconds()
    const event = {
      ...fixture('event'),
      id: newId('evt'),
      api_version: Stripe.API_VERSION,
      created: timestamp,
      data: { object },
      type,
    }
    const payload = JSON.stringify(event, null, 2)
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: signing.secret ?? webhookSecret,
      timestamp,
    })
    return { event, payload, header }
  }

  async function deliver(endpoint: string, signed: { payload: string; header: string }): Promise<Response> {
    if (new URL(endpoint).hostname !== '127.0.0.1') throw new Error('stand-in: webhooks go to 127.0.0.1 only')
    return fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signed.header },
      body: signed.payload,
    })
  }

  return {
    url: baseUrl,
    secretKey,
    webhookSecret,
    calls,
    customers,
    sessions,
    paymentIntents,
    refunds,
    failNext: (fault) => {
      faults.push(fault)
    },
    completeCheckout,
    settlePayment,
    answerRefunds: (status) => {
      refundStatus = status
    },
    updateRefund,
    dispute,
    chargeOf,
    signedEvent,
    deliver,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * The real Stripe gateway pointed at the stand-in (its key, webhook secret and address); the other options
 * (timeouts, the library's retries, the clock) as createStripeGateway takes them.
 */
export function gatewayOnStandIn(
  standIn: Pick<StripeStandIn, 'secretKey' | 'webhookSecret' | 'url'>,
  options: Omit<StripeGatewayOptions, 'secretKey' | 'webhookSecret' | 'apiUrl'> = {},
): PaymentGateway {
  return createStripeGateway({
    secretKey: standIn.secretKey,
    webhookSecret: standIn.webhookSecret,
    apiUrl: standIn.url,
    ...options,
  })
}
