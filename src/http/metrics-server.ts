// The small server of `--metrics-port`: GET /metrics (and /healthz, /readyz) on a port of their own, kept off
// the public API ports, and the only way to scrape a `printroute worker` process, which serves no API. Same
// trace context and error bodies as the API servers.
import Fastify from 'fastify'
import type { HealthService } from '../services/health.service.ts'
import { installErrorHandling, registerMethodNotAllowed } from './errors.ts'
import { type MetricsEndpoint, registerHealthRoutes, registerMetricsRoute } from './routes/operations.routes.ts'
import type { App } from './server.ts'
import { type ServerBaseOptions, serverBaseOptions } from './server-base.ts'
import { installTraceContext } from './trace-context.ts'

export interface MetricsServerOptions extends ServerBaseOptions {
  metrics: MetricsEndpoint
  health: HealthService
}

/** Built, not listening (or on the bound server given): the caller listens or opens it. */
export async function buildMetricsServer(options: MetricsServerOptions): Promise<App> {
  const app = Fastify({ ...serverBaseOptions(options), return503OnClosing: true })
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
