// Unguessable URLs for the files printroute serves itself (thumbnails, print files for labs): the path
// carries an HMAC-SHA256 of the blob key and the expiry, so the file route needs no API key and no database
// lookup to decide, and a URL cannot be altered to reach another file or to live longer.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The URL prefix of served files; the file route is mounted here. */
export const FILE_PATH_PREFIX = '/files/'

// A purpose label inside the signed message keeps these signatures from ever being valid for another use
// of the same secret (callback signatures, for one).
const PURPOSE = 'printroute-file-url-v1'
// HMAC-SHA256 output in unpadded base64url: 32 bytes -> 43 characters.
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/
// Unix seconds, no sign, no leading zeros: one spelling per instant, so a signature has one valid URL.
const EXPIRES_PATTERN = /^(0|[1-9][0-9]{0,14})$/

function signature(secret: string, key: string, expires: string): Buffer {
  if (secret.length === 0) throw new Error('The file URL signing secret must not be empty')
  return createHmac('sha256', secret).update(`${PURPOSE}\n${key}\n${expires}`).digest()
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/')
}

/**
 * `/files/<key>?expires=<unix seconds>&signature=<base64url HMAC>`; with `expiresAt` null the URL never
 * expires and carries no `expires`. The expiry is rounded down to whole seconds, so a URL never outlives the
 * instant asked for.
 */
export function signFilePath(secret: string, key: string, expiresAt: Date | null): string {
  // "key\nexpires" must have exactly one reading; blob keys never contain a line feed anyway.
  if (key.includes('\n')) throw new RangeError('A file key must not contain a line feed')
  const path = `${FILE_PATH_PREFIX}${encodeKey(key)}`
  if (expiresAt === null) {
    return `${path}?signature=${signature(secret, key, '').toString('base64url')}`
  }
  const seconds = Math.floor(expiresAt.getTime() / 1000)
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new RangeError(`Invalid expiry ${String(expiresAt)}`)
  const expires = String(seconds)
  return `${path}?expires=${expires}&signature=${signature(secret, key, expires).toString('base64url')}`
}

/**
 * True when `signature` was made by `signFilePath` with this secret for this key and expiry, and the expiry
 * (if any) is still ahead of `now`. `key` is the decoded path after `/files/`; `expires` and `signature` are
 * the query values as received (absent: null or undefined). Anything malformed is simply false.
 */
export function verifyFilePath(
  secret: string,
  key: string,
  expires: string | null | undefined,
  signatureText: string | null | undefined,
  now: Date,
): boolean {
  if (typeof signatureText !== 'string' || !SIGNATURE_PATTERN.test(signatureText)) return false
  if (key.includes('\n')) return false
  const expiresText = expires ?? ''
  if (expiresText !== '' && !EXPIRES_PATTERN.test(expiresText)) return false
  // Compared as text, not decoded bytes: a decoder ignores the last character's two spare bits, and the
  // URL is meant to have one spelling. Both sides are 43 ASCII bytes, as timingSafeEqual requires.
  const expected = Buffer.from(signature(secret, key, expiresText).toString('base64url'))
  if (!timingSafeEqual(Buffer.from(signatureText), expected)) return false
  return expiresText === '' || now.getTime() < Number(expiresText) * 1000
}
