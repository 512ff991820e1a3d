// Trace context of a request, set up once for every server: the request id Fastify logs (`reqId`) is the trace
// id of the traceparent the response carries, so a merchant quoting "traceParent 00-<trace id>-..." finds the
// request's log lines. While the handler runs, the trace id is also kept in an AsyncLocalStorage, so the lines
// services log deep below a request (a lab report, a cancellation) carry it without every function passing it on.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { requestTraceId, traceparentFor } from '../domain/traceparent.ts'
import type { ServiceLogger } from '../services/observability.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The response's traceparent: the request's trace id (= `request.id`) and a fresh span id. */
    traceParent: string
  }
}

const requestTrace = new AsyncLocalStorage<string>()

/** Fastify's `genReqId`: the trace id of the incoming traceparent header when valid, else a new one. */
export function traceIdOfRequest(raw: IncomingMessage): string {
  const header = raw.headers.traceparent
  return requestTraceId(typeof header === 'string' ? header : undefined)
}

/**
 * Gives every request its traceparent (and the response its `traceparent` header) before any other hook, and
 * runs each handler with its trace id in reach of `currentRequestTraceId`. The server must be built with
 * `genReqId: traceIdOfRequest`.
 */
export function installTraceContext(app: FastifyInstance): void {
  app.decorateRequest('traceParent', '')
  app.addHook('onRequest', (request, reply, done) => {
    request.traceParent = traceparentFor(request.id)
    reply.header('traceparent', request.traceParent)
    done()
  })
  // After body parsing (whose stream events run outside any context this could set earlier), so the handler
  // and everything it awaits see the trace id.
  app.addHook('preHandler', (request, _reply, done) => requestTrace.run(request.id, done))
}

/** The trace id of the request being handled, if any. */
export function currentRequestTraceId(): string | undefined {
  return requestTrace.getStore()
}

/**
 * A service logger whose lines carry `traceId` of the request being handled; outside a request (background
 * jobs) the `traceId` the service gave, if any, is kept.
 */
export function withRequestTraceId(logger: ServiceLogger): ServiceLogger {
  const fieldsWithTrace = (fields: Record<string, unknown>) => {
    const traceId = requestTrace.getStore()
    return traceId === undefined ? fields : { ...fields, traceId }
  }
  return {
    info: (fields, message) => logger.info(fieldsWithTrace(fields), message),
    warn: (fields, message) => logger.warn(fieldsWithTrace(fields), message),
    error: (fields, message) => logger.error(fieldsWithTrace(fields), message),
  }
}
