// The payment page of an order held by RequiresPaymentAuthorisation (Live only;
// docs/billing.md#orders-waiting-for-payment):
//   GET  /payments/{orderId}?token=...  an HTML page showing what is due, with a card form;
//   POST /payments/{orderId}            {token, amount, card:{number, expiry, cvc}} -> the payment's result.
// The token in the link is the authorisation (no API key): the merchant forwards the link to whoever pays.
// With a hosted card provider (Stripe), the same link answers 303 to the provider's page for what is due now, and
//   GET  /payments/{orderId}/return?token=...&result=paid|cancelled   where the payer comes back: paid or not yet.
// Top-ups (docs/api.md#top-ups) have links of their own:
//   GET  /payments/top-ups/{id}?token=...   303 to the provider's page, or (simulated provider) the card form;
//   POST /payments/top-ups/{id}             {token, amount, card} -> the simulated payment's result;
//   GET  /payments/top-ups/{id}/return?token=...   where the payer comes back from the provider.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { HostedPaymentsService, TopUpView } from '../../services/hosted-payments.service.ts'
import type { PaymentPageFacts, PaymentsService } from '../../services/payments.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import {
  PaymentPageQuerySchema,
  PaymentParamsSchema,
  PayRequestSchema,
  PayResponseSchema,
  ReturnQuerySchema,
  TopUpParamsSchema,
} from '../schemas/payments.schema.ts'

export const PAYMENT_PATH_PREFIX = '/payments/'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}
button{margin-top:1.2rem;font-size:1rem;padding:.6rem 1.2rem}#result{margin-top:1rem;font-weight:bold}</style>
</head><body>${body}</body></html>`
}

function paymentPage(facts: PaymentPageFacts, token: string): string {
  const reference = facts.merchantReference ? ` (your reference ${escapeHtml(facts.merchantReference)})` : ''
  const heading = `<h1>Order ${escapeHtml(facts.orderId)}</h1>`
  if (facts.status === 'paid') return page('Paid', `${heading}<p>Nothing is due on this order${reference}.</p>`)
  if (facts.status === 'cancelled') {
    return page('Cancelled', `${heading}<p>This order${reference} was cancelled; nothing is due.</p>`)
  }
  const amount = `${escapeHtml(facts.amount)} ${escapeHtml(facts.currency)}`
  return cardForm(
    `Pay ${amount}`,
    `${heading}<p>A payment of <strong>${amount}</strong> is needed before this order${reference} goes to production.</p>`,
    `Pay ${amount}`,
    { token, amount: facts.amount },
  )
}

/** The simulated provider's card form: posts JSON (the API's only request format) to the page's own path. */
function cardForm(title: string, intro: string, button: string, post: { token: string; amount: string }): string {
  return page(
    title,
    `${intro}
<form id="pay"><label for="number">Card number</label><input id="number" inputmode="numeric" autocomplete="cc-number" required>
<label for="expiry">Expiry (MM/YY)</label><input id="expiry" autocomplete="cc-exp" required>
<label for="cvc">Security code</label><input id="cvc" inputmode="numeric" autocomplete="cc-csc" required>
<button type="submit">${button}</button></form><p id="result" role="status"></p>
<script>
document.getElementById('pay').addEventListener('submit', async (event) => {
  event.preventDefault()
  const value = (id) => document.getElementById(id).value.trim()
  const response = await fetch(location.pathname, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: ${JSON.stringify(post.token)}, amount: ${JSON.stringify(post.amount)},
      card: { number: value('number'), expiry: value('expiry'), cvc: value('cvc') } }),
  })
  const result = await response.json()
  document.getElementById('result').textContent = result.message || result.statusText
  if (result.outcome === 'Paid' || result.outcome === 'NothingDue') document.getElementById('pay').remove()
})
</script>`,
  )
}

/** Where the payer lands back from the provider's page: the order as it is now (the webhook may still be on its way). */
function returnPage(facts: PaymentPageFacts, result: string | undefined): string {
  const heading = `<h1>Order ${escapeHtml(facts.orderId)}</h1>`
  if (facts.status === 'paid') return page('Paid', `${heading}<p>Paid: nothing is due on this order. Thank you.</p>`)
  if (facts.status === 'cancelled')
    return page('Cancelled', `${heading}<p>This order was cancelled; nothing is due.</p>`)
  const amount = `${escapeHtml(facts.amount)} ${escapeHtml(facts.currency)}`
  const text =
    result === 'paid'
      ? `Your payment was taken and is being confirmed: the order goes to production within a few minutes. Reload this page to see it marked paid.`
      : `Not paid yet: <strong>${amount}</strong> is still due on this order.`
  return page('Not paid yet', `${heading}<p>${text}</p>`)
}

function topUpHeading(topUp: TopUpView): string {
  return `<h1>Top-up ${escapeHtml(topUp.id)}</h1>`
}

function topUpClosedPage(topUp: TopUpView, result?: string): string {
  const amount = `${escapeHtml(topUp.amount)} ${escapeHtml(topUp.currency)}`
  const heading = topUpHeading(topUp)
  if (topUp.status === 'succeeded') {
    return page('Paid', `${heading}<p>Paid: ${amount} was added to the balance. Thank you.</p>`)
  }
  if (topUp.status === 'open') {
    const text =
      result === 'paid'
        ? `Your payment of ${amount} was taken and is being confirmed: the balance shows it within a few minutes.`
        : `Not paid yet: the top-up of ${amount} is still open.`
    return page('Not paid yet', `${heading}<p>${text}</p>`)
  }
  return page('Expired', `${heading}<p>This top-up link has expired; nothing was paid. Ask for a new top-up.</p>`)
}

const HTML_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'",
}

/** An HTML page with the payment pages' headers. */
function sendPage(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').headers(HTML_HEADERS).send(html)
}

/** A refusal of a payment link as a page: 404 for a link that is not one, 503 when the provider cannot be reached. */
function sendRefusal(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof ServiceError)) throw error
  if (error.outcome === 'ServiceUnavailable') {
    return sendPage(
      reply.header('retry-after', '60'),
      page('Try again shortly', `<h1>Try again shortly</h1><p>${escapeHtml(error.message)}.</p>`),
      503,
    )
  }
  return sendPage(reply, page('Not found', `<h1>Not found</h1><p>${escapeHtml(error.message)}.</p>`), 404)
}

/** The card details a payment takes (the payment provider's). */
type PaymentCard = Parameters<PaymentsService['pay']>[3]

/** The card as the payer typed it, its number with the spaces and dashes people type taken out. */
function cardDetailsOf(card: PaymentCard): PaymentCard {
  return { number: card.number.replace(/[ -]/g, ''), expiry: card.expiry, cvc: card.cvc }
}

export function registerPaymentRoutes(
  app: FastifyInstance,
  payments: PaymentsService,
  hosted: HostedPaymentsService,
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    `${PAYMENT_PATH_PREFIX}:orderId`,
    {
      schema: {
        hide: true,
        params: PaymentParamsSchema,
        querystring: PaymentPageQuerySchema,
      },
      config: { auth: false },
    },
    async (request, reply) => {
      const token = request.query.token ?? ''
      try {
        const answer = await hosted.orderCheckout(request.params.orderId, token)
        if (answer.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(answer.url, 303)
        return sendPage(reply, paymentPage(answer.facts, token))
      } catch (error) {
        return sendRefusal(reply, error)
      }
    },
  )

  api.get(
    `${PAYMENT_PATH_PREFIX}:orderId/return`,
    {
      schema: { hide: true, params: PaymentParamsSchema, querystring: ReturnQuerySchema },
      config: { auth: false },
    },
    async (request, reply) => {
      try {
        const facts = await payments.describe(request.params.orderId, request.query.token ?? '')
        return sendPage(reply, returnPage(facts, request.query.result))
      } catch (error) {
        return sendRefusal(reply, error)
      }
    },
  )

  registerTopUpPages(app, hosted)

  api.post(
    `${PAYMENT_PATH_PREFIX}:orderId`,
    {
      schema: {
        hide: true,
        params: PaymentParamsSchema,
        body: PayRequestSchema,
        response: { 200: PayResponseSchema, 400: ErrorResponseSchema, 404: ErrorResponseSchema },
      },
      config: { auth: false },
    },
    async (request) => {
      // With a hosted provider the payer pays on its page: this form's simulated card is not taken.
      if (hosted.hosted) throw new ServiceError('EntityNotFound', 'This payment link is not valid')
      const { token, amount, card } = request.body
      const result = await payments.pay(request.params.orderId, token, amount, cardDetailsOf(card))
      switch (result.status) {
        case 'paid':
          return outcomeReply(request, 'Paid', {
            message: `Paid ${result.amount} ${result.currency}: the order goes to production. Reference ${result.reference}.`,
            amount: result.amount,
            currency: result.currency,
          })
        case 'declined':
          return outcomeReply(request, 'Declined', { message: result.reason, amount: null, currency: null })
        case 'nothingDue':
          return outcomeReply(request, 'NothingDue', {
            message: 'Nothing is due on this order',
            amount: null,
            currency: null,
          })
        case 'amountChanged':
          return outcomeReply(request, 'AmountChanged', {
            message: `The order changed: ${result.amount} ${result.currency} is due now. Reload the page to pay it.`,
            amount: result.amount,
            currency: result.currency,
          })
      }
    },
  )
}

function registerTopUpPages(app: FastifyInstance, hosted: HostedPaymentsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.get(
    `${PAYMENT_PATH_PREFIX}top-ups/:topUpId`,
    { schema: { hide: true, params: TopUpParamsSchema, querystring: PaymentPageQuerySchema }, config: { auth: false } },
    async (request, reply) => {
      const token = request.query.token ?? ''
      try {
        const answer = await hosted.topUpCheckout(request.params.topUpId, token)
        if (answer.kind === 'redirect') return reply.header('cache-control', 'no-store').redirect(answer.url, 303)
        if (answer.kind === 'closed') return sendPage(reply, topUpClosedPage(answer.topUp))
        const amount = `${escapeHtml(answer.topUp.amount)} ${escapeHtml(answer.topUp.currency)}`
        return sendPage(
          reply,
          cardForm(
            `Top up ${amount}`,
            `${topUpHeading(answer.topUp)}<p>A top-up of <strong>${amount}</strong> of the prepaid balance.</p>`,
            `Pay ${amount}`,
            { token, amount: answer.topUp.amount },
          ),
        )
      } catch (error) {
        return sendRefusal(reply, error)
      }
    },
  )

  api.get(
    `${PAYMENT_PATH_PREFIX}top-ups/:topUpId/return`,
    { schema: { hide: true, params: TopUpParamsSchema, querystring: ReturnQuerySchema }, config: { auth: false } },
    async (request, reply) => {
      try {
        const answer = await hosted
          .topUpCheckout(request.params.topUpId, request.query.token ?? '')
          .catch((error: unknown) => {
            // Back from the provider's page while it cannot be reached: the top-up is shown as not paid yet.
            if (error instanceof ServiceError && error.outcome === 'ServiceUnavailable') return null
            throw error
          })
        if (answer?.kind === 'closed') return sendPage(reply, topUpClosedPage(answer.topUp, request.query.result))
        const topUp = answer && answer.kind === 'form' ? answer.topUp : null
        const text =
          request.query.result === 'paid'
            ? 'Your payment was taken and is being confirmed: the balance shows it within a few minutes.'
            : 'Not paid yet: the top-up is still open.'
        return sendPage(
          reply,
          page('Not paid yet', `${topUp ? topUpHeading(topUp) : '<h1>Top-up</h1>'}<p>${escapeHtml(text)}</p>`),
        )
      } catch (error) {
        return sendRefusal(reply, error)
      }
    },
  )

  api.post(
    `${PAYMENT_PATH_PREFIX}top-ups/:topUpId`,
    {
      schema: {
        hide: true,
        params: TopUpParamsSchema,
        body: PayRequestSchema,
        response: { 200: PayResponseSchema, 400: ErrorResponseSchema, 404: ErrorResponseSchema },
      },
      config: { auth: false },
    },
    async (request) => {
      const { token, amount, card } = request.body
      const result = await hosted.payTopUp(request.params.topUpId, token, amount, cardDetailsOf(card))
      switch (result.status) {
        case 'paid':
          return outcomeReply(request, 'Paid', {
            message: `Paid ${result.amount} ${result.currency}: added to the balance. Reference ${result.reference}.`,
            amount: result.amount,
            currency: result.currency,
          })
        case 'declined':
          return outcomeReply(request, 'Declined', { message: result.reason, amount: null, currency: null })
        case 'closed':
          return outcomeReply(request, 'NothingDue', {
            message:
              result.topUp.status === 'succeeded' ? 'This top-up is paid already' : 'This top-up link has expired',
            amount: null,
            currency: null,
          })
      }
    },
  )
}
