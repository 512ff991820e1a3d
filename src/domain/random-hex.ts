// Random hex for the identifiers every request makes (trace ids, span ids, placeholder tokens). They are drawn
// from a pool the system's generator fills a few kilobytes at a time: one randomBytes call per identifier cost
// about 5% of a cheap request's CPU in `npm run bench:api`. Each byte is used once, so identifiers are exactly
// as unpredictable as with a call each.
import { randomFillSync } from 'node:crypto'

const POOL_BYTES = 4096
const pool = Buffer.alloc(POOL_BYTES)
let used = POOL_BYTES

/** `bytes` random bytes as lowercase hex (2 x `bytes` characters). */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('hex')
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool)
    used = 0
  }
  const hex = pool.toString('hex', used, used + bytes)
  used += bytes
  return hex
}
