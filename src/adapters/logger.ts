// The process's logger (pino): JSON lines for machines, or pino-pretty for a person at a terminal, written
// synchronously so log lines and anything else printed (the first-start banner) stay in the order they
// happened. Secrets are kept out in three ways, whatever field or message carries them: fields whose name says
// they hold one are censored (pino's redaction); secret-bearing query values in any URL (payment tokens,
// `/files` signatures, keys in a callback URL) are replaced; and anything shaped like a secret printroute
// issues (an API or lab key, a callback signing secret, a dashboard session or CSRF token) is replaced
// wherever it appears, so a key pasted where a key prefix or an id belongs (`/v4.0/account/keys/<key>/revoke`)
// is not logged either.
import { isatty } from 'node:tty'
import pino, { type Logger } from 'pino'
import pinoPretty from 'pino-pretty'
import { databaseUnavailableReason } from '../domain/database-unavailable.ts'

export const LOG_FORMATS = ['pretty', 'json'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/** What replaces a secret in a log line. */
export const REDACTED = '[REDACTED]'

/**
 * Query parameters whose value is a credential: `token` (payment page links, src/http/routes/payments.routes.ts),
 * `signature` (`/files` links, src/domain/signed-urls.ts), and the usual spellings of keys, secrets and
 * pre-signed S3, Google Cloud Storage and Azure (`sig`) URLs, which may appear in merchants' callback or asset URLs.
 */
export const SECRET_QUERY_PARAMETERS = [
  'token',
  'signature',
  'sig',
  'key',
  'apikey',
  'api_key',
  'api-key',
  'access_token',
  'auth',
  'secret',
  'password',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  '_csrf',
  'csrf',
  'csrftoken',
  'csrf_token',
  'session',
] as const

/** Field names that hold a secret wherever they appear (matched at the top level and two levels down). */
const SECRET_FIELD_NAMES = [
  'key',
  'apiKey',
  'labKey',
  'token',
  'paymentToken',
  'secret',
  'signingSecret',
  'signature',
  'password',
  'authorization',
  'cookie',
  'card',
  'csrfToken',
  'sessionToken',
  '"x-api-key"',
  '"x-csrf-token"',
  '"set-cookie"',
] as const

export const REDACTED_PATHS: readonly string[] = SECRET_FIELD_NAMES.flatMap((name) => {
  const path = name.startsWith('"') ? `[${name}]` : `.${name}`
  return [path.startsWith('.') ? path.slice(1) : path, `*${path}`, `*.*${path}`]
})

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

// `?token=...` / `&signature=...` up to the next separator; `user:password@` in a URL's authority.
const SECRET_QUERY_VALUE = new RegExp(
  `([?&](?:${SECRET_QUERY_PARAMETERS.map(escapeRegExp).join('|')})=)[^&#\\s"'<>]*`,
  'gi',
)
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/?#\s:@]*:)[^/?#\s@]*@/gi

/**
 * Characters of a key's random part kept when a whole key is found: the visible prefix keys are listed and
 * revoked by (src/services/secret-keys.ts), which is no secret.
 */
const KEY_PREFIX_RANDOM_CHARS = 8
// `pr_live_`, `pr_sandbox_`, `pr_lab_` and the random part (base64url, maybe percent-encoded): all but the
// prefix goes. A key cut short is redacted too, past its prefix.
// (The lookahead and back-reference take the prefix whole, as an atomic group would: a bare prefix stays.)
const API_KEY = new RegExp(
  `(pr_(?:live|sandbox|lab)_(?=([A-Za-z0-9_-]{0,${KEY_PREFIX_RANDOM_CHARS}}))\\2)[A-Za-z0-9_%-]+`,
  'g',
)
// `whsec_` and its base64 key, also percent-encoded in a URL.
const SIGNING_SECRET = /(whsec_)[A-Za-z0-9+/=%]+/g
// The dashboard's session cookie, `printroute_<environment>_session=<token>`, in a Cookie or Set-Cookie text.
const SESSION_COOKIE = /(printroute_[a-z]+_session=)[^;,\s"']+/gi
/**
 * Session tokens and CSRF tokens have no prefix: 32 random bytes in base64url, 43 characters. Any run of 40
 * or more base64url characters with upper and lower case letters is taken for one: ids, trace ids, hashes
 * (hex) and words are shorter or of one case.
 */
const RANDOM_TOKEN =
  /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])/g
const MIGHT_HOLD_A_SECRET = /[=@]|pr_|whsec_|[A-Za-z0-9_-]{40}/

/**
 * `text` with every secret replaced by [REDACTED]: secret query values, URL passwords, API and lab keys past
 * their visible prefix, signing secrets, session cookies and session or CSRF tokens.
 */
export function redactSecretsInText(text: string): string {
  // Most log strings hold nothing of the kind: skip the replacements for them.
  if (!MIGHT_HOLD_A_SECRET.test(text)) return text
  return text
    .replace(API_KEY, `$1${REDACTED}`)
    .replace(SIGNING_SECRET, `$1${REDACTED}`)
    .replace(SESSION_COOKIE, `$1${REDACTED}`)
    .replace(SECRET_QUERY_VALUE, `$1${REDACTED}`)
    .replace(URL_PASSWORD, `$1${REDACTED}@`)
    .replace(RANDOM_TOKEN, REDACTED)
}

const MAX_REDACTION_DEPTH = 6

/**
 * Strings in plain objects and arrays, redacted. Other objects (a Fastify request, an Error) are left to
 * their serializers, which redact what they output: walking them here would copy away their getters.
 */
function redactStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecretsInText(value)
  if (value === null || typeof value !== 'object' || depth >= MAX_REDACTION_DEPTH) return value
  if (Array.isArray(value)) return value.map((entry) => redactStrings(entry, depth + 1))
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return value
  const result: Record<string, unknown> = {}
  for (const [name, entry] of Object.entries(value)) result[name] = redactStrings(entry, depth + 1)
  return result
}

/**
 * The request as logged by Fastify's request lines; the same fields as Fastify's own serializer, with the
 * URL's secrets redacted (a payment page is `/payments/ord_1?token=...`, a file `/files/...?signature=...`).
 */
function requestSerializer(request: {
  method?: string
  url?: string
  host?: string
  ip?: string
  socket?: { remotePort?: number }
}) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactSecretsInText(request.url) : request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}

/**
 * Fields of database driver errors (node-postgres, pg-boss) that carry SQL text, the values bound to it, the rows
 * it touched (`detail`: `Key (email)=(...)`) or the connection with its parameters (user, host, database,
 * password). An error keeps its message and code (and its stack, unless it is the database's: isDatabaseError);
 * these never reach a log line.
 */
export const DRIVER_ERROR_FIELDS: ReadonlySet<string> = new Set([
  'query',
  'text',
  'values',
  'parameters',
  'params',
  'internalQuery',
  'where',
  'detail',
  'client',
  'connection',
  'connectionParameters',
  'config',
  'pool',
])

/**
 * A serialized error's fields without the driver's: no field in DRIVER_ERROR_FIELDS, and no object that is not
 * plain data (a client, a socket, a pool), however deep. Plain objects and arrays are kept, cleaned the same way.
 */
function withoutDriverObjects(value: unknown, depth: number, withoutStacks: boolean): unknown {
  if (value === null || typeof value !== 'object') return value
  if (depth >= MAX_REDACTION_DEPTH) return undefined
  if (Array.isArray(value)) return value.map((entry) => withoutDriverObjects(entry, depth + 1, withoutStacks))
  const result: Record<string, unknown> = {}
  for (const [name, entry] of Object.entries(value)) {
    if (DRIVER_ERROR_FIELDS.has(name) || (withoutStacks && name === 'stack')) continue
    if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
      const prototype = Object.getPrototypeOf(entry)
      if (prototype !== Object.prototype && prototype !== null) continue
    }
    result[name] = withoutDriverObjects(entry, depth + 1, withoutStacks)
  }
  return result
}

/**
 * Whether `error` is the database's or its driver's: a lost or refused connection (however wrapped: a cause, an
 * AggregateError) or an error the server sent (node-postgres's DatabaseError). Its stack is the driver's socket
 * and protocol parser, or the line that wrapped it, and says nothing the message and code do not; a dropped
 * connection would otherwise print a dozen lines of it per failure.
 */
function isDatabaseError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false
  return databaseUnavailableReason(error) !== null || error.constructor?.name === 'DatabaseError'
}

function errorSerializer(error: Error) {
  // The serialized error is not a plain object (its prototype carries pino's getters): copy it into one.
  return redactStrings(withoutDriverObjects({ ...pino.stdSerializers.err(error) }, 0, isDatabaseError(error)), 0)
}

export interface LoggerOptions {
  /** A pino level: fatal, error, warn, info, debug, trace or silent. */
  level: string
  format: LogFormat
  /** 1 (stdout) or 2 (stderr), written synchronously; a stream (tests). */
  destination: 1 | 2 | NodeJS.WritableStream
}

/** The logger of a printroute process: pino, with redaction, to stdout or stderr in the chosen format. */
export function createLogger(options: LoggerOptions): Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
    serializers: { req: requestSerializer, err: errorSerializer },
    formatters: { log: (object) => redactStrings(object, 0) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        const redacted = args.map((arg) => (typeof arg === 'string' ? redactSecretsInText(arg) : arg))
        return method.apply(this, redacted as Parameters<typeof method>)
      },
    },
  }
  const { destination } = options
  if (options.format === 'json') {
    const stream = typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination
    return pino(pinoOptions, stream)
  }
  // In-process and synchronous (no worker-thread transport), so a line is out before the next statement runs.
  // A message is printed as it is, newlines included: a multi-line shell command in it stays pasteable.
  const pretty = pinoPretty({
    destination,
    sync: true,
    colorize: typeof destination === 'number' ? isatty(destination) && !process.env.NO_COLOR : false,
    // Request lines say it all in their message (src/http/request-logging.ts); their trace id goes after it.
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: '{msg}{if reqId} [{reqId}]{end}',
    translateTime: 'SYS:HH:MM:ss.l',
    singleLine: false,
  })
  return pino(pinoOptions, pretty)
}

/** The log format: `--log-format` when given, else pretty at a terminal and JSON lines otherwise. */
export function logFormatFor(flag: string | undefined, isTty: boolean): LogFormat {
  if (flag === undefined || flag === '') return isTty ? 'pretty' : 'json'
  const format = LOG_FORMATS.find((candidate) => candidate === flag.toLowerCase())
  if (!format) throw new RangeError(`--log-format must be ${LOG_FORMATS.join(' or ')}, got "${flag}"`)
  return format
}
