// Every error answer of the API, built in one place: the error handler maps Fastify's own errors and the
// services' ServiceErrors onto the contract's outcomes; the not-found handler distinguishes an unknown
// endpoint from a discontinued API version; unregistered methods on known paths answer 405.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type ErrorOutcome, ServiceError, validationFailed } from '../domain/outcomes.ts'
import { RequestValidationError } from './validation.ts'

export const API_VERSION_PREFIX = '/v4.0'
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export function errorBody(request: FastifyRequest, error: ServiceError) {
  return {
    outcome: error.outcome,
    statusText: error.message,
    statusCode: error.statusCode,
    ...(error.failures ? { failures: error.failures } : {}),
    data: error.data,
    traceParent: request.traceParent,
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(errorBody(request, error))
}

function formatLimit(milliseconds = 0): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} seconds` : `${milliseconds} ms`
}

export class MalformedJsonError extends Error {
  readonly code: 'MalformedJson' | 'TooDeeplyNested'

  constructor(message: string, code: 'MalformedJson' | 'TooDeeplyNested' = 'MalformedJson') {
    super(message)
    this.code = code
  }
}

function serviceErrorOf(error: FastifyError | Error, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError) return error
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
      return outcomeFor(
        'PayloadTooLarge',
        `The request body exceeds the limit of ${request.routeOptions.bodyLimit} bytes`,
        {
          maxBodyBytes: request.routeOptions.bodyLimit,
        },
      )
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

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    sendError(request, reply, serviceErrorOf(error, request))
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
