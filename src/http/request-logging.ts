// Request log lines: one info line per answered request, `GET /v4.0/orders/ord_1 200 3 ms`, with Fastify's usual
// fields (req, res, responseTime, and reqId = the trace id). Fastify's default is two lines per request
// ("incoming request", "request completed"), which at a terminal buries the pipeline's lines under polling
// requests; the incoming line is kept at debug level, for tracking down requests that never finish.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Answers below 400 are logged at debug: health probes and metric scrapes come every few seconds and would
     * drown everything else.
     */
    quietRequestLog?: boolean
  }
}

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime }
    // The URL in the message is redacted like every logged string (src/adapters/logger.ts).
    const message = `${request.method} ${request.url} ${reply.statusCode} ${Math.round(reply.elapsedTime)} ms`
    if (error) reply.log.error({ ...fields, err: error }, `${message}: the response failed`)
    else if (request.routeOptions.config.quietRequestLog && reply.statusCode < 400) reply.log.debug(fields, message)
    else reply.log.info(fields, message)
  }
}
