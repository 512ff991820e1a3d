// The card provider's webhooks (docs/billing.md#card-payments-through-stripe): POST /payments/v1/stripe/webhooks
// verifies each event's signature over the raw body, stores it once by its id (provider_events) and queues the job
// process-payment-event, answering at once; the job reads the stored event and routes it by kind. Checkout
// completions of mode payment (an order's payment, a top-up) are the hosted payments'; saved cards, refunds and
// disputes are the handlers' (each a service of its own). A kind with no handler is stored and processed with the
// outcome 'not handled'. A handler that throws leaves the event unprocessed: the job's retry (and the sweeper after
// 10 minutes) runs it again, and every handler counts its money once.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { JobEnqueuer } from '../adapters/job-queue.ts'
import { jobRequest } from '../domain/jobs.ts'
import { validationFailed } from '../domain/outcomes.ts'
import type {
  CheckoutCompletedEvent,
  DisputeEvent,
  PaymentEvent,
  PaymentGateway,
  RefundedEvent,
  RefundUpdatedEvent,
} from '../domain/payment-gateway.ts'
import { PaymentGatewayError } from '../domain/payment-gateway.ts'
import {
  findProviderEvent,
  insertProviderEvent,
  markEventProcessed,
} from '../repositories/provider-payments.repository.ts'
import type { HostedPaymentsService } from './hosted-payments.service.ts'
import { type ServiceLogger, silentLogger } from './observability.ts'

export type {
  CheckoutCompletedEvent,
  DisputeEvent,
  RefundedEvent,
  RefundUpdatedEvent,
} from '../domain/payment-gateway.ts'
/** Each answers what it did, in words (stored as provider_events.outcome); throws to be retried by the job. */
export interface PaymentEventHandlers {
  cardSetupCompleted?: (event: CheckoutCompletedEvent) => Promise<string> // mode 'setup' (stripe-cards)
  refunded?: (event: RefundedEvent) => Promise<string> // (stripe-out)
  refundUpdated?: (event: RefundUpdatedEvent) => Promise<string> // a refund answered pending that ended later
  dispute?: (event: DisputeEvent) => Promise<string> // both dispute kinds (stripe-out)
}

export const NOT_HANDLED = 'not handled'

export interface PaymentEventsService {
  /**
   * A webhook's raw body and signature header: verified, stored once, its job queued. `duplicate` for an event
   * stored already (a redelivery). A signature that does not verify is refused (ValidationFailed) and nothing is
   * stored.
   */
  receive(rawBody: Buffer, signatureHeader: string | undefined): Promise<'accepted' | 'duplicate'>
  /** The job: processes one stored event (one processed already is left alone). */
  process(provider: string, eventId: string): Promise<void>
}

export interface PaymentEventsDeps {
  db: Database
  clock: Clock
  jobs: JobEnqueuer
  gateway: PaymentGateway
  hostedPayments: Pick<HostedPaymentsService, 'applyCheckoutCompleted'>
  handlers: PaymentEventHandlers
  log?: ServiceLogger
}

/** A stored event's payload read back into the event (amounts from strings, times from ISO text). */
export function eventFromPayload(payload: Record<string, unknown>): PaymentEvent {
  const big = (value: unknown) => (value === null || value === undefined ? null : BigInt(String(value)))
  const event = { ...payload, createdAt: new Date(String(payload.createdAt)) } as Record<string, unknown>
  for (const key of ['amountMinor', 'amountRefundedMinor']) {
    if (key in event) event[key] = big(event[key])
  }
  return event as unknown as PaymentEvent
}

export function createPaymentEventsService(deps: PaymentEventsDeps): PaymentEventsService {
  const { db, gateway, handlers } = deps
  const log = deps.log ?? silentLogger

  async function route(event: PaymentEvent): Promise<string> {
    switch (event.kind) {
      case 'checkoutCompleted':
        if (event.mode === 'payment') return deps.hostedPayments.applyCheckoutCompleted(event)
        return handlers.cardSetupCompleted ? handlers.cardSetupCompleted(event) : NOT_HANDLED
      case 'refunded':
        return handlers.refunded ? handlers.refunded(event) : NOT_HANDLED
      case 'refundUpdated':
        return handlers.refundUpdated ? handlers.refundUpdated(event) : NOT_HANDLED
      case 'disputeOpened':
      case 'disputeClosed':
        return handlers.dispute ? handlers.dispute(event) : NOT_HANDLED
      case 'other':
        return `${NOT_HANDLED}: ${event.type}`
    }
  }

  return {
    async receive(rawBody, signatureHeader) {
      let event: PaymentEvent
      try {
        event = gateway.verifyWebhook(rawBody, signatureHeader)
      } catch (error) {
        if (!(error instanceof PaymentGatewayError) || error.code !== 'badSignature') throw error
        log.warn(
          { step: 'payment-webhook', provider: gateway.name },
          `a ${gateway.name} webhook was refused: its signature is missing, wrong or older than 5 minutes`,
        )
        throw validationFailed(
          {
            'Stripe-Signature': [
              {
                code: signatureHeader ? 'InvalidValue' : 'Required',
                providedValue: signatureHeader ? '[signature]' : null,
              },
            ],
          },
          'The webhook signature does not verify: it is missing, made with another secret, or older than 5 minutes',
        )
      }
      return db.transaction(async (tx) => {
        const stored = await insertProviderEvent(tx, gateway.name, event, deps.clock.now())
        if (!stored) return 'duplicate'
        await deps.jobs.enqueue(tx, [
          jobRequest('process-payment-event', { provider: gateway.name, eventId: event.eventId }),
        ])
        return 'accepted'
      })
    },

    async process(provider, eventId) {
      const stored = await findProviderEvent(db, provider, eventId)
      if (!stored || stored.processedAt !== null) return
      const event = eventFromPayload(stored.payload)
      const outcome = await route(event)
      if (await markEventProcessed(db, provider, eventId, outcome, deps.clock.now())) {
        log.info(
          { step: 'payment-event', provider, eventId, kind: event.kind, livemode: event.livemode },
          `${provider} event ${eventId} (${event.kind}): ${outcome}`,
        )
      }
    },
  }
}
