// The server of `--admin-port`: the operator console (/admin/) on a port of its own, so that it can be bound to an
// address the public never reaches (docs/admin.md#keeping-the-console-private). The console's pages are handed in
// by the composition root (the HTTP layer does not know the dashboard); this server gives them what the Live
// server would: cookies, trace context, the error bodies outside the console, and the rate limit of failed
// sign-ins (counted against the address, as the dashboard's are).
import cookie from '@fastify/cookie'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import type { BoundServer } from './bound-server.ts'
import { installErrorHandling } from './errors.ts'
import { installRateLimits, type RateLimitOptions, type RateLimits } from './rate-limit.ts'
import { RequestLogController } from './request-logging.ts'
import type { App } from './server.ts'
import { installTraceContext, traceIdOfRequest } from './trace-context.ts'

export interface AdminServerOptions {
  logger: FastifyBaseLogger | boolean
  /** The limit of requests without a valid key (here: failed sign-ins); none when absent or null. */
  rateLimit?: RateLimitOptions | null
  /** A port bound before the application was built (`serve`); absent, the caller listens. */
  boundServer?: BoundServer
  /** Registers the console's pages (under /admin/); `rateLimits` counts failed sign-ins. */
  register(server: App, rateLimits: RateLimits): Promise<void>
}

/** Built, not listening (or on the bound server given): the caller listens or opens it. */
export async function buildAdminServer(options: AdminServerOptions): Promise<App> {
  const app = Fastify({
    ...(typeof options.logger === 'boolean' ? { logger: options.logger } : { loggerInstance: options.logger }),
    genReqId: traceIdOfRequest,
    logController: new RequestLogController(),
    return503OnClosing: true,
    ...(options.boundServer ? { serverFactory: options.boundServer.serverFactory } : {}),
  })
  await app.register(cookie)
  installTraceContext(app)
  installErrorHandling(app)
  // Counted like the Live server's requests without a valid key: the console is the Live side of printroute.
  const rateLimits = await installRateLimits(app, 'live', options.rateLimit)
  await options.register(app, rateLimits)
  app.get('/', (_request, reply) => reply.redirect('/admin/'))
  await app.ready()
  return app
}
