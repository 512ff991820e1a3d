import type { Failures } from './types.ts'

export interface PrintrouteErrorDetails {
  outcome: string
  statusCode: number
  statusText?: string
  traceParent?: string
  failures?: Failures
  data?: Record<string, unknown>
  /** The answer's body: parsed JSON when it was JSON, else its text. */
  body?: unknown
  headers?: Headers
  cause?: unknown
}

/**
 * A request printroute refused or could not answer: the error body's `outcome` (`ValidationFailed`,
 * `EntityNotFound`, `TooManyRequests`, ...), the HTTP status, the `traceParent` to quote to support, and the
 * `failures` by field (empty unless `ValidationFailed`). Requests that got no answer at all throw the subclass
 * `PrintrouteConnectionError` (status 0).
 */
export class PrintrouteError extends Error {
  readonly outcome: string
  readonly statusCode: number
  readonly statusText: string
  readonly traceParent: string | undefined
  readonly failures: Failures
  readonly data: Record<string, unknown>
  readonly body: unknown
  readonly headers: Headers | undefined

  constructor(details: PrintrouteErrorDetails) {
    const statusText = details.statusText ?? ''
    const fields = Object.keys(details.failures ?? {})
    super(
      `${details.statusCode} ${details.outcome}${statusText ? `: ${statusText}` : ''}` +
        (fields.length > 0 && !statusText.includes(fields[0] ?? '') ? ` (${fields.join(', ')})` : ''),
      details.cause === undefined ? undefined : { cause: details.cause },
    )
    this.name = 'PrintrouteError'
    this.outcome = details.outcome
    this.statusCode = details.statusCode
    this.statusText = statusText
    this.traceParent = details.traceParent
    this.failures = details.failures ?? {}
    this.data = details.data ?? {}
    this.body = details.body
    this.headers = details.headers
  }
}

/**
 * No answer came: the connection failed, or no answer arrived within `timeoutMs` (outcome `ConnectionFailed` or
 * `ClientTimeout`, status 0; `cause` is the underlying error). Thrown after the retries the request allows.
 */
export class PrintrouteConnectionError extends PrintrouteError {
  constructor(outcome: 'ConnectionFailed' | 'ClientTimeout', message: string, cause: unknown) {
    super({ outcome, statusCode: 0, statusText: message, cause })
    this.name = 'PrintrouteConnectionError'
  }
}

/** A callback whose signature or timestamp does not verify (see `verifyCallback`). */
export class CallbackVerificationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CallbackVerificationError'
  }
}
