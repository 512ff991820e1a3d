// The card provider's webhooks (docs/billing.md#the-webhook), on each environment's port, without an API key:
//   POST /payments/v1/stripe/webhooks   the raw body as Stripe signed it, its Stripe-Signature header checked.
// 200 once stored (or found stored: a redelivery), the work queued; 400 with the error body for a signature that
// does not verify (nothing stored). Served only with a payment gateway configured; otherwise the path is 404.
import type { FastifyInstance } from 'fastify'
import type { PaymentEventsService } from '../../services/payment-events.service.ts'
import { outcomeReply } from '../replies.ts'

export const STRIPE_WEBHOOK_PATH = '/payments/v1/stripe/webhooks'
/** Stripe's events are a few kilobytes; this leaves room for any of them. */
const WEBHOOK_BODY_BYTES = 512 * 1024

export async function registerPaymentWebhookRoutes(app: FastifyInstance, events: PaymentEventsService): Promise<void> {
  await app.register(async (hooks) => {
    // The signature is over the exact bytes: this route keeps the body as a Buffer, whatever its content type.
    hooks.removeAllContentTypeParsers()
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_BYTES }, (_r, body, done) =>
      done(null, body),
    )
    hooks.post(
      STRIPE_WEBHOOK_PATH,
      { config: { auth: false }, bodyLimit: WEBHOOK_BODY_BYTES, schema: { hide: true } },
      async (request) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
        const signature = request.headers['stripe-signature']
        const received = await events.receive(body, typeof signature === 'string' ? signature : undefined)
        return outcomeReply(request, 'Ok', { received })
      },
    )
  })
}
