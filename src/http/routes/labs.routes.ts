// The lab API (Live only): labs list the shipments assigned to them and report progress with a lab key.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { LabsService } from '../../services/labs.service.ts'
import { sendError } from '../errors.ts'
import { ErrorResponses } from '../schemas/common.schema.ts'
import { RejectBody, ShipmentParams, ShippedBody } from '../schemas/labs.schema.ts'

declare module 'fastify' {
  interface FastifyRequest {
    labCode: string
  }
}

export function registerLabRoutes(app: FastifyInstance, labs: LabsService, now: () => Date): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  app.decorateRequest('labCode', '')
  api.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key']
    const labCode = typeof key === 'string' && key.startsWith('pr_lab_') ? await labs.authenticateLab(key) : undefined
    if (!labCode)
      return sendError(request, reply, new ServiceError('Unauthorized', 'The X-API-Key is not a valid lab key'))
    request.labCode = labCode
  })

  api.get(
    '/jobs',
    { schema: { summary: 'Shipments assigned to this lab', response: ErrorResponses }, config: { auth: false } },
    async (request) => ({
      outcome: 'Ok',
      jobs: await labs.listJobs(request.labCode),
      traceParent: request.traceParent,
    }),
  )

  const ok = (request: { traceParent: string }, changed: boolean) => ({
    outcome: changed ? 'Updated' : 'Ok',
    traceParent: request.traceParent,
  })

  api.post(
    '/jobs/:shipmentId/acknowledge',
    { schema: { params: ShipmentParams, response: ErrorResponses }, config: { auth: false } },
    async (request) =>
      ok(request, (await labs.report(request.labCode, request.params.shipmentId, { kind: 'acknowledged' })).changed),
  )
  api.post(
    '/jobs/:shipmentId/in-production',
    { schema: { params: ShipmentParams, response: ErrorResponses }, config: { auth: false } },
    async (request) =>
      ok(request, (await labs.report(request.labCode, request.params.shipmentId, { kind: 'inProduction' })).changed),
  )
  api.post(
    '/jobs/:shipmentId/shipped',
    { schema: { params: ShipmentParams, body: ShippedBody, response: ErrorResponses }, config: { auth: false } },
    async (request) => {
      const body = request.body
      const result = await labs.report(request.labCode, request.params.shipmentId, {
        kind: 'shipped',
        carrier: body.carrier,
        tracking: body.tracking ?? null,
        dispatchDate: body.dispatchDate ? new Date(body.dispatchDate) : now(),
      })
      return ok(request, result.changed)
    },
  )
  api.post(
    '/jobs/:shipmentId/reject',
    { schema: { params: ShipmentParams, body: RejectBody, response: ErrorResponses }, config: { auth: false } },
    async (request) => {
      const result = await labs.report(request.labCode, request.params.shipmentId, {
        kind: 'rejected',
        reason: request.body.reason,
        unavailableItemIds: request.body.unavailableItemIds ?? [],
      })
      return ok(request, result.changed)
    },
  )
}
