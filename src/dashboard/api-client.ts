// The dashboard reads and changes everything through the public /v4.0 API, in process (Fastify's inject):
// the same routes, validation, errors and logs as any client, authenticated by the signed-in session.
import type { FastifyInstance } from 'fastify'

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
  post<T>(path: string, body?: unknown): Promise<ApiAnswer<T>>
  patch<T>(path: string, body: unknown): Promise<ApiAnswer<T>>
  /** An open endpoint beside /v4.0 that answers like the API (the sample images' list, `/samples/`). */
  getBesideApi<T>(path: string): Promise<ApiAnswer<T>>
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
  async function call<T>(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<ApiAnswer<T>> {
    const response = await api.inject({
      method,
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
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
    post: (path, body) => call('POST', `/v4.0${path}`, body),
    patch: (path, body) => call('PATCH', `/v4.0${path}`, body),
    getBesideApi: (path) => call('GET', path),
  }
}

/** An error answer in one line: its statusText and, for validation failures, each field and reason. */
export function describeApiError(body: ApiBody): string {
  const failures = Object.entries(body.failures ?? {}).map(
    ([field, list]) =>
      `${field}: ${list.map((failure) => [failure.code, failure.comparisonValue].filter((part) => part !== undefined && part !== null).join(' ')).join(', ')}`,
  )
  return [body.statusText ?? body.outcome, ...failures].join('; ')
}
