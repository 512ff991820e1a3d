// The API's rate limit as the operator writes it (`--rate-limit 600/1m`): at most `max` requests in each
// window of `windowMilliseconds`, per API key; `0` turns it off. docs/api.md#rate-limits says what a client sees.
import { formatDurationSeconds, parseDurationMilliseconds } from './duration.ts'

export interface RateLimit {
  max: number
  windowMilliseconds: number
}

/** The default: 10 requests a second on average, with room for bursts within the minute. */
export const DEFAULT_RATE_LIMIT_TEXT = '600/1m'

/** Windows are whole seconds (the RateLimit-Reset and Retry-After headers count seconds), a day at most. */
const MIN_WINDOW_MILLISECONDS = 1_000
const MAX_WINDOW_MILLISECONDS = 86_400_000

/**
 * `N/PERIOD` (`600/1m`, `10/1s`, `5000/1h`; a bare unit means one of it: `600/m`), or `0` for no limit (null).
 * Throws an Error saying what is wrong.
 */
export function parseRateLimit(text: string): RateLimit | null {
  const trimmed = text.trim()
  if (trimmed === '0') return null
  const match = /^(\d+)\s*\/\s*(\S+)$/.exec(trimmed)
  if (!match) {
    throw new Error(`must be N/PERIOD such as 600/1m (N requests per period, per API key) or 0 for none, got "${text}"`)
  }
  const [, count = '', period = ''] = match
  const max = Number(count)
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new Error(
      `the number of requests must be a whole number of at least 1 (0 alone turns the limit off), got "${text}"`,
    )
  }
  let windowMilliseconds: number
  try {
    windowMilliseconds = parseDurationMilliseconds(/^[a-z]+$/i.test(period) ? `1${period}` : period)
  } catch (error) {
    throw new Error(`the period ${(error as Error).message}, in "${text}"`)
  }
  if (windowMilliseconds % 1000 !== 0 || windowMilliseconds < MIN_WINDOW_MILLISECONDS) {
    throw new Error(`the period must be a whole number of seconds, at least 1s, got "${text}"`)
  }
  if (windowMilliseconds > MAX_WINDOW_MILLISECONDS) throw new Error(`the period must be at most 1d, got "${text}"`)
  return { max, windowMilliseconds }
}

/** `600/1m`: how a limit reads in messages and logs. */
export function formatRateLimit(limit: RateLimit): string {
  return `${limit.max}/${formatDurationSeconds(limit.windowMilliseconds / 1000)}`
}
