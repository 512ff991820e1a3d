// Verifies a callback's Standard Webhooks signature with Web Crypto (browsers, Node >= 20, Deno, Bun, workers):
// `webhook-signature` holds `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with
// the base64 part of the secret after `whsec_`; during a secret rotation it holds one signature per secret,
// separated by spaces.
import { CallbackVerificationError } from './errors.ts'
import type { CallbackEvent } from './types.ts'

/** Standard Webhooks' tolerance: a timestamp more than 5 minutes away from now is refused (replays). */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60

export interface VerifyCallbackOptions {
  /** How far the `webhook-timestamp` may be from now, either way (default 300). */
  toleranceSeconds?: number
  /** The time to compare with (default: now). */
  now?: Date
}

/** Request headers: a Fetch `Headers`, or a plain object in any letter case (Node's `request.headers`). */
export type CallbackHeaders = Headers | Record<string, string | string[] | undefined>

/**
 * Checks that `rawBody` is a callback printroute signed with `secret` (`whsec_...`, from the account settings)
 * within the tolerance, and returns the event parsed. Async because Web Crypto is.
 *
 * `rawBody` must be the body exactly as received (a string or the bytes), before any JSON parsing: a body parsed
 * and serialised again is not the signed one. Throws `CallbackVerificationError` when a header is missing, the
 * timestamp is out of tolerance, no signature matches, or the body is not JSON.
 */
export async function verifyCallback(
  rawBody: string | Uint8Array,
  headers: CallbackHeaders,
  secret: string,
  options: VerifyCallbackOptions = {},
): Promise<CallbackEvent> {
  const id = header(headers, 'webhook-id')
  const timestamp = header(headers, 'webhook-timestamp')
  const signatures = header(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) {
    const missing = [!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signatures && 'webhook-signature']
    throw new CallbackVerificationError(`missing header ${missing.filter(Boolean).join(', ')}`)
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw new CallbackVerificationError('webhook-timestamp is not Unix seconds')
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000)
  const skew = nowSeconds - Number(timestamp)
  if (skew > tolerance)
    throw new CallbackVerificationError(`webhook-timestamp is ${skew} s old (tolerance ${tolerance} s)`)
  if (-skew > tolerance) {
    throw new CallbackVerificationError(`webhook-timestamp is ${-skew} s in the future (tolerance ${tolerance} s)`)
  }

  const body = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody
  const signed = concat(new TextEncoder().encode(`${id}.${timestamp}.`), body)
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    secretBytes(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const expected = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, signed))
  const matches = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .filter(([version, value]) => version === 'v1' && value !== undefined)
    .some(([, value]) => constantTimeEqual(base64Bytes(value ?? ''), expected))
  if (!matches) throw new CallbackVerificationError('no signature in webhook-signature matches the secret')

  try {
    return JSON.parse(new TextDecoder().decode(body)) as CallbackEvent
  } catch {
    throw new CallbackVerificationError('the signed body is not JSON')
  }
}

function header(headers: CallbackHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue
    return Array.isArray(value) ? value.join(' ') : value
  }
  return undefined
}

/** The HMAC key: the base64 after `whsec_` (a secret given without the prefix is taken as the base64 itself). */
function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret
  const bytes = base64Bytes(encoded)
  if (bytes.length === 0) throw new TypeError('the signing secret must be whsec_ followed by base64')
  return bytes
}

/** Decodes base64; an undecodable string gives no bytes (which then matches nothing). */
function base64Bytes(encoded: string): Uint8Array<ArrayBuffer> {
  let binary: string
  try {
    binary = atob(encoded)
  } catch {
    return new Uint8Array(0)
  }
  const bytes = new Uint8Array(binary.length)
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index)
  return bytes
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(first.length + second.length)
  joined.set(first, 0)
  joined.set(second, first.length)
  return joined
}

/** Compares every byte whatever the first difference, so the time taken does not tell how much of a guess matched. */
function constantTimeEqual(given: Uint8Array, expected: Uint8Array): boolean {
  if (given.length !== expected.length) return false
  let difference = 0
  for (let index = 0; index < expected.length; index++) difference |= (given[index] ?? 0) ^ (expected[index] ?? 0)
  return difference === 0
}
