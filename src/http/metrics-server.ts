// The small server of `--metrics-port`: GET /metrics (and /healthz, /readyz) on a port of their own, kept off
// the public API ports, and the only way to scrape a `printroute worker` process, which serves no API. Same
// trace context and error bodies as the API servers.
import Fastify, { type FastifyBaseLogger } from 'fastify'
import type { HealthService } from '../services/health.service.ts'
import type { BoundServer } from './bound-server.ts'
import { installErrorHandling, registerMethodNotAllowed } from './errors.ts'
import { RequestLogController } from './request-logging.ts'
import { type MetricsEndpoint, registerHealthRoutes, registerMetricsRoute } from './routes/operations.routes.ts'
import type { App } from './server.ts'
import { installTraceContext, traceIdOfRequest } from './trace-context.ts'

export interface MetricsServerOptions {
  metrics: MetricsEndpoint
  health: HealthService
  logger: FastifyBaseLogger | boolean
  /** A port bound before the application was built (`serve`, `worker`); absent, the caller listens. */
  boundServer?: BoundServer
}

/** Built, not listening (or on the bound server given): the caller listens or opens it. */
export async function buildMetricsServer(options: MetricsServerOptions): Promise<App> {
  const app = Fastify({
    ...(typeof options.logger === 'boolean' ? { logger: options.logger } : { loggerInstance: options.logger }),
    genReqId: traceIdOfRequest,
    logController: new RequestLogController(),
    return503OnClosing: true,
    ...(options.boundServer ? { serverFactory: options.boundServer.serverFactory } : {}),
  })
  installTraceContext(app)
  installErrorHandling(app)
  registerMetricsRoute(app, options.metrics)
  registerHealthRoutes(app, options.health)
  registerMethodNotAllowed(app, [
    { url: '/metrics', methods: ['GET', 'HEAD'] },
    { url: '/healthz', methods: ['GET', 'HEAD'] },
    { url: '/readyz', methods: ['GET', 'HEAD'] },
  ])
  await app.ready()
  return app
}
