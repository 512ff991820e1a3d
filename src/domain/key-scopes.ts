// What an API key may do (docs/api.md#api-keys). A key without scopes may do everything, as every key could
// before scopes existed; a scoped key only what its scopes name. Every API route declares the one scope it needs.

export const KEY_SCOPES = [
  'orders:read',
  'orders:write',
  'quotes',
  'products:read',
  'webhooks:manage',
  'keys:manage',
  'account:read',
  'account:manage',
] as const

export type KeyScope = (typeof KEY_SCOPES)[number]

/** Most scopes a key can name: each at most once. */
export const MAX_KEY_SCOPES = KEY_SCOPES.length

export function isKeyScope(value: string): value is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(value)
}

/** Whether a key with `scopes` (null: every scope) may use a route that needs `needed`. */
export function keyAllows(scopes: readonly KeyScope[] | null | undefined, needed: KeyScope): boolean {
  return scopes == null || scopes.includes(needed)
}

/**
 * The scopes of `wanted` (null: every scope) that a key with `holder` (null: every scope) lacks: a key issues and
 * revokes only keys within its own scopes, so these are what stand in the way.
 */
export function scopesBeyond(
  holder: readonly KeyScope[] | null | undefined,
  wanted: readonly KeyScope[] | null | undefined,
): KeyScope[] {
  return (wanted ?? KEY_SCOPES).filter((scope) => !keyAllows(holder, scope))
}

/** What a request outside its key's scopes is told (403 Forbidden, docs/errors.md). */
export function scopeRefusedMessage(keyPrefix: string, needed: KeyScope): string {
  return `The API key ${keyPrefix} does not have the scope ${needed}, which this endpoint needs`
}

/** What a request with an expired key is told (401 Unauthorized, docs/errors.md). */
export function keyExpiredMessage(keyPrefix: string, expiredAt: Date): string {
  return `The API key ${keyPrefix} expired at ${expiredAt.toISOString()}; issue a new key`
}
