// The retry schedule outgoing deliveries share (docs/callbacks.md#delivery-and-retries): callbacks, pushes to labs
// and the storefront fulfilment outbox (docs/channels.md) each make their attempts on it and log every one.

/**
 * Delay before each attempt, counted from the failure of the one before (the first is immediate): immediately,
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts over about 27.6 hours, then failed.
 */
export const DELIVERY_RETRY_SCHEDULE_SECONDS: readonly number[] = [0, 5, 300, 1800, 7200, 18_000, 36_000, 36_000]

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed at `now` (null: the schedule is used up). A
 * receiver's Retry-After, when it asks for longer than the schedule, is honoured.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempt: number,
  now: Date,
  retryAfterSeconds: number | null = null,
): Date | null {
  if (attempt >= schedule.length) return null
  const delay = Math.max(schedule[attempt] ?? 0, retryAfterSeconds ?? 0)
  return new Date(now.getTime() + delay * 1000)
}
