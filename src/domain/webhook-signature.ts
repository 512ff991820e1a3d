// Callback signing, Standard Webhooks style (https://www.standardwebhooks.com): headers `webhook-id` (the
// event id, the same on every attempt), `webhook-timestamp` (Unix seconds of the attempt) and
// `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret in force,
// separated by spaces. The key is the base64 text after `whsec_`. Receivers that ignore the headers lose nothing.
// The signature itself is the `standardwebhooks` package's, the reference implementation receivers verify with.
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

export const SIGNING_SECRET_PREFIX = 'whsec_'
/** 32 random bytes: the HMAC-SHA256 block-size-safe key length Standard Webhooks recommends (24 to 64). */
const SECRET_BYTES = 32

export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`
}

export function isSigningSecret(secret: string): boolean {
  return secret.startsWith(SIGNING_SECRET_PREFIX) && /^[A-Za-z0-9+/]+={0,2}$/.test(secret.slice(6))
}

/** `v1,<signature>` of one message under one secret. */
export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return new Webhook(secret).sign(id, new Date(timestampSeconds * 1000), body)
}

/** The three headers for one attempt; every secret given signs (the new and, during an overlap, the old). */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const timestamp = Math.floor(at.getTime() / 1000)
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, id, timestamp, body)).join(' '),
  }
}
