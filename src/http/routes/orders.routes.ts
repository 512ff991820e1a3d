// POST /orders, GET /orders/{id}, GET /orders: parse, call one service function, shape the reply.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import fastJson from 'fast-json-stringify'
import type { FastifyInstance } from 'fastify'
import { addFailure, type Failures, hasFailures } from '../../domain/failures.ts'
import { validationFailed } from '../../domain/outcomes.ts'
import { LIVE_SCENARIO_WARNING, SANDBOX_SCENARIO_HEADER, scenarioInMetadata } from '../../domain/sandbox-scenarios.ts'
import { traceIdOf } from '../../domain/traceparent.ts'
import type { OrdersService } from '../../services/orders.service.ts'
import { nextPageUrl } from '../paging.ts'
import { JSON_TYPE, outcomeReply, sendOutcomeJson } from '../replies.ts'
import { ErrorResponseSchema } from '../schemas/common.schema.ts'
import {
  CreateOrderHeadersSchema,
  CreateOrderRequestSchema,
  CreateOrderResponseSchema,
  ListOrdersQuerySchema,
  ListOrdersResponseSchema,
  OnHoldResponseSchema,
  OrderIdParamsSchema,
  OrderResponseSchema,
} from '../schemas/order.schema.ts'
import { RoutingResponseSchema } from '../schemas/routing.schema.ts'

const errorResponses = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema }

// The on-hold answer has its own shape (only the order id); its serializer is compiled once here.
const serializeOnHold = fastJson(OnHoldResponseSchema as object)

// No order predates the Unix epoch; the databases disagree about years near 0, so bounds are clamped.
const EARLIEST_FILTER_DATE = new Date('1970-01-01T00:00:00.000Z')
const LATEST_FILTER_DATE = new Date('9999-12-31T23:59:59.999Z')

/** A date-time filter as a Date within the range both databases accept; a failure when it is no date. */
function parseDateFilter(name: string, value: string | undefined, failures: Failures): Date | null {
  if (value === undefined) return null
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) {
    addFailure(failures, name, { code: 'InvalidFormat', providedValue: value, comparisonValue: 'date-time' })
    return null
  }
  if (date < EARLIEST_FILTER_DATE) return EARLIEST_FILTER_DATE
  if (date > LATEST_FILTER_DATE) return LATEST_FILTER_DATE
  return date
}

export function registerOrderRoutes(app: FastifyInstance, orders: OrdersService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()

  api.post(
    '/orders',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'createOrder',
        tags: ['orders'],
        summary: 'Create an order',
        description:
          'Creates and submits an order. Outcome Created, CreatedWithIssues (the recipient address has a problem ' +
          'that stops delivery: the order carries order.recipient.AddressUnverified issues; problems that do not ' +
          'stop it are addressAdvisories and leave the outcome Created; docs/addresses.md), OnHold ' +
          '(the account has a pause window: only the ' +
          'order id is returned) or AlreadyExists (same idempotencyKey: the existing order is returned). ' +
          'Sandbox: the X-Sandbox-Scenario header or metadata.sandboxScenario makes the order take a test ' +
          'scenario (docs/sandbox.md); Live ignores both and answers with a Warning header.',
        headers: CreateOrderHeadersSchema,
        body: CreateOrderRequestSchema,
        response: { 200: CreateOrderResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const header = request.headers[SANDBOX_SCENARIO_HEADER.toLowerCase()]
      const scenarioHeader = Array.isArray(header) ? header.join(',') : header
      const result = await orders.createOrder(
        request.caller,
        request.body,
        traceIdOf(request.traceParent),
        scenarioHeader,
      )
      if (
        request.caller.environment === 'live' &&
        (scenarioHeader !== undefined || scenarioInMetadata(request.body.metadata) !== undefined)
      ) {
        reply.header('warning', LIVE_SCENARIO_WARNING)
      }
      if ('onHold' in result) {
        return reply
          .type(JSON_TYPE)
          .serializer(serializeOnHold)
          .send(outcomeReply(request, result.outcome, { order: { id: result.onHold.id } }) as never)
      }
      return sendOutcomeJson(reply, request, result.outcome, [['order', result.orderJson]])
    },
  )

  api.get(
    '/orders/:orderId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrder',
        tags: ['orders'],
        summary: 'Get an order',
        params: OrderIdParamsSchema,
        response: { 200: OrderResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const orderJson = await orders.getOrder(request.caller, request.params.orderId)
      return sendOutcomeJson(reply, request, 'Ok', [['order', orderJson]])
    },
  )

  api.get(
    '/orders/:orderId/routing',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrderRouting',
        tags: ['orders'],
        summary: "Explain an order's routing",
        description:
          'How the items were allocated to labs: per item the labs considered with their costs for this ' +
          'destination and method and the labs excluded with the reason, the chosen plan with its total, the ' +
          'cheapest plan from one lab and what the split saved. One entry per allocation (a reallocation after a ' +
          'lab refused a shipment adds one); before the first, an Estimate from the catalogue as it is now.',
        params: OrderIdParamsSchema,
        response: { 200: RoutingResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const routing = await orders.orderRouting(request.caller, request.params.orderId)
      return outcomeReply(request, 'Ok', { routing })
    },
  )

  api.get(
    '/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrders',
        tags: ['orders'],
        summary: 'List orders',
        description: 'Newest first. Query parameter names are case-insensitive.',
        querystring: ListOrdersQuerySchema,
        response: { 200: ListOrdersResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const query = request.query
      const top = query.top ?? 10
      const skip = query.skip ?? 0
      const failures: Failures = {}
      const createdFrom = parseDateFilter('createdFrom', query.createdFrom, failures)
      const createdTo = parseDateFilter('createdTo', query.createdTo, failures)
      if (hasFailures(failures)) throw validationFailed(failures)
      const result = await orders.listOrders(request.caller, {
        top,
        skip,
        createdFrom,
        createdTo,
        status: query.status ?? null,
        orderIds: query.orderIds && query.orderIds.length > 0 ? query.orderIds : null,
        merchantReferences:
          query.merchantReferences && query.merchantReferences.length > 0 ? query.merchantReferences : null,
        search: query.search ?? null,
      })
      const nextUrl = result.hasMore ? nextPageUrl(request, skip, top) : null
      return sendOutcomeJson(reply, request, 'Ok', [
        ['orders', `[${result.ordersJson.join(',')}]`],
        ['hasMore', String(result.hasMore)],
        ['nextUrl', JSON.stringify(nextUrl)],
      ])
    },
  )
}
