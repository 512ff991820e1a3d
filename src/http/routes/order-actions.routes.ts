// The order actions (docs/wire-contract.md#order-actions): GET .../actions and the four
// POST .../actions/{action}, and printroute's own replaceAsset. Business refusals (FailedToCancel, FailedToUpdate, ActionNotAvailable) are HTTP 200
// with the order, like successes; only a bad request or an unknown order is an error.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import fastJson from 'fast-json-stringify'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { validationFailed } from '../../domain/outcomes.ts'
import { traceIdOf } from '../../domain/traceparent.ts'
import type { ActionResult, OrderActionsService } from '../../services/order-actions.service.ts'
import { recipientFromRequest } from '../../services/orders.service.ts'
import { JSON_TYPE, outcomeReply, sendOutcomeJson } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { OnHoldResponseSchema, OrderIdParamsSchema, RecipientRequestSchema } from '../schemas/order.schema.ts'
import {
  ActionsResponseSchema,
  CancelResponseSchema,
  ConfirmResponseSchema,
  type RecipientBody,
  ReplaceAssetBodySchema,
  ReplaceAssetResponseSchema,
  UpdateMetadataBodySchema,
  UpdateMetadataResponseSchema,
  UpdateRecipientBodySchema,
  UpdateResponseSchema,
  UpdateShippingMethodBodySchema,
  WrappedRecipientSchema,
} from '../schemas/order-actions.schema.ts'
import { RequestValidationError, validatorCompiler } from '../validation.ts'

/** Compiles a body schema with the API's own validator (same failures, same paths as any other body). */
function bodyValidator(schema: object): (body: unknown) => void {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' }) as (data: unknown) => {
    error?: Error
  }
  return (body) => {
    const result = validate(body)
    if (result.error) throw result.error
  }
}

/** A bodiless action (cancel, confirm) takes no body, `{}` or `[]`; anything else names its fields as unknown. */
function refuseAnyBody(body: unknown): void {
  const empty =
    body === undefined ||
    (Array.isArray(body) && body.length === 0) ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
  if (empty) return
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : ['']
  throw new RequestValidationError(
    Object.fromEntries(
      fields.map((field) => [field === '' ? 'body' : field, [{ code: 'UnknownField', providedValue: field }]]),
    ),
  )
}

/** The order JSON is served as stored (already in contract key order), not re-serialised. */
function sendOrder(
  reply: FastifyReply,
  request: { traceParent: string },
  result: ActionResult<string>,
  withResults: boolean,
) {
  const fields: [string, string][] = [['order', result.orderJson]]
  if (withResults) fields.unshift(['shipmentUpdateResults', JSON.stringify(result.shipmentUpdateResults)])
  return sendOutcomeJson(reply, request, result.outcome, fields)
}

export function registerOrderActionRoutes(app: FastifyInstance, actions: OrderActionsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.get(
    '/orders/:orderId/actions',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderActions',
        tags: ['order actions'],
        summary: 'Actions currently available for an order',
        params: OrderIdParamsSchema,
        response: { 200: ActionsResponseSchema, ...ErrorResponses },
      },
    },
    async (request) => outcomeReply(request, 'Ok', await actions.listActions(request.caller, request.params.orderId)),
  )

  api.post(
    '/orders/:orderId/actions/cancel',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'cancelOrder',
        tags: ['order actions'],
        summary: 'Cancel every shipment not yet in production (no body, or {} / [])',
        params: OrderIdParamsSchema,
        response: { 200: CancelResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      refuseAnyBody(request.body)
      const result = await actions.cancel(request.caller, request.params.orderId)
      return sendOrder(reply, request, result, false)
    },
  )

  const shippingMethodSchema = {
    tags: ['order actions'],
    summary: 'Change the shipping method of the shipments not yet in production',
    params: OrderIdParamsSchema,
    body: UpdateShippingMethodBodySchema,
    response: { 200: UpdateResponseSchema, ...ErrorResponses },
  }
  const shippingMethodRoutes = [
    { path: '/orders/:orderId/actions/updateShippingMethod', schema: { operationId: 'updateShippingMethod' } },
    {
      path: '/orders/:orderId/actions/updateShipping',
      schema: {
        operationId: 'updateShipping',
        description: 'The same action as updateShippingMethod, under its other name.',
      },
    },
  ]
  for (const { path, schema } of shippingMethodRoutes) {
    api.post(
      path,
      { config: { scope: 'orders:write' }, schema: { ...shippingMethodSchema, ...schema } },
      async (request, reply) => {
        const result = await actions.updateShippingMethod(
          request.caller,
          request.params.orderId,
          request.body.shippingMethod,
        )
        return sendOrder(reply, request, result, true)
      },
    )
  }

  const validateFlatRecipient = bodyValidator(RecipientRequestSchema)
  const validateWrappedRecipient = bodyValidator(WrappedRecipientSchema)
  api.post(
    '/orders/:orderId/actions/updateRecipient',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'updateRecipient',
        tags: ['order actions'],
        summary: 'Change the recipient (same country): the recipient object, or {recipient: {...}}',
        params: OrderIdParamsSchema,
        body: UpdateRecipientBodySchema,
        response: { 200: UpdateResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown> | undefined
      if (body === undefined || body === null) {
        throw validationFailed({ body: [{ code: 'Required', providedValue: null }] })
      }
      const wrapped = typeof body === 'object' && !Array.isArray(body) && 'recipient' in body
      ;(wrapped ? validateWrappedRecipient : validateFlatRecipient)(body)
      const recipient = (wrapped ? body.recipient : body) as RecipientBody
      const result = await actions.updateRecipient(
        request.caller,
        request.params.orderId,
        recipientFromRequest(recipient),
        wrapped ? 'recipient.address.countryCode' : 'address.countryCode',
        wrapped && body.acceptUnverifiedAddress === true,
      )
      return sendOrder(reply, request, result, true)
    },
  )

  api.post(
    '/orders/:orderId/actions/updateMetadata',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'updateMetadata',
        tags: ['order actions'],
        summary: 'Replace the metadata of an order (any state)',
        params: OrderIdParamsSchema,
        body: UpdateMetadataBodySchema,
        response: { 200: UpdateMetadataResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const result = await actions.updateMetadata(request.caller, request.params.orderId, request.body.metadata)
      return sendOrder(reply, request, result, false)
    },
  )

  registerReplaceAssetRoute(app, actions)
  registerConfirmRoute(app, actions)
}

// The confirm's on-hold answer (only the order id, as create's) has its own shape; compiled once.
const serializeConfirmOnHold = fastJson(OnHoldResponseSchema as object)

/** printroute's own action (docs/api.md#drafts-and-holds): a draft confirmed, or a held order released early. */
function registerConfirmRoute(app: FastifyInstance, actions: OrderActionsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/orders/:orderId/actions/confirm',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'confirmOrder',
        tags: ['order actions'],
        summary: "Confirm a draft order, or release a held order's hold early (printroute's own; no body, or {})",
        description:
          'A draft starts as an order created now would: charged, allocated and produced, the account pause window ' +
          'applying from now (then the answer is OnHold with only the order id, as create answers). A held order ' +
          '(holdUntil) starts now. Confirming again answers Confirmed and starts nothing twice. ' +
          'ActionNotAvailable (HTTP 200, the order unchanged) for an order that is neither a draft nor held.',
        params: OrderIdParamsSchema,
        response: { 200: ConfirmResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      refuseAnyBody(request.body)
      const result = await actions.confirm(request.caller, request.params.orderId, traceIdOf(request.traceParent))
      if ('onHold' in result) {
        return reply
          .type(JSON_TYPE)
          .serializer(serializeConfirmOnHold)
          .send(outcomeReply(request, result.outcome, { order: { id: result.onHold.id } }) as never)
      }
      return sendOrder(reply, request, result, false)
    },
  )
}

/** printroute's own action (docs/api.md#replace-an-asset): a held asset's new file. */
function registerReplaceAssetRoute(app: FastifyInstance, actions: OrderActionsService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/orders/:orderId/actions/replaceAsset',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'replaceAsset',
        tags: ['order actions'],
        summary: "Replace an asset's file before its order is allocated to labs (printroute's own)",
        description:
          'The new file is downloaded and preflighted afresh (a file held by PreflightFailed or FailedToDownload ' +
          'included); before the order starts, only the URL changes. ActionNotAvailable (HTTP 200, the order ' +
          'unchanged) once allocation began.',
        params: OrderIdParamsSchema,
        body: ReplaceAssetBodySchema,
        response: { 200: ReplaceAssetResponseSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { itemId, printArea, url } = request.body
      const result = await actions.replaceAsset(request.caller, request.params.orderId, {
        itemId,
        printArea: printArea ?? 'default',
        url,
      })
      return sendOrder(reply, request, result, false)
    },
  )
}
