// Idempotent POSTs of the merchant API (docs/api.md#idempotent-requests). A POST with an Idempotency-Key claims
// the key once authenticated and before validation and work; its answer is stored as it is sent; a retry of the
// same request gets the stored answer with `Idempotent-Replayed: true`. Order creation keeps its own key space
// (its `idempotencyKey` field, kept forever): there the header is that field.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { addFailure, type Failures } from '../domain/failures.ts'
import { ServiceError, validationFailed } from '../domain/outcomes.ts'
import { auditActorOf } from '../services/accounts.service.ts'
import {
  type IdempotencyKeyOf,
  type IdempotencyService,
  idempotentRequestHash,
  idempotentRequestTarget,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../services/idempotency.service.ts'
import { API_VERSION_PREFIX, sendError } from './errors.ts'

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key'
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed'
/** The route whose key is the order's own `idempotencyKey` field. */
const CREATE_ORDER_ROUTE = `${API_VERSION_PREFIX}/orders`

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds, until its answer is stored. */
    idempotencyClaim: { of: IdempotencyKeyOf; claimToken: string } | null
  }
}

export type IdempotentAnswers = Pick<IdempotencyService, 'claim' | 'complete' | 'release'>

/** Registers the hooks; before the routes, so that they apply to every POST of the API. */
export function installIdempotency(app: FastifyInstance, answers: IdempotentAnswers): void {
  app.decorateRequest('idempotencyClaim', null)

  app.addHook('preValidation', async (request, reply) => {
    if (request.method !== 'POST' || !request.caller) return
    if (!request.routeOptions.url?.startsWith(`${API_VERSION_PREFIX}/`)) return
    const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()]
    if (key === undefined) return
    const keyText = Array.isArray(key) ? key.join(', ') : key
    if (keyText.length < 1 || keyText.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      return sendError(request, reply, refusedKey(keyText))
    }
    if (request.routeOptions.url === CREATE_ORDER_ROUTE) return useAsOrderKey(request, reply, keyText)

    const of = { accountId: request.caller.accountId, environment: request.caller.environment, key: keyText }
    const path = idempotentRequestTarget(request.routeOptions.url, request.params, request.query)
    const claim = await answers.claim(of, idempotentRequestHash(request.method, path, request.body), {
      actor: auditActorOf(request.caller),
      request: `${request.method} ${request.routeOptions.url}`,
    })
    switch (claim.kind) {
      case 'claimed':
        request.idempotencyClaim = { of, claimToken: claim.claimToken }
        return
      case 'replay':
        return reply
          .code(claim.answer.statusCode)
          .type(claim.answer.contentType)
          .header(IDEMPOTENT_REPLAYED_HEADER, 'true')
          .send(claim.answer.body)
      case 'mismatch':
        return sendError(
          request,
          reply,
          new ServiceError(
            'IdempotencyKeyReused',
            'This Idempotency-Key was used for a different request (method, path or body); use a new key',
            { idempotencyKey: keyText, reason: 'AnotherRequest' },
          ),
        )
      case 'otherApiKey':
        return sendError(
          request,
          reply,
          new ServiceError(
            'IdempotencyKeyReused',
            'This Idempotency-Key was used by another API key; its answer is given only to that key: use a new key',
            { idempotencyKey: keyText, reason: 'AnotherApiKey' },
          ),
        )
      case 'inFlight':
        return sendError(
          request,
          reply,
          new ServiceError(
            'IdempotencyKeyInUse',
            'A request with this Idempotency-Key is still being answered; retry in a moment',
            { idempotencyKey: keyText },
          ),
        )
    }
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim
    if (!claim) return payload
    request.idempotencyClaim = null
    try {
      // A server failure or a rate limit is not the request's answer: the retry should really run again.
      if (reply.statusCode >= 500 || reply.statusCode === 429 || typeof payload !== 'string') {
        await answers.release(claim.of, claim.claimToken)
      } else {
        const contentType = reply.getHeader('content-type')
        await answers.complete(claim.of, claim.claimToken, {
          statusCode: reply.statusCode,
          contentType: typeof contentType === 'string' ? contentType : 'application/json; charset=utf-8',
          body: payload,
        })
      }
    } catch (error) {
      // The answer still goes out; the claim is then abandoned and taken over by a retry after a while.
      request.log.warn({ err: error }, 'could not store the answer of an idempotent request')
    }
    return payload
  })
}

function refusedKey(keyText: string): ServiceError {
  const failures: Failures = {}
  addFailure(
    failures,
    IDEMPOTENCY_KEY_HEADER,
    keyText.length < 1
      ? { code: 'TooShort', providedValue: keyText, comparisonValue: 1 }
      : { code: 'TooLong', providedValue: keyText.length, comparisonValue: MAX_IDEMPOTENCY_KEY_LENGTH },
  )
  return validationFailed(failures, `The ${IDEMPOTENCY_KEY_HEADER} header is refused`)
}

/**
 * Create-order: the header is the order's `idempotencyKey` (one key space, kept forever with the order). A body
 * naming another key is refused rather than guessing which one the client meant.
 */
function useAsOrderKey(request: FastifyRequest, reply: FastifyReply, keyText: string): FastifyReply | undefined {
  const body = request.body
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const fields = body as Record<string, unknown>
  if (fields.idempotencyKey === undefined || fields.idempotencyKey === null) {
    fields.idempotencyKey = keyText
    return undefined
  }
  if (fields.idempotencyKey === keyText) return undefined
  const failures: Failures = {}
  addFailure(failures, IDEMPOTENCY_KEY_HEADER, {
    code: 'InvalidValue',
    providedValue: keyText,
    comparisonValue: fields.idempotencyKey,
  })
  return sendError(
    request,
    reply,
    validationFailed(failures, 'The Idempotency-Key header and the idempotencyKey field name different keys'),
  )
}
