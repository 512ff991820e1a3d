// The one table of request outcomes (docs/wire-contract.md#enumerations and docs/wire-contract.md#errors): every error
// the service answers is a ServiceError with one of these outcomes, and the outcome alone decides the HTTP
// status. docs/errors.md documents each row.
import type { Failures } from './failures.ts'

export const ERROR_OUTCOME_STATUS = {
  ValidationFailed: 400,
  /** Not HTTP that can be read (Node's parser refused it): no field to name. */
  MalformedRequest: 400,
  Unauthorized: 401,
  /** printroute's own: the key is valid but its account is suspended by the operator. */
  Forbidden: 403,
  EntityNotFound: 404,
  EndpointDoesNotExist: 404,
  MethodNotAllowed: 405,
  /** printroute's own: the request holding this Idempotency-Key has not answered yet (docs/api.md#idempotent-requests). */
  IdempotencyKeyInUse: 409,
  /** printroute's own: this Idempotency-Key was used for a different request (method, path or body). */
  IdempotencyKeyReused: 422,
  /** The client did not send the whole request in time (Node's headers and request timeouts). */
  RequestTimeout: 408,
  /** A signed file link past its expiry. */
  LinkExpired: 410,
  PayloadTooLarge: 413,
  InvalidContentType: 415,
  /** printroute's own: the API key's (or, without a valid key, the address's) rate limit is used up (Retry-After). */
  TooManyRequests: 429,
  /** The request line and headers together are larger than Node's limit (16 KiB by default). */
  RequestHeadersTooLarge: 431,
  InternalServerError: 500,
  TimedOut: 500,
  /** The process is shutting down; retry (on another instance). */
  ServiceUnavailable: 503,
  /** printroute's own, for GET /readyz: a dependency of the process (database, job queue, blob store) fails. */
  NotReady: 503,
} as const
export type ErrorOutcome = keyof typeof ERROR_OUTCOME_STATUS

export class ServiceError extends Error {
  readonly outcome: ErrorOutcome
  readonly statusCode: number
  readonly data: Record<string, unknown>
  readonly failures: Failures | undefined

  constructor(outcome: ErrorOutcome, statusText: string, data: Record<string, unknown> = {}, failures?: Failures) {
    super(statusText)
    this.outcome = outcome
    this.statusCode = ERROR_OUTCOME_STATUS[outcome]
    this.data = data
    this.failures = failures
  }
}

export function validationFailed(
  failures: Failures,
  statusText = 'The request could not be validated',
  data: Record<string, unknown> = {},
): ServiceError {
  const count = Object.values(failures).reduce((sum, list) => sum + list.length, 0)
  const paths = Object.keys(failures)
  const where = paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`
  return new ServiceError(
    'ValidationFailed',
    `${statusText}: ${count} problem${count === 1 ? '' : 's'} (${where})`,
    data,
    failures,
  )
}
