// Ports are bound before anything is written: `serve` binds every port it needs first, so a port in use
// stops it with a clear message before the data directory or the database is touched. The bound server is
// handed to Fastify (its serverFactory) once the application is built; a request that arrives in between
// waits until the application is ready instead of meeting a half-registered router.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyServerOptions } from 'fastify'

export class PortUnavailableError extends Error {
  readonly port: number
  constructor(port: number, message: string) {
    super(message)
    this.port = port
  }
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

export interface BoundServer {
  server: Server
  /** `http://host:port` as bound (the real port when 0 was asked for). */
  address: string
  /** For Fastify's `serverFactory` option: Fastify's request handler goes live at `open()`. */
  serverFactory: NonNullable<FastifyServerOptions['serverFactory']>
  /** Starts answering requests (those that waited first). */
  open(): void
  /** Stops accepting connections; resolves when open ones have ended (idle keep-alive ones are closed). */
  close(): Promise<void>
}

function addressOf(server: Server): string {
  const info = server.address() as AddressInfo
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
  return `http://${host}:${info.port}`
}

/** Listens on host:port now; rejects with PortUnavailableError when the port is taken or not allowed. */
export async function bindServer(host: string, port: number): Promise<BoundServer> {
  let handler: Handler | null = null
  let opened = false
  const waiting: [IncomingMessage, ServerResponse][] = []
  const server = createServer((request, response) => {
    if (opened && handler) handler(request, response)
    else waiting.push([request, response])
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE'
          ? 'is already in use'
          : error.code === 'EACCES'
            ? 'needs privileges this process does not have'
            : error.code === 'EADDRNOTAVAIL'
              ? `is not available: ${host} is not an address of this machine`
              : `cannot be bound (${error.message})`
      reject(new PortUnavailableError(port, `port ${port} on ${host} ${reason}`))
    })
    server.listen({ host, port }, () => resolve())
  })
  return {
    server,
    address: addressOf(server),
    serverFactory(fastifyHandler, fastifyOptions) {
      handler = fastifyHandler as Handler
      const options = fastifyOptions as {
        keepAliveTimeout?: number
        requestTimeout?: number
        connectionTimeout?: number
      }
      // What Fastify sets on the servers it creates itself.
      if (options?.keepAliveTimeout) server.keepAliveTimeout = options.keepAliveTimeout
      if (options?.requestTimeout) server.requestTimeout = options.requestTimeout
      if (options?.connectionTimeout) server.setTimeout(options.connectionTimeout)
      return server
    },
    open() {
      opened = true
      if (!handler) throw new Error('open() before the application was built on this server')
      for (const [request, response] of waiting.splice(0)) handler(request, response)
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      })
    },
  }
}
