// One request to printroute, with retries: fetch only (no Node modules), so the client runs in Node >= 20, Deno,
// Bun and browsers alike.
import { PrintrouteConnectionError, PrintrouteError } from './errors.ts'
import type { Failures } from './types.ts'

export interface TransportOptions {
  apiKey: string
  baseUrl: string
  fetch?: typeof fetch
  maxRetries?: number
  timeoutMs?: number
  retryDelayMs?: number
  maxRetryDelayMs?: number
}

/** Per-call options every method takes as its last argument. */
export interface RequestOptions {
  /** Aborts the call (and its retries); the abort's reason is thrown as it is. */
  signal?: AbortSignal
  /** Overrides the client's `timeoutMs` for this call (each attempt). */
  timeoutMs?: number
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number
  /** A W3C `traceparent` to send: printroute keeps its trace id, so your trace and its logs line up. */
  traceParent?: string
  /**
   * The `Idempotency-Key` of a POST (1 to 255 characters). Without it, a POST that is retried gets a random one,
   * the same for all its attempts, so that a retry after a lost answer is answered as the first attempt was.
   */
  idempotencyKey?: string
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Below the version prefix: `/orders/ord_1`. */
  path: string
  query?: Record<string, unknown>
  /** undefined: no body. Sent as JSON, unless `rawBody` is given instead. */
  body?: unknown
  /** A body sent as it is, with its content type (a photo, a CSV file), instead of JSON. */
  rawBody?: { data: Uint8Array | string; contentType: string }
  /** What the 200 answer is: printroute's JSON (the default), or text (a CSV file) returned as a string. */
  answer?: 'json' | 'text'
  /** Whether sending the request twice is harmless (see docs/sdk.md, "Retries"). */
  retryable: boolean
  /** The call carries its idempotency key in its body (create order): no Idempotency-Key header is made. */
  keyInBody?: boolean
  options?: RequestOptions | undefined
}

export const DEFAULT_MAX_RETRIES = 2
export const DEFAULT_TIMEOUT_MS = 65_000 // the server gives up on a request at 60 s; leave it room to say so
export const DEFAULT_RETRY_DELAY_MS = 500
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000

const API_VERSION = '/v4.0'

/**
 * The API's base address, ending in `/v4.0`: accepts the server's address with or without it
 * (`http://127.0.0.1:8081` and `http://127.0.0.1:8081/v4.0/` are the same).
 */
export function apiBaseUrl(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`)
  }
  if (url.search || url.hash) throw new TypeError('baseUrl must not have a query or a fragment')
  const path = url.pathname.replace(/\/+$/, '')
  const versioned = path.toLowerCase().endsWith(API_VERSION) ? path : `${path}${API_VERSION}`
  return `${url.origin}${versioned}`
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

export class Transport {
  readonly baseUrl: string
  private readonly apiKey: string
  private readonly fetch: typeof fetch
  private readonly maxRetries: number
  private readonly timeoutMs: number
  private readonly retryDelayMs: number
  private readonly maxRetryDelayMs: number

  constructor(options: TransportOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required')
    this.apiKey = options.apiKey
    this.baseUrl = apiBaseUrl(options.baseUrl)
    // Bound to globalThis: some browsers refuse fetch called as a method of another object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.retryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS
  }

  /** The URL of a call: the base address, the path, and the query (arrays as repeated parameters). */
  url(path: string, query: Record<string, unknown> = {}): string {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue
      for (const one of Array.isArray(value) ? value : [value]) params.append(name, String(one))
    }
    const search = params.toString()
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`
  }

  async request<T>(call: Call): Promise<T> {
    const maxRetries = call.retryable ? (call.options?.maxRetries ?? this.maxRetries) : 0
    // One key for every attempt of the call: the server answers a retry with the first attempt's answer.
    const idempotencyKey =
      call.method !== 'POST' || call.keyInBody
        ? undefined
        : (call.options?.idempotencyKey ?? (maxRetries > 0 ? globalThis.crypto.randomUUID() : undefined))
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(call, idempotencyKey)
      if (outcome.kind === 'ok') return outcome.body as T
      const retriesLeft = attempt < maxRetries
      const delay =
        outcome.kind === 'refused' ? retryAfterMs(outcome.error.headers?.get('retry-after') ?? null) : undefined
      const wait = delay ?? this.backoffMs(attempt)
      const worthRetrying =
        outcome.kind === 'unanswered' ||
        isRetryableStatus(outcome.error.statusCode) ||
        // An earlier attempt (whose answer was lost) is still being answered: its answer comes to a later retry.
        (idempotencyKey !== undefined && outcome.error.outcome === 'IdempotencyKeyInUse')
      if (!retriesLeft || !worthRetrying || wait > this.maxRetryDelayMs) throw outcome.error
      await sleep(wait, call.options?.signal)
    }
  }

  /** Exponential backoff with jitter: half fixed, half random, so clients that failed together spread out. */
  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** attempt)
    return ceiling / 2 + Math.random() * (ceiling / 2)
  }

  private async attempt(
    call: Call,
    idempotencyKey: string | undefined,
  ): Promise<
    | { kind: 'ok'; body: unknown }
    | { kind: 'refused'; error: PrintrouteError }
    | { kind: 'unanswered'; error: PrintrouteConnectionError }
  > {
    const userSignal = call.options?.signal
    userSignal?.throwIfAborted()
    // One controller for the caller's signal and the timeout (AbortSignal.any is newer than Node 20.0).
    const controller = new AbortController()
    const timeoutMs = call.options?.timeoutMs ?? this.timeoutMs
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const onAbort = () => controller.abort(userSignal?.reason)
    userSignal?.addEventListener('abort', onAbort, { once: true })
    const headers: Record<string, string> = {
      'x-api-key': this.apiKey,
      // A text answer still comes as JSON when it is a refusal, so both are accepted.
      accept: call.answer === 'text' ? 'text/csv, application/json' : 'application/json',
    }
    if (call.rawBody !== undefined) headers['content-type'] = call.rawBody.contentType
    else if (call.body !== undefined) headers['content-type'] = 'application/json'
    if (call.options?.traceParent) headers.traceparent = call.options.traceParent
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    try {
      const response = await this.fetch(this.url(call.path, call.query), {
        method: call.method,
        headers,
        body: requestBody(call),
        signal: controller.signal,
      })
      const text = await response.text()
      if (response.ok && call.answer === 'text') return { kind: 'ok', body: text }
      const body = parseJson(text)
      if (response.ok) {
        if (body === undefined || typeof body !== 'object' || body === null) {
          return { kind: 'refused', error: unexpectedAnswer(response, text) }
        }
        return { kind: 'ok', body }
      }
      return { kind: 'refused', error: errorFromAnswer(response, body, text) }
    } catch (error) {
      if (userSignal?.aborted) throw userSignal.reason
      const message = timedOut
        ? `no answer from ${this.baseUrl} within ${timeoutMs} ms`
        : `could not reach ${this.baseUrl}: ${error instanceof Error ? error.message : String(error)}`
      return {
        kind: 'unanswered',
        error: new PrintrouteConnectionError(timedOut ? 'ClientTimeout' : 'ConnectionFailed', message, error),
      }
    } finally {
      clearTimeout(timer)
      userSignal?.removeEventListener('abort', onAbort)
    }
  }
}

function requestBody(call: Call): RequestInit['body'] {
  // Uint8Array is a valid body for fetch everywhere; the cast only bridges DOM and Node typings of BufferSource.
  if (call.rawBody !== undefined) return call.rawBody.data as RequestInit['body']
  return call.body === undefined ? null : JSON.stringify(call.body)
}

/** Too many requests, or a server-side failure that may pass (5xx). */
function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500
}

function parseJson(text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function errorFromAnswer(response: Response, body: unknown, text: string): PrintrouteError {
  if (typeof body !== 'object' || body === null || typeof (body as { outcome?: unknown }).outcome !== 'string') {
    return unexpectedAnswer(response, text)
  }
  const fields = body as {
    outcome: string
    statusText?: unknown
    traceParent?: unknown
    failures?: unknown
    data?: unknown
  }
  return new PrintrouteError({
    outcome: fields.outcome,
    statusCode: response.status,
    statusText: typeof fields.statusText === 'string' ? fields.statusText : response.statusText,
    traceParent: typeof fields.traceParent === 'string' ? fields.traceParent : traceParentOf(response),
    failures: isObject(fields.failures) ? (fields.failures as Failures) : {},
    data: isObject(fields.data) ? (fields.data as Record<string, unknown>) : {},
    body,
    headers: response.headers,
  })
}

/** An answer that is not printroute's JSON (a proxy's HTML error page, an empty body). */
function unexpectedAnswer(response: Response, text: string): PrintrouteError {
  return new PrintrouteError({
    outcome: 'UnexpectedResponse',
    statusCode: response.status,
    statusText: `HTTP ${response.status} with a body that is not printroute's JSON: ${text.slice(0, 200)}`,
    traceParent: traceParentOf(response),
    body: text,
    headers: response.headers,
  })
}

function traceParentOf(response: Response): string | undefined {
  return response.headers.get('traceparent') ?? undefined
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
