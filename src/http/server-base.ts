// The Fastify options every printroute HTTP server is built with (the API servers of http/server.ts, the console's
// own port of admin-server.ts, the metrics port of metrics-server.ts), so that their log lines and request ids are
// alike: the logger handed in, each request's id the trace id of its traceparent, the request log lines of
// request-logging.ts, and a port bound before the application was built.
import type { FastifyBaseLogger } from 'fastify'
import type { BoundServer } from './bound-server.ts'
import { RequestLogController } from './request-logging.ts'
import { traceIdOfRequest } from './trace-context.ts'

export interface ServerBaseOptions {
  logger: FastifyBaseLogger | boolean
  /** A port bound before the application was built (`serve`, `worker`); absent, the caller listens or injects. */
  boundServer?: BoundServer
}

/** The options each server spreads into its `Fastify({...})`, beside those of its own. */
export function serverBaseOptions(options: ServerBaseOptions) {
  return {
    ...(typeof options.logger === 'boolean' ? { logger: options.logger } : { loggerInstance: options.logger }),
    ...(options.boundServer ? { serverFactory: options.boundServer.serverFactory } : {}),
    // The request id in every request log line is the trace id of the response's traceparent.
    genReqId: traceIdOfRequest,
    logController: new RequestLogController(),
  }
}
