// The payment page of an order held by RequiresPaymentAuthorisation (Live only;
// docs/billing.md#orders-waiting-for-payment):
//   GET  /payments/{orderId}?token=...  an HTML page showing what is due, with a card form;
//   POST /payments/{orderId}            {token, amount, card:{number, expiry, cvc}} -> the payment's result.
// The token in the link is the authorisation (no API key): the merchant forwards the link to whoever pays.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { PaymentPageFacts, PaymentsService } from '../../services/payments.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import {
  PaymentPageQuerySchema,
  PaymentParamsSchema,
  PayRequestSchema,
  PayResponseSchema,
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
  // The form posts JSON (the API's only request format) from a few lines of script.
  return page(
    `Pay ${amount}`,
    `${heading}<p>A payment of <strong>${amount}</strong> is needed before this order${reference} goes to production.</p>
<form id="pay"><label for="number">Card number</label><input id="number" inputmode="numeric" autocomplete="cc-number" required>
<label for="expiry">Expiry (MM/YY)</label><input id="expiry" autocomplete="cc-exp" required>
<label for="cvc">Security code</label><input id="cvc" inputmode="numeric" autocomplete="cc-csc" required>
<button type="submit">Pay ${amount}</button></form><p id="result" role="status"></p>
<script>
document.getElementById('pay').addEventListener('submit', async (event) => {
  event.preventDefault()
  const value = (id) => document.getElementById(id).value.trim()
  const response = await fetch(location.pathname, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: ${JSON.stringify(token)}, amount: ${JSON.stringify(facts.amount)},
      card: { number: value('number'), expiry: value('expiry'), cvc: value('cvc') } }),
  })
  const result = await response.json()
  document.getElementById('result').textContent = result.message || result.statusText
  if (result.outcome === 'Paid' || result.outcome === 'NothingDue') document.getElementById('pay').remove()
})
</script>`,
  )
}

export function registerPaymentRoutes(app: FastifyInstance, payments: PaymentsService): void {
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
        const facts = await payments.describe(request.params.orderId, token)
        return reply
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .header(
            'content-security-policy',
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'",
          )
          .send(paymentPage(facts, token))
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(page('Not found', `<h1>Not found</h1><p>${escapeHtml(error.message)}.</p>`))
      }
    },
  )

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
      const { token, amount, card } = request.body
      const result = await payments.pay(request.params.orderId, token, amount, {
        number: card.number.replace(/[ -]/g, ''),
        expiry: card.expiry,
        cvc: card.cvc,
      })
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
