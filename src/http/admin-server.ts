// The server of `--admin-port`: the operator console (/admin/) on a port of its own, so that it can be bound to an
// address the public never reaches (docs/admin.md#keeping-the-console-private). The console's pages are handed in
// by the composition root (the HTTP layer does not know the dashboard); this server gives them what the Live
// server would: cookies, trace context, the error bodies outside the console, and the rate limit of failed
// sign-ins (counted against the address, as the dashboard's are).
import cookie from '@fastify/cookie'
import Fastify from 'fastify'
import { installErrorHandling } from './errors.ts'
import { installRateLimits, type RateLimitOptions, type RateLimits } from './rate-limit.ts'
import type { App } from './server.ts'
import { type ServerBaseOptions, serverBaseOptions } from './server-base.ts'
import { installTraceContext } from './trace-context.ts'

export interface AdminServerOptions extends ServerBaseOptions {
  /** The limit of requests without a valid key (here: failed sign-ins); none when absent or null. */
  rateLimit?: RateLimitOptions | null
  /** Registers the console's pages (under /admin/); `rateLimits` counts failed sign-ins. */
  register(server: App, rateLimits: RateLimits): Promise<void>
}

/** Built, not listening (or on the bound server given): the caller listens or opens it. */
export async function buildAdminServer(options: AdminServerOptions): Promise<App> {
  const app = Fastify({ ...serverBaseOptions(options), return503OnClosing: true })
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
