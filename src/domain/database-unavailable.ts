// "The database cannot be reached right now", decided in one place. A PostgreSQL server that restarts, fails
// over, closes idle connections or has its backends terminated shows up in the driver as many different errors:
// a socket error (ECONNREFUSED, ECONNRESET), a FATAL message with an SQLSTATE (57P01 admin_shutdown), a
// connection that ended under a query, a pool that could not connect in time. The database adapters turn every
// one of them into a DatabaseUnavailableError, which the API answers with 503 ServiceUnavailable and Retry-After
// and the workers wait out (docs/operations.md#when-the-database-goes-away). Pure: it reads only the fields the
// errors carry, and what it keeps (a code, a condition name) holds no connection parameter and no SQL.

/** How long a client is told to wait before retrying (the Retry-After of the 503). */
export const DATABASE_RETRY_AFTER_SECONDS = 5

/** Socket and name-resolution errors of a connection to the server. */
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * SQLSTATEs that say the server cannot serve this connection now (class 08, connection exception, is taken
 * whole): the condition names of PostgreSQL's errcodes table.
 */
const UNAVAILABLE_SQLSTATES: Record<string, string> = {
  '57P01': 'admin_shutdown',
  '57P02': 'crash_shutdown',
  '57P03': 'cannot_connect_now',
  '57P05': 'idle_session_timeout',
  '53300': 'too_many_connections',
  '08000': 'connection_exception',
  '08003': 'connection_does_not_exist',
  '08006': 'connection_failure',
  '08001': 'sqlclient_unable_to_establish_sqlconnection',
  '08004': 'sqlserver_rejected_establishment_of_sqlconnection',
  '08007': 'transaction_resolution_unknown',
  '08P01': 'protocol_violation',
}

/** The driver's own errors without a code (node-postgres and its pool), by their message. */
const UNAVAILABLE_MESSAGES: [RegExp, string][] = [
  [/^Connection terminated due to connection timeout/i, 'connection timeout'],
  [/^timeout exceeded when trying to connect/i, 'connection timeout'],
  [/^Connection terminated/i, 'connection terminated'],
  [/is not queryable/i, 'connection closed'],
  [/^Client network socket disconnected/i, 'connection terminated'],
]

/** The database could not be reached; `reason` is a code or condition, never a host, a user or SQL. */
export class DatabaseUnavailableError extends Error {
  readonly reason: string

  constructor(reason: string) {
    super(`the database is unavailable (${reason})`)
    this.name = 'DatabaseUnavailableError'
    this.reason = reason
  }
}

const MAX_CAUSE_DEPTH = 4

/**
 * Why `error` means the database is unreachable (`ECONNREFUSED`, `57P01 admin_shutdown`, `connection
 * timeout`...), or null when it is some other failure (a constraint, a syntax error, a bug). Looks through
 * `cause` and an AggregateError's `errors` (Node reports a refused connection to each address of a host so).
 * Only for errors that came from a database client: a socket error of an HTTP fetch would match too.
 */
export function databaseUnavailableReason(error: unknown, depth = 0): string | null {
  if (error instanceof DatabaseUnavailableError) return error.reason
  if (error === null || typeof error !== 'object' || depth > MAX_CAUSE_DEPTH) return null
  const { code, message, cause, errors } = error as {
    code?: unknown
    message?: unknown
    cause?: unknown
    errors?: unknown
  }
  if (typeof code === 'string') {
    if (SOCKET_ERROR_CODES.has(code)) return code
    const condition = UNAVAILABLE_SQLSTATES[code] ?? (code.startsWith('08') ? 'connection_exception' : undefined)
    if (condition) return `${code} ${condition}`
  }
  if (typeof message === 'string') {
    for (const [pattern, reason] of UNAVAILABLE_MESSAGES) if (pattern.test(message)) return reason
  }
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const reason = databaseUnavailableReason(inner, depth + 1)
    if (reason) return reason
  }
  return null
}

/** `error` as a DatabaseUnavailableError when it says the database is unreachable; otherwise `error` itself. */
export function asDatabaseUnavailable(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) return error
  const reason = databaseUnavailableReason(error)
  return reason ? new DatabaseUnavailableError(reason) : error
}
