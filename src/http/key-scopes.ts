// Scoped API keys (docs/api.md#api-keys): every API route names the one scope it needs in its route config
// (`config: { scope: 'orders:read' }`), and a request whose key (or the key its dashboard session was made
// from) lacks that scope is refused 403 Forbidden naming it. Keys without scopes may do everything.
import type { FastifyInstance } from 'fastify'
import { type KeyScope, keyAllows, scopeRefusedMessage } from '../domain/key-scopes.ts'
import { ServiceError } from '../domain/outcomes.ts'
import { sendError } from './errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a key needs for this route; every authenticated route under the API prefix names one. */
    scope?: KeyScope
  }
}

/** A route as registered: what the scope check knows of it (tests enumerate them). */
export interface RouteScope {
  method: string
  url: string
  /** false: open without a key (the OpenAPI document, 405 answers), so it needs no scope. */
  auth: boolean
  scope: KeyScope | undefined
}

const routeScopesOfServer = new WeakMap<FastifyInstance, RouteScope[]>()

/** Every route the server registered with its declared scope, in registration order. */
export function routeScopesOf(app: FastifyInstance): readonly RouteScope[] {
  return routeScopesOfServer.get(app) ?? []
}

/**
 * Records each route's scope as it is registered and, after the key check (register this after the hook that
 * sets `request.caller`), refuses requests outside the caller's scopes. An API route under `apiPrefix` that
 * needs a key but names no scope fails the server's start: no route is left open to every scoped key by mistake.
 */
export function installKeyScopes(app: FastifyInstance, apiPrefix: string): void {
  const routes: RouteScope[] = []
  routeScopesOfServer.set(app, routes)
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { auth?: boolean; scope?: KeyScope }
    const auth = config.auth !== false
    for (const method of ([] as string[]).concat(route.method)) {
      routes.push({ method, url: route.url, auth, scope: config.scope })
    }
    if (auth && config.scope === undefined && route.url.startsWith(`${apiPrefix}/`)) {
      throw new Error(`The API route ${route.url} declares no key scope (config.scope)`)
    }
  })
  app.addHook('onRequest', async (request, reply) => {
    const needed = request.routeOptions.config.scope
    if (needed === undefined || request.is404) return
    const caller = request.caller
    if (!caller || keyAllows(caller.scopes, needed)) return
    return sendError(
      request,
      reply,
      new ServiceError('Forbidden', scopeRefusedMessage(caller.keyPrefix, needed), { scope: needed }),
    )
  })
}
