// The base URL of the environment a server answers for (`--public-url`, `--sandbox-public-url`, or the
// listening address): every absolute URL in an answer starts with it. Never the request's Host header, which
// any client can leave empty, garble or forge (a forged host in `nextUrl` would send a client's next request,
// with its key, to another server).
import type { FastifyInstance, FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** This environment's public base URL, without a trailing slash. */
    publicUrl(): string
  }
}

export function decoratePublicUrl(app: FastifyInstance, publicUrl: () => string): void {
  app.decorate('publicUrl', publicUrl)
}

/** The absolute URL of `path` (starting with `/`) on the public address of the request's environment. */
export function publicUrlOf(request: FastifyRequest, path: string): string {
  return `${request.server.publicUrl()}${path}`
}

/** The path and query of a request target, read without its Host (a target may be `//other/...`). */
export function requestTarget(request: FastifyRequest): URL {
  return new URL(`http://target.invalid${request.url.startsWith('/') ? '' : '/'}${request.url}`)
}
