// GET /orders/{id}/actions and the order actions implemented so far (updateMetadata).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { OrderActionsService } from '../../services/order-actions.service.ts'
import { ErrorResponseSchema, TraceParent } from '../schemas/common.schema.ts'
import { MetadataSchema, OrderIdParamsSchema, OrderResponseSchema } from '../schemas/order.schema.ts'

const Availability = Type.Object({ isAvailable: Type.Union([Type.Literal('Yes'), Type.Literal('No')]) })

const ActionsResponseSchema = Type.Object({
  outcome: Type.String(),
  cancel: Availability,
  changeRecipientDetails: Availability,
  changeShippingMethod: Availability,
  changeMetaData: Availability,
  traceParent: TraceParent,
})

const errors = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema }

export function registerOrderActionRoutes(app: FastifyInstance, actions: OrderActionsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/orders/:orderId/actions',
    {
      schema: {
        summary: 'Actions currently available for an order',
        params: OrderIdParamsSchema,
        response: { 200: ActionsResponseSchema, ...errors },
      },
    },
    async (request) => ({
      outcome: 'Ok',
      ...(await actions.listActions(request.caller, request.params.orderId)),
      traceParent: request.traceParent,
    }),
  )

  api.post(
    '/orders/:orderId/actions/updateMetadata',
    {
      schema: {
        summary: 'Replace the metadata of an order (any state)',
        params: OrderIdParamsSchema,
        body: Type.Object({ metadata: MetadataSchema }, { additionalProperties: false }),
        response: { 200: OrderResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const orderJson = await actions.updateMetadata(request.caller, request.params.orderId, request.body.metadata)
      return reply
        .type('application/json; charset=utf-8')
        .send(`{"outcome":"Updated","order":${orderJson},"traceParent":"${request.traceParent}"}` as never)
    },
  )
}
