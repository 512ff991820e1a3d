// The account's card on file (docs/billing.md#a-card-on-file), printroute's own, additive to the Prodigi API:
//   GET    /account/payment-method         the card on file (display fields) or `card: null`
//   DELETE /account/payment-method         forgets it; answers `card: null`
//   POST   /account/payment-method/setup   a hosted page where a Live prepaid account saves a card
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { SavedCardsService } from '../../services/saved-cards.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { CardSetupResponseSchema, PaymentMethodResponseSchema } from '../schemas/payment-method.schema.ts'

export function registerPaymentMethodRoutes(app: FastifyInstance, savedCards: SavedCardsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/account/payment-method',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'getPaymentMethod',
        tags: ['account'],
        summary: "The account's card on file (Live prepaid accounts): brand, last four digits, expiry; or null",
        response: { 200: PaymentMethodResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { card: await savedCards.savedCard(request.caller) }),
  )

  api.delete(
    '/account/payment-method',
    {
      config: { scope: 'account:manage' },
      schema: {
        operationId: 'removePaymentMethod',
        tags: ['account'],
        summary: "Removes the account's card on file: held orders are no longer charged to it",
        response: { 200: PaymentMethodResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      await savedCards.removeCard(request.caller)
      return outcomeReply(request, 'Ok', { card: null })
    },
  )

  api.post(
    '/account/payment-method/setup',
    {
      config: { scope: 'account:manage' },
      schema: {
        operationId: 'startPaymentMethodSetup',
        tags: ['account'],
        summary: 'A page of the payment provider where a Live prepaid account saves a card, charged for held orders',
        response: { 200: CardSetupResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { setup: await savedCards.startCardSetup(request.caller) }),
  )
}
