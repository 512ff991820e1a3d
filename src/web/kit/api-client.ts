// The dashboard reads and changes everything through the public /v4.0 API, in process (Fastify's inject):
// the same routes, validation, errors and logs as any client, authenticated by the signed-in session.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { isKeyScope } from '../../domain/key-scopes.ts'
import { scopeMissingText } from './scopes.ts'

/**
 * One dashboard page view: an identity its API calls share. A page makes several API calls, some at once (the
 * order page five, every few seconds while the order is in progress); the rate limit counts the view once and
 * gives all of its calls that one count's answer (docs/api.md#rate-limits), so the dashboard costs its key's
 * budget what one request costs, and a view over the budget is refused whole.
 */
export type DashboardPageView = object

// Only code in this process can run a request inside this store: a client cannot claim to be a page view.
const pageViews = new AsyncLocalStorage<DashboardPageView>()

/** The page view whose API call is being answered; undefined for every request that is not such a call. */
export function dashboardPageViewOfThisCall(): DashboardPageView | undefined {
  return pageViews.getStore()
}

export interface ApiFailure {
  code: string
  providedValue?: unknown
  comparisonValue?: unknown
}

/** The fields every answer may carry: the outcome, and on errors the contract's error body. */
export interface ApiBody {
  outcome: string
  statusText?: string
  failures?: Record<string, ApiFailure[]>
  /** Facts of some errors: a 403 Forbidden for a missing scope names it as `data.scope`. */
  data?: { scope?: unknown; scopes?: unknown }
  traceParent?: string
}

export interface ApiAnswer<T> {
  status: number
  /** 2xx. Business refusals (FailedToCancel, ActionNotAvailable...) are 2xx too: read `body.outcome`. */
  ok: boolean
  body: T & ApiBody
}

export interface ApiClient {
  get<T>(path: string, query?: Record<string, string | number | undefined | null>): Promise<ApiAnswer<T>>
  /** `headers`: extra request headers (the new order page's X-Sandbox-Scenario). */
  post<T>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer<T>>
  patch<T>(path: string, body: unknown): Promise<ApiAnswer<T>>
  delete<T>(path: string): Promise<ApiAnswer<T>>
  /** An open endpoint beside /v4.0 that answers like the API (the sample images' list, `/samples/`). */
  getBesideApi<T>(path: string): Promise<ApiAnswer<T>>
  /** GET /v4.0<path> of a text answer (an import's results.csv): its status and body as they are. */
  getText(path: string): Promise<{ status: number; ok: boolean; text: string }>
}

export interface ApiCredentials {
  cookieName: string
  sessionToken: string
  csrfToken: string
  /** The page request's traceparent: the API calls of one page share its trace id in the logs. */
  traceParent: string
}

export function createApiClient(api: FastifyInstance, credentials: ApiCredentials): ApiClient {
  const headers = {
    cookie: `${credentials.cookieName}=${credentials.sessionToken}`,
    'x-csrf-token': credentials.csrfToken,
    traceparent: credentials.traceParent,
  }
  // A client is made per page request, so its calls are that page view's.
  const pageView: DashboardPageView = {}
  async function call<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<ApiAnswer<T>> {
    // inject's callback form: its promise form starts the request from a `then` that runs outside the store.
    const response = await new Promise<LightMyRequestResponse>((resolve, reject) =>
      pageViews.run(pageView, () =>
        api.inject(
          {
            method,
            url,
            headers: {
              ...extraHeaders,
              ...headers,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
          },
          (error, answer) => (error || !answer ? reject(error) : resolve(answer)),
        ),
      ),
    )
    let parsed: T & ApiBody
    try {
      parsed = response.json()
    } catch {
      parsed = { outcome: 'InternalServerError', statusText: response.body.slice(0, 200) } as T & ApiBody
    }
    return { status: response.statusCode, ok: response.statusCode < 300, body: parsed }
  }
  return {
    get(path, query) {
      const params = new URLSearchParams()
      for (const [name, value] of Object.entries(query ?? {})) {
        if (value !== undefined && value !== null && value !== '') params.set(name, String(value))
      }
      const search = params.toString()
      return call('GET', `/v4.0${path}${search ? `?${search}` : ''}`)
    },
    post: (path, body, extra) => call('POST', `/v4.0${path}`, body, extra),
    patch: (path, body) => call('PATCH', `/v4.0${path}`, body),
    delete: (path) => call('DELETE', `/v4.0${path}`),
    getBesideApi: (path) => call('GET', path),
    getText: (path) =>
      new Promise((resolve, reject) =>
        pageViews.run(pageView, () =>
          api.inject({ method: 'GET', url: `/v4.0${path}`, headers }, (error, answer) =>
            error || !answer
              ? reject(error)
              : resolve({ status: answer.statusCode, ok: answer.statusCode < 300, text: answer.body }),
          ),
        ),
      ),
  }
}

/** An error answer in one line: its statusText and, for validation failures, each field and reason. */
export function describeApiError(body: ApiBody): string {
  const refused = scopeRefusalText(body)
  if (refused !== undefined) return refused
  const failures = Object.entries(body.failures ?? {}).map(
    ([field, list]) =>
      `${field}: ${list.map((failure) => [failure.code, failure.comparisonValue].filter((part) => part !== undefined && part !== null).join(' ')).join(', ')}`,
  )
  return [body.statusText ?? body.outcome, ...failures].join('; ')
}

/**
 * A 403 for a scope the session's key lacks, as the pages say it; undefined for any other answer. It reaches a
 * page when a form the page did not offer is sent anyway, or the key lost the scope since the page was shown.
 * A refusal to issue a key beyond the caller's scopes (`data.scopes`) keeps its own, more precise, words.
 */
export function scopeRefusalText(body: ApiBody): string | undefined {
  const scope = body.outcome === 'Forbidden' && body.data?.scopes === undefined ? body.data?.scope : undefined
  return typeof scope === 'string' && isKeyScope(scope) ? scopeMissingText(scope) : undefined
}
