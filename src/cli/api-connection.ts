// The commands that are HTTP clients of a running printroute (`listen`, `orders watch`, `orders advance`), not of
// its database:
// they reach any printroute by its base URL with an API key, as a merchant's own code would. The key and the
// URL may come from the environment (PRINTROUTE_API_KEY, PRINTROUTE_BASE_URL), so the key need not be typed
// where the shell keeps its history.
import { type Command, Option } from 'commander'
import { parseDurationMilliseconds } from '../domain/duration.ts'
import { UsageError } from './command-support.ts'
import { OperationError } from './operation-error.ts'

export const API_KEY_ENV = 'PRINTROUTE_API_KEY'
export const BASE_URL_ENV = 'PRINTROUTE_BASE_URL'
/** How long one API request may take before the command treats it as failed. */
export const API_REQUEST_TIMEOUT_MS = 30_000

export interface ApiConnectionOptions {
  apiKey: string
  /** Without a trailing slash or `/v4.0`: `http://127.0.0.1:3000`. */
  baseUrl: string
}

/** A refusal from the API: its HTTP status and the contract's error body when there is one. */
export class ApiRequestError extends OperationError {
  readonly status: number
  readonly body: Record<string, unknown> | null

  constructor(status: number, body: Record<string, unknown> | null, path: string, method = 'GET') {
    const said = typeof body?.statusText === 'string' ? body.statusText : `HTTP ${status}`
    super(`${method} ${path}: ${said}`, status === 401 ? 2 : 1)
    this.status = status
    this.body = body
  }
}

/**
 * Adds --api-key and --base-url (their defaults read from the environment), and --poll-interval for commands
 * that follow events (`pollDefault`).
 */
export function addConnectionOptions(command: Command, pollDefault?: string): Command {
  command
    .addOption(new Option('--api-key <KEY>', 'a Sandbox or Live API key').env(API_KEY_ENV))
    .addOption(
      new Option('--base-url <URL>', "the printroute server of the key's environment, e.g. http://127.0.0.1:3001").env(
        BASE_URL_ENV,
      ),
    )
  if (pollDefault === undefined) return command
  return command.option('--poll-interval <DUR>', 'how often to ask for new events, e.g. 2s or 500ms', pollDefault)
}

/** The connection the flags (or the environment) describe; a usage error says which is missing or wrong. */
export function connectionOf(values: Record<string, unknown>): ApiConnectionOptions {
  const apiKey = typeof values.apiKey === 'string' ? values.apiKey.trim() : ''
  if (apiKey === '') throw new UsageError(`--api-key is required (or set ${API_KEY_ENV})`)
  const given = typeof values.baseUrl === 'string' ? values.baseUrl.trim() : ''
  if (given === '') throw new UsageError(`--base-url is required (or set ${BASE_URL_ENV})`)
  let url: URL
  try {
    url = new URL(given)
  } catch {
    throw new UsageError(`--base-url: "${given}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url: "${given}" is not an http(s) URL`)
  }
  const baseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '').replace(/\/v4\.0$/i, '')
  return { apiKey, baseUrl }
}

/** Milliseconds of a duration flag (`2s`, `500ms`, or seconds); more than 0. */
export function intervalMs(value: unknown, flag: string): number {
  let milliseconds: number
  try {
    milliseconds = parseDurationMilliseconds(String(value ?? ''))
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`)
  }
  if (milliseconds <= 0) throw new UsageError(`${flag}: must be more than 0`)
  return milliseconds
}

/** `pr_sandbox_AbCdEfGh`: the visible part of a key, as listings show it; never enough to use it. */
export function keyPrefixOf(apiKey: string): string {
  const head = /^pr_[a-z]+_/.exec(apiKey)?.[0] ?? ''
  return apiKey.slice(0, head.length + 8)
}

/** The command line's HTTP client of a printroute server's API, authenticated with one key. */
export interface ApiConnection {
  /** The server's base URL, without /v4.0. */
  baseUrl: string
  /** GET /v4.0<path>: the JSON body of a 2xx answer; ApiRequestError for any other. */
  get<T>(path: string, query?: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<T>
  /** POST /v4.0<path> with a JSON body: the JSON body of a 2xx answer; ApiRequestError for any other. */
  post<T>(path: string, payload: unknown, signal?: AbortSignal): Promise<T>
}

/**
 * One request to `<baseUrl><target>` with the key (the API's /v4.0 or the lab API's /labs/v1), a JSON body when
 * given: the JSON body of a 2xx answer; ApiRequestError for any other. Given up after API_REQUEST_TIMEOUT_MS.
 */
export async function sendJson<T>(
  options: { apiKey: string; baseUrl: string },
  method: 'GET' | 'POST',
  target: string,
  payload?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const timeout = AbortSignal.timeout(API_REQUEST_TIMEOUT_MS)
  const response = await fetch(`${options.baseUrl}${target}`, {
    method,
    headers: {
      'x-api-key': options.apiKey,
      accept: 'application/json',
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  })
  const text = await response.text()
  let body: Record<string, unknown> | null = null
  try {
    body = JSON.parse(text) as Record<string, unknown>
  } catch {}
  if (!response.ok || body === null) throw new ApiRequestError(response.status, body, target, method)
  return body as T
}

export function createApiConnection(options: ApiConnectionOptions): ApiConnection {
  const send = <T>(method: 'GET' | 'POST', target: string, payload?: unknown, signal?: AbortSignal) =>
    sendJson<T>(options, method, target, payload, signal)

  return {
    baseUrl: options.baseUrl,
    /** GET /v4.0<path>: the JSON body of a 2xx answer; ApiRequestError for any other. */
    async get<T>(path: string, query: Record<string, string | number | undefined> = {}, signal?: AbortSignal) {
      const params = new URLSearchParams()
      for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
      const search = params.toString()
      return send<T>('GET', `/v4.0${path}${search ? `?${search}` : ''}`, undefined, signal)
    },
    /** POST /v4.0<path> with a JSON body: the JSON body of a 2xx answer; ApiRequestError for any other. */
    post<T>(path: string, payload: unknown, signal?: AbortSignal) {
      return send<T>('POST', `/v4.0${path}`, payload, signal)
    },
  }
}

/** Events asked for per request of the events feed (GET /v4.0/events): the feed's most. */
export const EVENTS_FEED_PAGE_SIZE = 100

/**
 * The feed's last event ID now (null when it has none), of the events `filter` selects: where following the feed
 * starts, to see only what comes after. The feed reads only forward, so this pages through it.
 */
export async function lastEventIdOfFeed(
  api: ApiConnection,
  filter: { orderId?: string; webhookId?: string },
  signal: AbortSignal,
): Promise<string | null> {
  let cursor: string | null = null
  for (;;) {
    const page: { nextCursor: string | null; hasMore: boolean } = await api.get(
      '/events',
      { ...filter, after: cursor ?? undefined, top: EVENTS_FEED_PAGE_SIZE },
      signal,
    )
    cursor = page.nextCursor ?? cursor
    if (!page.hasMore) return cursor
  }
}

/** Waits `ms`, or less when `signal` aborts (then resolves at once: the caller checks the signal). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/** An AbortSignal that fires on SIGINT or SIGTERM; `dispose` removes the handlers. */
export function stopSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController()
  const stop = () => controller.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    },
  }
}
