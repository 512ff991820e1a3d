// Every error answer of the API, built in one place: the error handler maps Fastify's own errors and the
// services' ServiceErrors onto the contract's outcomes; the not-found handler distinguishes an unknown
// endpoint from a discontinued API version; unregistered methods on known paths answer 405. Requests that
// never reach a route get the same body here too: a path Fastify's router cannot decode (frameworkErrors)
// and whatever Node's HTTP parser refuses before Fastify sees a request (clientError).
import { type IncomingMessage, maxHeaderSize, ServerResponse, STATUS_CODES } from 'node:http'
import { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import { addFailure, type Failures, hasFailures } from '../domain/failures.ts'
import { type ErrorOutcome, ServiceError, validationFailed } from '../domain/outcomes.ts'
import { newTraceparent, traceparentFor } from '../domain/traceparent.ts'
import { RequestValidationError } from './validation.ts'

export const API_VERSION_PREFIX = '/v4.0'
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * How much of a refused request's unread body is still read (and thrown away), and for how long, so that a
 * client still sending can read the answer before the connection closes (docs/errors.md).
 */
export const DRAIN_LIMITS = { bytes: 8 * 1_048_576, milliseconds: 5_000 } as const

/**
 * Gives a request no hook has seen (a path the router could not decode) its traceparent and the header: the
 * trace id is the request id (http/trace-context.ts: the caller's trace id when it sent a valid one).
 */
export function startTrace(request: FastifyRequest, reply: FastifyReply): void {
  request.traceParent = traceparentFor(request.id)
  reply.header('traceparent', request.traceParent)
}

/** The contract's error body, keys in its order. */
export function errorBody(traceParent: string, error: ServiceError) {
  return {
    outcome: error.outcome,
    statusText: error.message,
    statusCode: error.statusCode,
    ...(error.failures ? { failures: error.failures } : {}),
    data: error.data,
    traceParent,
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  drainUnreadBody(request.raw)
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(errorBody(request.traceParent, error))
}

// Sockets whose request was answered before its body arrived and that close once it has: whatever else still
// comes (more bytes than the Content-Length said) is thrown away unanswered.
const drainingSockets = new WeakSet<Socket>()

/**
 * An error answered before the request's body has arrived (413 at the limit, 415, 401 on a POST): the client
 * is still sending. Node closes a `Connection: close` answer (Fastify sets it on body errors) at once with
 * `socket.destroySoon()`, and a socket closed with unread data makes the kernel reset the connection, which
 * can reach the client before it has read the answer (Node's fetch then fails with ECONNRESET or EPIPE). So
 * the rest of the body is read and thrown away, up to DRAIN_LIMITS, and the close waits until then; past the
 * limits the connection is cut. Without `Connection: close` the connection simply goes on once the body is read.
 */
function drainUnreadBody(raw: IncomingMessage, limits: { bytes: number; milliseconds: number } = DRAIN_LIMITS): void {
  // `complete` is false until the whole body is read; inject's requests have no real socket and no body to wait for.
  const socket = raw.socket as Socket | null
  if (raw.complete !== false || raw.destroyed || !(socket instanceof Socket) || Object.hasOwn(socket, 'destroySoon'))
    return
  let drained = 0
  let closeWanted = false
  const stop = () => {
    clearTimeout(timer)
    raw.off('data', count)
    raw.off('end', finished)
    raw.off('error', cut)
    // The socket's own destroySoon again (from its prototype), and the close Node asked for, now.
    Reflect.deleteProperty(socket, 'destroySoon')
  }
  const finished = () => {
    stop()
    if (closeWanted) socket.destroySoon()
    else drainingSockets.delete(socket)
  }
  const cut = () => {
    stop()
    socket.destroy()
  }
  const count = (chunk: Buffer) => {
    drained += chunk.length
    if (drained > limits.bytes) cut()
  }
  socket.destroySoon = () => {
    closeWanted = true
  }
  drainingSockets.add(socket)
  const timer = setTimeout(cut, limits.milliseconds)
  timer.unref()
  raw.on('data', count)
  raw.once('end', finished)
  raw.once('error', cut)
  raw.resume()
}

function formatLimit(milliseconds = 0): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} seconds` : `${milliseconds} ms`
}

function payloadTooLarge(request: FastifyRequest): ServiceError {
  const limit = request.routeOptions.bodyLimit ?? request.server.initialConfig.bodyLimit
  return new ServiceError('PayloadTooLarge', `The request body exceeds the limit of ${limit} bytes`, {
    maxBodyBytes: limit,
  })
}

/**
 * A body over the limit is refused whatever the method. The content parser refuses it only for the methods it
 * parses (POST, PUT, PATCH); a GET, HEAD or DELETE with a large body was answered while the body still came,
 * and the connection ended under the client.
 */
export function refuseOversizedBodies(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const declared = Number(request.headers['content-length'] ?? 0)
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0
    if (declared <= limit) return
    // As Fastify's own 413: the body that follows is read and dropped, then the connection closes.
    reply.header('connection', 'close')
    throw payloadTooLarge(request)
  })
}

/** The methods whose body Fastify never reads (its "bodyless" methods): a body sent with one is ignored. */
const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD', 'TRACE'])

/**
 * A GET, HEAD or TRACE takes no body (the contract gives none), yet some clients send one. Fastify does not read
 * it, so the answer went out while the body was still arriving; on a connection that then closes (the client's
 * `Connection: close`, HTTP/1.0) the socket closed with unread bytes, and the kernel's reset cut the answer short
 * under the client. Such a body is read to its end and thrown away before the request goes on, so the answer is
 * always whole and the connection stays usable; its size counts against the body limit (413, as any body).
 * Register after `refuseOversizedBodies`, which refuses a declared length over the limit without waiting.
 */
export function readIgnoredBodies(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!METHODS_WITHOUT_BODY.has(request.method)) return
    const raw = request.raw
    const declared = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0
    if (!declared || raw.complete || raw.readableEnded) return
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0
    const whole = await new Promise<boolean>((resolve) => {
      let received = 0
      const done = (result: boolean) => {
        raw.off('data', count)
        raw.off('end', ended)
        raw.off('close', ended)
        resolve(result)
      }
      const ended = () => done(true)
      const count = (chunk: Buffer) => {
        received += chunk.length
        if (received > limit) done(false)
      }
      raw.on('data', count)
      raw.once('end', ended)
      // A client gone before its body ended: nothing is answered to anyone, the request just ends.
      raw.once('close', ended)
      raw.resume()
    })
    if (!whole) {
      // A chunked body going past the limit: its 413, the rest drained as for any body answered early.
      reply.header('connection', 'close')
      throw payloadTooLarge(request)
    }
  })
}

/**
 * CONNECT asks for a tunnel, which printroute never opens; Node hands such requests to a `connect` listener
 * and, without one, closes the connection unanswered. They are routed like any request instead, and so get the
 * error body of a method no route allows.
 */
export function answerConnectRequests(app: FastifyInstance): void {
  app.server.on('connect', (raw: IncomingMessage, socket: Socket) => {
    const response = new ServerResponse(raw)
    response.shouldKeepAlive = false
    response.assignSocket(socket)
    response.once('finish', () => {
      response.detachSocket(socket)
      socket.end()
    })
    app.routing(raw, response)
  })
}

export class MalformedJsonError extends Error {
  readonly code: 'MalformedJson' | 'TooDeeplyNested'

  constructor(message: string, code: 'MalformedJson' | 'TooDeeplyNested' = 'MalformedJson') {
    super(message)
    this.code = code
  }
}

/**
 * The answer while the database cannot be reached: 503 with Retry-After, not a 500. The process's outage log has
 * said so once already (adapters/database-outage-log.ts); each request adds only its own request line.
 */
export function databaseUnavailableAnswer(reply: FastifyReply): ServiceError {
  reply.header('retry-after', DATABASE_RETRY_AFTER_SECONDS)
  return new ServiceError(
    'ServiceUnavailable',
    `The database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} seconds`,
    { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
  )
}

function serviceErrorOf(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): ServiceError {
  if (error instanceof ServiceError) return error
  if (error instanceof DatabaseUnavailableError) return databaseUnavailableAnswer(reply)
  if (error instanceof RequestValidationError) return validationFailed(error.failures)
  if (error instanceof MalformedJsonError) {
    return validationFailed(
      { body: [{ code: error.code, providedValue: null }] },
      error.code === 'MalformedJson'
        ? `The body is not valid JSON (${error.message})`
        : `The body is refused: ${error.message}`,
    )
  }
  const code = (error as FastifyError).code
  const outcomeFor = (outcome: ErrorOutcome, text: string, data: Record<string, unknown> = {}) =>
    new ServiceError(outcome, text, data)
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return outcomeFor(
        'InvalidContentType',
        `A request body must be sent as application/json (got ${request.headers['content-type'] ?? 'no Content-Type'})`,
      )
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(request)
    case 'FST_ERR_HANDLER_TIMEOUT':
      return outcomeFor(
        'TimedOut',
        `The request was not processed within ${formatLimit(request.routeOptions.handlerTimeout)} and was aborted`,
      )
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return outcomeFor('ValidationFailed', 'The Content-Length header does not match the body')
  }
  const status = (error as FastifyError).statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return outcomeFor('ValidationFailed', error.message)
  }
  request.log.error({ err: error }, 'unexpected error')
  return outcomeFor('InternalServerError', 'An unexpected error occurred; quote the traceParent to support')
}

/** A path whose percent-escapes are not UTF-8 (`%FF`, a bare `%`): the route's parameter that holds it, named. */
function undecodablePathFailures(request: FastifyRequest, path: string): Failures {
  const decodes = (text: string) => {
    try {
      decodeURIComponent(text)
      return true
    } catch {
      return false
    }
  }
  const failure = (providedValue: string) => ({
    code: 'InvalidFormat' as const,
    providedValue,
    comparisonValue: 'percent-encoded UTF-8',
  })
  // Every escape read literally (`%` as `%25`), the router finds the route and hands back the raw parameter.
  const route = request.server.findRoute({ method: request.method, url: path.replaceAll('%', '%25') })
  const failures: Failures = {}
  for (const [name, value] of Object.entries((route?.params ?? {}) as Record<string, unknown>)) {
    // The wildcard of /files/* has no name of its own: it is the path.
    if (typeof value === 'string' && !decodes(value)) addFailure(failures, name === '*' ? 'path' : name, failure(value))
  }
  if (!hasFailures(failures)) addFailure(failures, 'path', failure(path))
  return failures
}

/**
 * Fastify's `frameworkErrors`: the router could not take the path apart (FST_ERR_BAD_URL: a percent-escape
 * that is not UTF-8; FST_ERR_MAX_PARAM_LENGTH: a path parameter past the router's limit). No hook has run.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  startTrace(request, reply)
  const path = (request.url ?? '').split('?')[0] ?? ''
  let answer: ServiceError
  if (error.code === 'FST_ERR_BAD_URL') {
    answer = validationFailed(undecodablePathFailures(request, path), 'The path cannot be decoded')
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const limit = request.server.initialConfig.routerOptions?.maxParamLength ?? null
    answer = validationFailed({ path: [{ code: 'TooLong', providedValue: path, comparisonValue: limit }] })
  } else {
    answer = new ServiceError('MalformedRequest', `The request cannot be routed (${error.message})`)
  }
  sendError(request, reply, answer)
}

function clientErrorOf(error: Error & { code?: string }, maxHeaderBytes: number): ServiceError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ServiceError(
        'RequestHeadersTooLarge',
        `The request line and headers together exceed ${maxHeaderBytes} bytes (a URL that long is refused too)`,
        { maxHeaderBytes },
      )
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ServiceError('RequestTimeout', 'The request was not received completely in time')
    default:
      return new ServiceError('MalformedRequest', `The request is not valid HTTP/1.1 (${error.message})`, {
        reason: error.code ?? null,
      })
  }
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused what arrived on the socket (headers or URL too
 * large, a malformed request line or header, a request not received in time). There is no request to route,
 * so the answer is written on the socket, with the same body and a fresh traceparent.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // Bytes past a refused body (more than its Content-Length said): the client has its answer already.
  if (error.code === 'ECONNRESET' || socket.destroyed || drainingSockets.has(socket)) return
  const traceParent = newTraceparent()
  // The server's own limit when one was set, else Node's (16 KiB unless --max-http-header-size says otherwise).
  const serverLimit = (this.server as { maxHeaderSize?: number }).maxHeaderSize
  const answer = clientErrorOf(error, serverLimit ?? maxHeaderSize)
  this.log.debug({ err: error, traceParent }, 'refused a request the HTTP parser could not read')
  if (socket.writable) {
    const body = JSON.stringify(errorBody(traceParent, answer))
    socket.end(
      `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `traceparent: ${traceParent}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  // Closed by the client once it has read the answer; destroying it now could reset the connection while the
  // client still sends (a long URL arrives in pieces) and lose the answer. At the latest after the drain time.
  const timer = setTimeout(() => socket.destroy(), DRAIN_LIMITS.milliseconds)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    sendError(request, reply, serviceErrorOf(error, request, reply))
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const version = /^\/v(\d+(?:\.\d+)?)(?:\/|$)/i.exec(path)
    if (version && `/v${version[1]}`.toLowerCase() !== API_VERSION_PREFIX) {
      return sendError(
        request,
        reply,
        new ServiceError(
          'EndpointDoesNotExist',
          `API version ${version[1]} is discontinued and no longer available; use ${API_VERSION_PREFIX}`,
        ),
      )
    }
    return sendError(
      request,
      reply,
      new ServiceError('EndpointDoesNotExist', `There is no endpoint ${request.method} ${path}`),
    )
  })
}

/**
 * Fastify answers 404 for a known path with an unregistered method; the contract wants 405. Call once after
 * every route is registered: each path gets the missing methods, answering MethodNotAllowed.
 */
export function registerMethodNotAllowed(app: FastifyInstance, routes: { url: string; methods: string[] }[]): void {
  const methodsByUrl = new Map<string, Set<string>>()
  for (const route of routes) {
    const methods = methodsByUrl.get(route.url) ?? new Set<string>()
    for (const method of route.methods) methods.add(method)
    methodsByUrl.set(route.url, methods)
  }
  for (const [url, methods] of methodsByUrl) {
    const missing = HTTP_METHODS.filter((method) => !methods.has(method))
    if (missing.length === 0) continue
    const allowed = [...methods].filter((method) => method !== 'HEAD').join(', ')
    app.route({
      method: missing,
      url,
      schema: { hide: true },
      config: { auth: false },
      handler: (request, reply) => {
        reply.header('allow', allowed)
        return sendError(
          request,
          reply,
          new ServiceError('MethodNotAllowed', `${request.method} is not allowed here; allowed: ${allowed}`),
        )
      },
    })
  }
}
