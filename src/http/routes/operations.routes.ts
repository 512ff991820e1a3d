// Endpoints for operators, outside /v4.0 and without an API key (docs/operations.md, "Health" and "Metrics"):
//   GET /healthz   the process is alive (answers without touching anything)
//   GET /readyz    the database, the job queue and the blob store work; 503 NotReady naming the failing checks
//   GET /metrics   Prometheus text format; with a metrics token, only for `Authorization: Bearer <token>`
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ServiceError } from '../../domain/outcomes.ts'
import type { HealthService } from '../../services/health.service.ts'
import { sendError } from '../errors.ts'
import { JSON_TYPE, outcomeReply } from '../replies.ts'

export interface MetricsEndpoint {
  /** The current metrics in the Prometheus text format. */
  scrape(): Promise<{ contentType: string; text: string }>
  /** When set, scrapes must send `Authorization: Bearer <token>`. */
  token: string | null
}

export function registerHealthRoutes(app: FastifyInstance, health: HealthService): void {
  app.get(
    '/healthz',
    { schema: { hide: true }, config: { auth: false, quietRequestLog: true } },
    async (request, reply) => reply.type(JSON_TYPE).send(outcomeReply(request, 'Ok', {})),
  )

  app.get(
    '/readyz',
    { schema: { hide: true }, config: { auth: false, quietRequestLog: true } },
    async (request, reply) => {
      const { ready, checks, catalogueVersion } = await health.readiness()
      const version = catalogueVersion === undefined ? {} : { catalogueVersion }
      // A probe must see the current state, never a cached one.
      reply.header('cache-control', 'no-store')
      if (ready) return reply.type(JSON_TYPE).send(outcomeReply(request, 'Ok', { checks, ...version }))
      const failing = Object.entries(checks)
        .filter(([, result]) => !result.ok)
        .map(([name, result]) => `${name} (${result.error})`)
      return sendError(
        request,
        reply,
        new ServiceError('NotReady', `Not ready: ${failing.join(', ')}`, { checks, ...version }),
      )
    },
  )
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** True when the Authorization header is `Bearer <token>`; compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '')
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  return match?.[1] !== undefined && timingSafeEqual(sha256(match[1]), sha256(token))
}

export function registerMetricsRoute(app: FastifyInstance, metrics: MetricsEndpoint): void {
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { auth: false, quietRequestLog: true } },
    async (request, reply) => {
      if (metrics.token !== null && !bearerMatches(request.headers.authorization, metrics.token)) {
        reply.header('www-authenticate', 'Bearer realm="printroute metrics"')
        const statusText = request.headers.authorization
          ? 'The metrics token is not valid'
          : 'The metrics need an Authorization: Bearer <token> header'
        return sendError(request, reply, new ServiceError('Unauthorized', statusText))
      }
      const scraped = await metrics.scrape()
      return reply.type(scraped.contentType).header('cache-control', 'no-store').send(scraped.text)
    },
  )
}
