// The Sandbox's own endpoints (docs/sandbox.md), registered on the Sandbox server only: on Live these paths
// are unknown (404 EndpointDoesNotExist). GET /sandbox/orders/{id} tells an order's scenario and whether it can
// be advanced; POST /sandbox/orders/{id}/advance moves it by the simulated labs' steps and answers the order.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { OrdersService } from '../../services/orders.service.ts'
import type { SandboxService } from '../../services/sandbox.service.ts'
import type { SandboxClaimsService } from '../../services/sandbox-claims.service.ts'
import { outcomeReply, sendOutcomeJson } from '../replies.ts'
import { ClaimIdParamsSchema } from '../schemas/claims.schema.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { OrderIdParamsSchema } from '../schemas/order.schema.ts'
import {
  AdvanceClaimBodySchema,
  AdvanceClaimResponseSchema,
  AdvanceOrderBodySchema,
  AdvanceOrderResponseSchema,
  SandboxOrderResponseSchema,
} from '../schemas/sandbox.schema.ts'

export function registerSandboxRoutes(
  app: FastifyInstance,
  sandbox: SandboxService,
  orders: OrdersService,
  sandboxClaims: SandboxClaimsService | null,
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  if (sandboxClaims) registerSandboxClaimRoutes(app, sandboxClaims)

  api.get(
    '/sandbox/orders/:orderId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getSandboxOrder',
        tags: ['sandbox'],
        summary: "An order's Sandbox scenario and whether it can be advanced (Sandbox only)",
        params: OrderIdParamsSchema,
        response: { 200: SandboxOrderResponseSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      outcomeReply(request, 'Ok', {
        sandboxOrder: await sandbox.describeOrder(request.caller, request.params.orderId),
      }),
  )

  api.post(
    '/sandbox/orders/:orderId/advance',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'advanceSandboxOrder',
        tags: ['sandbox'],
        summary: 'Move an order one lab step on, or to InProduction, Shipped, Complete or Delivered (Sandbox only)',
        description:
          "Runs the simulated labs' next steps now, with the same order changes and callbacks their timers " +
          'would cause (docs/sandbox.md). Idempotent with `to`: an order already there is answered unchanged ' +
          '(outcome Ok). 400 with the reason when the order cannot move that way.',
        params: OrderIdParamsSchema,
        body: AdvanceOrderBodySchema,
        response: { 200: AdvanceOrderResponseSchema, ...ErrorResponses },
      },
      // The body is optional: none is the same as `{}` (one step).
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
    },
    async (request, reply) => {
      const { orderId } = request.params
      const { changed } = await sandbox.advanceOrder(request.caller, orderId, request.body.to)
      const orderJson = await orders.getOrder(request.caller, orderId)
      const outcome = changed ? 'Updated' : 'Ok'
      // The order is served as stored (contract key order), as GET /orders/{id} serves it.
      return sendOutcomeJson(reply, request, outcome, [['order', orderJson]])
    },
  )
}

/** POST /sandbox/claims/{id}/advance: the Sandbox's simulated operator decides a claim (docs/sandbox.md#claims). */
function registerSandboxClaimRoutes(app: FastifyInstance, sandboxClaims: SandboxClaimsService): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/sandbox/claims/:claimId/advance',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'advanceSandboxClaim',
        tags: ['sandbox'],
        summary: "Have the Sandbox's simulated operator decide a claim now (Sandbox only)",
        description:
          'Resolves a Pending claim as its merchant preferred (Credit when it named none), or rejects it with `to: ' +
          '"Rejected"`, through the same decision as the operator\'s, with its events, reprint shipment or credit ' +
          'note (docs/sandbox.md#claims). A claim already there is answered unchanged (outcome Ok); another decided ' +
          'claim is 400 on `status`.',
        params: ClaimIdParamsSchema,
        body: AdvanceClaimBodySchema,
        response: { 200: AdvanceClaimResponseSchema, ...ErrorResponses },
      },
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {}
      },
    },
    async (request) => {
      const { claim, changed } = await sandboxClaims.advance(request.caller, request.params.claimId, request.body.to)
      return outcomeReply(request, changed ? 'Updated' : 'Ok', { claim })
    },
  )
}
