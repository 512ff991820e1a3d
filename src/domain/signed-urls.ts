// Unguessable, expiring URLs for the files printroute serves itself (thumbnails, print files for labs): the
// URL carries an HMAC-SHA256 of the environment, the blob key and the expiry, so the file route needs no API
// key and no database lookup to decide, and a URL cannot be altered to reach another file, to live longer or
// to work on the other environment's address.
//
// Orders are stored as JSON text and served verbatim (docs/architecture.md), yet every order they are served
// in must carry links valid for the whole lifetime from then. So a stored order holds a token per file
// instead of a link (`printroute-file:<environment>:<key>:<mac>`), and `refresh` replaces each token by a fresh
// link in one pass over the text, without parsing it. The token's MAC (with its own purpose label) proves
// printroute wrote it: merchant text that imitates one is left as it is.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The URL prefix of served files; the file route is mounted here. */
export const FILE_PATH_PREFIX = '/files/'

/** How long a file link works after it is handed out, unless configured otherwise: 7 days. */
export const DEFAULT_FILE_LINK_TTL_SECONDS = 7 * 86_400

/** A served link is reused for this long (so links keep at least their TTL minus this when sent). */
const LINK_REUSE_MS = 60_000
/** Most tokens remembered with their file and latest link; past it the memory starts over. */
const LINK_CACHE_SIZE = 10_000

export type FileEnvironment = 'live' | 'sandbox'
const ENVIRONMENTS: readonly FileEnvironment[] = ['live', 'sandbox']

// Purpose labels inside the signed messages keep these signatures from ever being valid for another use of
// the same secret, or a token from being valid as a link (v2: links are bound to an environment and expire).
const LINK_PURPOSE = 'printroute-file-url-v2'
const TOKEN_PURPOSE = 'printroute-file-token-v1'
const TOKEN_PREFIX = 'printroute-file:'
// HMAC-SHA256 output in unpadded base64url: 32 bytes -> 43 characters.
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/
// Unix seconds, no sign, no leading zeros: one spelling per instant, so a signature has one valid URL.
const EXPIRES_PATTERN = /^(0|[1-9][0-9]{0,14})$/

function hmac(secret: string, message: string): Buffer {
  if (secret.length === 0) throw new Error('The file URL signing secret must not be empty')
  return createHmac('sha256', secret).update(message).digest()
}

function linkSignature(secret: string, environment: FileEnvironment, key: string, expires: string): Buffer {
  return hmac(secret, `${LINK_PURPOSE}\n${environment}\n${key}\n${expires}`)
}

/** Compared as text, not decoded bytes: a decoder ignores the last character's two spare bits. */
function sameSignature(received: string, expected: Buffer): boolean {
  return timingSafeEqual(Buffer.from(received), Buffer.from(expected.toString('base64url')))
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/')
}

/**
 * `/files/<key>?expires=<unix seconds>&signature=<base64url HMAC>`, valid on `environment`'s address only. The
 * expiry is rounded down to whole seconds, so a URL never outlives the instant asked for.
 */
export function signFilePath(secret: string, environment: FileEnvironment, key: string, expiresAt: Date): string {
  // "environment\nkey\nexpires" must have exactly one reading; blob keys never contain a line feed anyway.
  if (key.includes('\n')) throw new RangeError('A file key must not contain a line feed')
  const seconds = Math.floor(expiresAt.getTime() / 1000)
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError(`Invalid expiry ${String(expiresAt)}`)
  const expires = String(seconds)
  const signature = linkSignature(secret, environment, key, expires).toString('base64url')
  return `${FILE_PATH_PREFIX}${encodeKey(key)}?expires=${expires}&signature=${signature}`
}

export type FileLinkCheck =
  | { status: 'valid'; expiresAt: Date }
  | { status: 'expired'; expiresAt: Date }
  | { status: 'otherEnvironment'; environment: FileEnvironment }
  | { status: 'invalid' }

/**
 * What a link received by `environment`'s file route is: valid until its expiry; expired (the signature is
 * right, the time is past); a link of the other environment; or nothing printroute signed. `key` is the
 * decoded path after `/files/`; `expires` and `signature` are the query values as received (absent: null).
 */
export function checkFilePath(
  secret: string,
  environment: FileEnvironment,
  key: string,
  expires: string | null | undefined,
  signatureText: string | null | undefined,
  now: Date,
): FileLinkCheck {
  if (typeof signatureText !== 'string' || !SIGNATURE_PATTERN.test(signatureText)) return { status: 'invalid' }
  if (key.includes('\n') || typeof expires !== 'string' || !EXPIRES_PATTERN.test(expires)) return { status: 'invalid' }
  const signedFor = ENVIRONMENTS.find((candidate) =>
    sameSignature(signatureText, linkSignature(secret, candidate, key, expires)),
  )
  if (signedFor === undefined) return { status: 'invalid' }
  if (signedFor !== environment) return { status: 'otherEnvironment', environment: signedFor }
  const expiresAt = new Date(Number(expires) * 1000)
  return now < expiresAt ? { status: 'valid', expiresAt } : { status: 'expired', expiresAt }
}

/** The token a stored document holds for a file, in place of a link (see the top of this file). */
export function fileLinkToken(secret: string, environment: FileEnvironment, key: string): string {
  const mac = hmac(secret, `${TOKEN_PURPOSE}\n${environment}\n${key}`).toString('base64url')
  return `${TOKEN_PREFIX}${environment}:${encodeKey(key)}:${mac}`
}

/** The environment and key of a token printroute wrote, or undefined for anything else. */
export function readFileLinkToken(
  secret: string,
  token: string,
): { environment: FileEnvironment; key: string } | undefined {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined
  const [environment, encodedKey, mac, ...rest] = token.slice(TOKEN_PREFIX.length).split(':')
  if (rest.length > 0 || mac === undefined || encodedKey === undefined || !SIGNATURE_PATTERN.test(mac)) return undefined
  if (environment !== 'live' && environment !== 'sandbox') return undefined
  let key: string
  try {
    key = encodedKey.split('/').map(decodeURIComponent).join('/')
  } catch {
    return undefined
  }
  if (key.includes('\n')) return undefined
  return sameSignature(mac, hmac(secret, `${TOKEN_PURPOSE}\n${environment}\n${key}`)) ? { environment, key } : undefined
}

export interface FileLinks {
  /** What a stored document holds for a file; `refresh` turns it into a link whenever the document is sent. */
  token(environment: FileEnvironment, key: string): string
  /**
   * An absolute link to the file, valid on `environment`'s address for the link lifetime from now, or until
   * `expiresAt` when given (a file kept for a shorter time, such as a product preview).
   */
  url(environment: FileEnvironment, key: string, expiresAt?: Date): string
  /** The JSON text with every file token replaced by a fresh link; the text itself when it holds none. */
  refresh(json: string): string
  /** A link as received by `environment`'s file route (see checkFilePath). */
  check(
    environment: FileEnvironment,
    key: string,
    expires: string | null | undefined,
    signature: string | null | undefined,
  ): FileLinkCheck
}

export interface FileLinkSettings {
  secret: string
  /** The base URL files of an environment are served at (`http://127.0.0.1:8081`); read at each link. */
  baseUrl: (environment: FileEnvironment) => string
  now: () => Date
  ttlSeconds: number
}

export function createFileLinks(settings: FileLinkSettings): FileLinks {
  const { secret, now } = settings
  if (!Number.isSafeInteger(settings.ttlSeconds) || settings.ttlSeconds < 1) {
    throw new RangeError(`The file link lifetime must be a whole number of seconds from 1, not ${settings.ttlSeconds}`)
  }
  const ttlMs = settings.ttlSeconds * 1000
  // token -> its file (the token's MAC checked once) and the link made for it lately: a list of 100 orders
  // with 20 assets each holds thousands of tokens, and two HMACs each on every read would show in its latency.
  const known = new Map<string, { environment: FileEnvironment; key: string; url: string; madeAt: number }>()

  const url = (environment: FileEnvironment, key: string, expiresAt?: Date) => {
    const until = expiresAt ?? new Date(now().getTime() + ttlMs)
    return `${settings.baseUrl(environment)}${signFilePath(secret, environment, key, until)}`
  }

  const linkFor = (token: string): string | undefined => {
    const at = now().getTime()
    const seen = known.get(token)
    if (seen && at - seen.madeAt >= 0 && at - seen.madeAt < LINK_REUSE_MS) return seen.url
    const file = seen ?? readFileLinkToken(secret, token)
    if (!file) return undefined
    // JSON-safe: keys are percent-encoded, signatures base64url; a base URL is escaped like any JSON text.
    const made = JSON.stringify(url(file.environment, file.key)).slice(1, -1)
    if (!seen && known.size >= LINK_CACHE_SIZE) known.clear()
    known.set(token, { environment: file.environment, key: file.key, url: made, madeAt: at })
    return made
  }

  return {
    token: (environment, key) => fileLinkToken(secret, environment, key),
    url,
    refresh(json) {
      const marker = `"${TOKEN_PREFIX}`
      let found = json.indexOf(marker)
      if (found === -1) return json
      let result = ''
      let copiedUpTo = 0
      while (found !== -1) {
        const start = found + 1
        const end = json.indexOf('"', start)
        if (end === -1) break
        // Only a whole string value is a token: its quote opens a string (after `:`, `,` or `[` in compact
        // JSON), where an escaped quote inside merchant text follows a backslash.
        const opensString = found > 0 && ':,['.includes(json.charAt(found - 1))
        const link = opensString ? linkFor(json.slice(start, end)) : undefined
        if (link !== undefined) {
          result += json.slice(copiedUpTo, start) + link
          copiedUpTo = end
        }
        found = json.indexOf(marker, end + 1)
      }
      return result + json.slice(copiedUpTo)
    },
    check: (environment, key, expires, signature) => checkFilePath(secret, environment, key, expires, signature, now()),
  }
}
