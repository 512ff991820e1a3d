// The lab API (Live only): labs list the shipments assigned to them and report progress with a lab key.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { LabStatementsService } from '../../services/lab-statements.service.ts'
import type { LabPushesService } from '../../services/labs/lab-pushes.service.ts'
import type { LabsService } from '../../services/labs/labs.service.ts'
import type { RateLimits } from '../rate-limit.ts'
import { outcomeReply } from '../replies.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import {
  CancellationBody,
  CapacityBody,
  LabCapacityResponseSchema,
  LabJobResponseSchema,
  LabJobsResponseSchema,
  LabPushesQuery,
  LabPushesResponseSchema,
  LabPushResponseSchema,
  LabReportResponseSchema,
  LabStatementResponseSchema,
  LabStatementsResponseSchema,
  PrintedBody,
  PushParams,
  RejectBody,
  ShipmentParams,
  ShippedBody,
  StatementParams,
  TrackingBody,
} from '../schemas/labs.schema.ts'

declare module 'fastify' {
  interface FastifyRequest {
    labCode: string
  }
}

export function registerLabRoutes(
  app: FastifyInstance,
  labs: LabsService,
  labPushes: Pick<LabPushesService, 'listPushes' | 'redeliver'>,
  rateLimits: Pick<RateLimits, 'refuseUnauthenticated'>,
  statements: Pick<LabStatementsService, 'list' | 'read' | 'pdf' | 'csv'>,
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  app.decorateRequest('labCode', '')
  api.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key']
    const labCode = typeof key === 'string' && key.startsWith('pr_lab_') ? await labs.authenticateLab(key) : undefined
    // A wrong lab key counts against the address's budget, as a wrong API key does on /v4.0.
    if (!labCode) {
      return rateLimits.refuseUnauthenticated(
        request,
        reply,
        new ServiceError('Unauthorized', 'The X-API-Key is not a valid lab key'),
      )
    }
    request.labCode = labCode
  })

  // The answers are sent as JSON.stringify text, as they were before their schemas existed: the schemas
  // document them (and type the handlers) without the serializer dropping or reordering a field.
  const send = <T extends object>(reply: FastifyReply, body: T) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(body) as never)
  const responses = { 200: LabReportResponseSchema, ...ErrorResponses }
  const route = (operationId: string, summary: string) => ({ operationId, summary, tags: ['labs'] })

  api.get(
    '/jobs',
    {
      schema: {
        ...route('listLabJobs', 'Shipments assigned to this lab and not yet shipped'),
        response: { 200: LabJobsResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) => send(reply, outcomeReply(request, 'Ok', { jobs: await labs.listJobs(request.labCode) })),
  )
  api.get(
    '/jobs/:shipmentId',
    {
      schema: {
        ...route(
          'getLabJob',
          "One of this lab's jobs in any state (open, shipped, rejected, cancelled), as GET /jobs lists an open one",
        ),
        params: ShipmentParams,
        response: { 200: LabJobResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) =>
      send(reply, outcomeReply(request, 'Ok', { job: await labs.getJob(request.labCode, request.params.shipmentId) })),
  )

  api.get(
    '/pushes',
    {
      schema: {
        ...route('listLabPushes', 'The jobs pushed to this lab, newest first, each with every attempt'),
        querystring: LabPushesQuery,
        response: { 200: LabPushesResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) =>
      send(reply, outcomeReply(request, 'Ok', await labPushes.listPushes(request.labCode, request.query))),
  )
  api.post(
    '/pushes/:pushId/redeliver',
    {
      schema: {
        ...route('redeliverLabPush', "Sends a push's event again (same webhook-id) to this lab's push URL"),
        params: PushParams,
        response: { 200: LabPushResponseSchema, ...ErrorResponses },
      },
      config: { auth: false },
    },
    async (request, reply) => {
      const push = await labPushes.redeliver(request.labCode, request.params.pushId)
      return send(reply, outcomeReply(request, 'Created', { push }))
    },
  )

  registerCapacityRoutes()
  registerStatementRoutes(statements)

  /** The lab's payables statements (docs/labs.md#statements): its own only, as JSON, PDF or CSV. */
  function registerStatementRoutes(service: Pick<LabStatementsService, 'list' | 'read' | 'pdf' | 'csv'>): void {
    api.get(
      '/statements',
      {
        schema: {
          ...route('listLabStatements', "This lab's payables statements (self-billing), newest month first"),
          response: { 200: LabStatementsResponseSchema, ...ErrorResponses },
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const statements = (await service.list(request.labCode)).map((statement) => ({
          number: statement.number,
          month: statement.month,
          issuedAt: statement.issuedAt.toISOString(),
          jobs: statement.shipmentCount,
          totals: statement.totals,
        }))
        return send(reply, outcomeReply(request, 'Ok', { statements }))
      },
    )
    api.get(
      '/statements/:number',
      {
        schema: {
          ...route(
            'getLabStatement',
            "One of this lab's statements: JSON, or the PDF or CSV with a .pdf or .csv suffix or the Accept header",
          ),
          params: StatementParams,
          response: { 200: LabStatementResponseSchema, ...ErrorResponses },
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const { number, format } = statementRequest(request.params.number, request.headers.accept)
        const statement = await service.read(number, request.labCode)
        // Another lab's statement is as unknown as one never issued.
        if (!statement) throw new ServiceError('EntityNotFound', `No statement ${number}`)
        if (format === 'pdf') {
          return reply
            .type('application/pdf')
            .header('content-disposition', `inline; filename="${number}.pdf"`)
            .send(Buffer.from(await service.pdf(statement)) as never)
        }
        if (format === 'csv') {
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${number}.csv"`)
            .send(service.csv(statement) as never)
        }
        return send(reply, outcomeReply(request, 'Ok', { statement }))
      },
    )
  }

  /** The lab's capacity: read and set. */
  function registerCapacityRoutes(): void {
    const capacityResponses = { 200: LabCapacityResponseSchema, ...ErrorResponses }
    api.get(
      '/capacity',
      {
        schema: {
          ...route(
            'getLabCapacity',
            "This lab's capacity for its day, the jobs it was given today, whether it is paused",
          ),
          response: capacityResponses,
        },
        config: { auth: false },
      },
      async (request, reply) =>
        send(reply, outcomeReply(request, 'Ok', { capacity: await labs.capacity(request.labCode) })),
    )
    api.put(
      '/capacity',
      {
        schema: {
          ...route('setLabCapacity', 'How many more jobs this lab can take today; allocation gives it no more'),
          body: CapacityBody,
          response: capacityResponses,
        },
        config: { auth: false },
      },
      async (request, reply) =>
        send(
          reply,
          outcomeReply(request, 'Updated', {
            capacity: await labs.reportCapacity(request.labCode, request.body.jobsToday, {
              kind: 'lab',
              labCode: request.labCode,
            }),
          }),
        ),
    )
  }

  const ok = (request: { traceParent: string }, reply: FastifyReply, changed: boolean) =>
    send(reply, outcomeReply(request, changed ? 'Updated' : 'Ok', {}))

  // The two reports without a body: the same route but for the path, the operation and the report's kind.
  registerProgressReportRoutes()

  /** The reports of a shipment's progress: acknowledged, in production, items printed. */
  function registerProgressReportRoutes(): void {
    const bodilessReports = [
      {
        path: '/jobs/:shipmentId/acknowledge',
        operationId: 'acknowledgeLabJob',
        summary: 'The lab has the shipment and will make it (no body)',
        kind: 'acknowledged',
      },
      {
        path: '/jobs/:shipmentId/in-production',
        operationId: 'startLabJobProduction',
        summary: 'The shipment is in production (no body)',
        kind: 'inProduction',
      },
    ] as const
    for (const report of bodilessReports) {
      api.post(
        report.path,
        {
          schema: { ...route(report.operationId, report.summary), params: ShipmentParams, response: responses },
          config: { auth: false },
        },
        async (request, reply) =>
          ok(
            request,
            reply,
            (await labs.report(request.labCode, request.params.shipmentId, { kind: report.kind })).changed,
          ),
      )
    }
    api.post(
      '/jobs/:shipmentId/printed',
      {
        schema: {
          ...route('printLabJobItems', 'Items of the shipment are printed (no body or no itemIds: all of them)'),
          params: ShipmentParams,
          body: PrintedBody,
          response: responses,
        },
        config: { auth: false },
        // The body is optional: a call without one is every open item, as `{}` is.
        preValidation: async (request) => {
          request.body ??= {}
        },
      },
      async (request, reply) => {
        const itemIds = request.body?.itemIds ?? []
        const result = await labs.report(request.labCode, request.params.shipmentId, { kind: 'printed', itemIds })
        return ok(request, reply, result.changed)
      },
    )
  }
  registerOutcomeReportRoutes()

  /** The reports that end a shipment's making or change what it ships: shipped, tracking, cancellation, reject. */
  function registerOutcomeReportRoutes(): void {
    api.post(
      '/jobs/:shipmentId/shipped',
      {
        schema: {
          ...route(
            'shipLabJob',
            'A parcel of the shipment has left the lab (itemIds; absent: every item not yet shipped): carrier, ' +
              'tracking and dispatch date',
          ),
          params: ShipmentParams,
          body: ShippedBody,
          response: responses,
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const body = request.body
        const result = await labs.report(request.labCode, request.params.shipmentId, {
          kind: 'shipped',
          carrier: body.carrier,
          // A tracking number without its page: the merchant's order shows an empty url (a string, as Prodigi's is).
          tracking: body.tracking ? { number: body.tracking.number, url: body.tracking.url ?? '' } : null,
          // Absent: the time the report is recorded, and a retry of it is the same report.
          ...(body.dispatchDate ? { dispatchDate: new Date(body.dispatchDate) } : {}),
          ...(body.itemIds ? { itemIds: body.itemIds } : {}),
        })
        return ok(request, reply, result.changed)
      },
    )
    api.post(
      '/jobs/:shipmentId/tracking',
      {
        schema: {
          ...route(
            'reportLabJobTracking',
            "The carrier's scans of a shipped shipment: its delivery status moves forward only; a repeat is Ok",
          ),
          params: ShipmentParams,
          body: TrackingBody,
          response: responses,
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const events = request.body.events.map(({ time, status, description, location }) => ({
          time,
          status,
          description,
          ...(location ? { location } : {}),
        }))
        const result = await labs.report(request.labCode, request.params.shipmentId, { kind: 'tracking', events })
        return ok(request, reply, result.changed)
      },
    )
    api.post(
      '/jobs/:shipmentId/cancellation',
      {
        schema: {
          ...route(
            'answerLabJobCancellation',
            "The lab's answer to printroute's request to cancel the shipment: cancelled or tooLate; a repeat is Ok",
          ),
          params: ShipmentParams,
          body: CancellationBody,
          response: responses,
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const result = await labs.report(request.labCode, request.params.shipmentId, {
          kind: 'cancellation',
          answer: request.body.answer,
        })
        return ok(request, reply, result.changed)
      },
    )
    api.post(
      '/jobs/:shipmentId/reject',
      {
        schema: {
          ...route(
            'rejectLabJob',
            'The lab cannot make the shipment, or (items) some of its items; they are allocated again or the order fails',
          ),
          params: ShipmentParams,
          body: RejectBody,
          response: responses,
        },
        config: { auth: false },
      },
      async (request, reply) => {
        const result = await labs.report(request.labCode, request.params.shipmentId, {
          kind: 'rejected',
          reason: request.body.reason,
          unavailableItemIds: request.body.unavailableItemIds ?? [],
          ...(request.body.items
            ? {
                items: request.body.items.map(({ itemId, reason, description }) => ({
                  itemId,
                  reason,
                  ...(description ? { description } : {}),
                })),
              }
            : {}),
        })
        return ok(request, reply, result.changed)
      },
    )
  }
}

/** A statement's number and the form asked for: the path's .pdf or .csv suffix, else the Accept header, else JSON. */
function statementRequest(
  path: string,
  accept: string | undefined,
): { number: string; format: 'json' | 'pdf' | 'csv' } {
  if (path.endsWith('.pdf')) return { number: path.slice(0, -4), format: 'pdf' }
  if (path.endsWith('.csv')) return { number: path.slice(0, -4), format: 'csv' }
  const wanted = (accept ?? '').toLowerCase()
  if (wanted.includes('application/pdf')) return { number: path, format: 'pdf' }
  if (wanted.includes('text/csv')) return { number: path, format: 'csv' }
  return { number: path, format: 'json' }
}
