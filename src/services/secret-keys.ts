// Keys printroute issues (merchant API keys, lab keys): 32 random bytes behind a readable type tag, shown
// once; stored only as a SHA-256 hash (the keys carry 256 bits of entropy, so a plain hash is enough) and a
// short visible prefix for support and revocation.
import { createHash, randomBytes } from 'node:crypto'

const KEY_RANDOM_BYTES = 32
/** Characters of the random part kept in the visible prefix (48 bits: unique, useless for guessing). */
const KEY_PREFIX_RANDOM_CHARS = 8

/** A new key `pr_<tag>_<random>` and its visible prefix. */
export function newSecretKey(tag: string): { key: string; prefix: string } {
  const head = `pr_${tag}_`
  const key = `${head}${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`
  return { key, prefix: key.slice(0, head.length + KEY_PREFIX_RANDOM_CHARS) }
}

export function hashSecretKey(key: string): string {
  return createHash('sha256').update(key).digest('hex')
}
