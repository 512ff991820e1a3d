// The envelope of every successful answer, `{outcome, ..., traceParent}` (http/schemas/common.schema.ts,
// outcomeResponse, describes it): as an object for the route's serializer, or as JSON text around JSON the
// services already hold in the contract's key order (orders and events are stored as they are served, so the hot
// read paths never re-serialise them).
import type { FastifyReply } from 'fastify'

export const JSON_TYPE = 'application/json; charset=utf-8'

/** The answer `{outcome, ...fields, traceParent}`, for the route's response schema to serialise. */
export function outcomeReply<const O extends string, F extends object>(
  request: { traceParent: string },
  outcome: O,
  fields: F,
): { outcome: O } & F & { traceParent: string } {
  return { outcome, ...fields, traceParent: request.traceParent }
}

/**
 * Sends `{"outcome":…,"<name>":<json>,…,"traceParent":…}` built from JSON texts, in the order given (the
 * response schema's order). The schema still describes the body, for the OpenAPI document.
 */
export function sendOutcomeJson(
  reply: FastifyReply,
  request: { traceParent: string },
  outcome: string,
  fieldsJson: readonly (readonly [name: string, json: string])[],
): FastifyReply {
  const fields = fieldsJson.map(([name, json]) => `,"${name}":${json}`).join('')
  return reply
    .type(JSON_TYPE)
    .send(`{"outcome":${JSON.stringify(outcome)}${fields},"traceParent":"${request.traceParent}"}` as never)
}
