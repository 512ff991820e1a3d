// Top-ups of a Live prepaid balance (docs/api.md#top-ups), printroute's own, additive to the Prodigi API:
//   POST /account/top-ups        {amount} -> 201 the top-up and its link (url) to pay it at
//   GET  /account/top-ups/{id}   the top-up's status
// A Sandbox key or an invoice account is refused with the field that decides it (the Sandbox never bills).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { auditActorOf } from '../../services/accounts.service.ts'
import type { HostedPaymentsService } from '../../services/hosted-payments.service.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  CreatedTopUpResponseSchema,
  TopUpParamsSchema,
  TopUpRequestSchema,
  TopUpResponseSchema,
} from '../schemas/top-ups.schema.ts'

export function registerAccountTopUpRoutes(app: FastifyInstance, hosted: HostedPaymentsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.post(
    '/account/top-ups',
    {
      config: { scope: 'account:manage' },
      schema: {
        operationId: 'createTopUp',
        tags: ['account'],
        summary: 'Ask for a top-up of the prepaid balance (Live): a link to pay it by card',
        body: TopUpRequestSchema,
        response: { 201: CreatedTopUpResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const topUp = await hosted.createTopUp(request.caller, request.body.amount, auditActorOf(request.caller))
      reply.code(201)
      return outcomeReply(request, 'Created', { topUp })
    },
  )

  api.get(
    '/account/top-ups/:id',
    {
      config: { scope: 'account:read' },
      schema: {
        operationId: 'getTopUp',
        tags: ['account'],
        summary: 'A top-up of the prepaid balance and its status',
        params: TopUpParamsSchema,
        response: { 200: TopUpResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', { topUp: await hosted.getTopUp(request.caller, request.params.id) }),
  )
}
