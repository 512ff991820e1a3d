// What a process says while its database is away: one line when the first failure shows the database is
// unreachable, saying what the process does about it; a reminder at most once a minute while it lasts, with the
// number of failures meanwhile; one line when a connection succeeds again. Every pool error, refused connection
// and failed fetch of every worker would otherwise be a line of its own (dozens a second) with the driver's
// objects in it. The lines name a code or condition only (docs/operations.md#when-the-database-goes-away).

/** While an outage lasts, a reminder at most this often. */
export const OUTAGE_REMINDER_MS = 60_000

export interface OutageLogger {
  warn(fields: Record<string, unknown>, message: string): void
  info(fields: Record<string, unknown>, message: string): void
}

export interface DatabaseOutageLog {
  /** A failure that means the database is unreachable (`reason`: a code or condition, e.g. `ECONNREFUSED`). */
  failed(reason: string): void
  /** A connection to the database succeeded: ends the outage, if there was one. */
  reachable(): void
  /** Whether the last word was a failure. */
  readonly unavailable: boolean
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`
}

export function createDatabaseOutageLog(
  log: OutageLogger,
  options: {
    /** What the process does meanwhile, e.g. "requests answer 503 until it is back". */
    consequence: string
    now?: () => number
  },
): DatabaseOutageLog {
  const now = options.now ?? Date.now
  let outage: { since: number; failures: number; lastLine: number; reason: string } | null = null
  return {
    failed(reason) {
      const at = now()
      if (!outage) {
        outage = { since: at, failures: 1, lastLine: at, reason }
        log.warn({ reason }, `database unreachable (${reason}); ${options.consequence}`)
        return
      }
      outage.failures += 1
      outage.reason = reason
      if (at - outage.lastLine < OUTAGE_REMINDER_MS) return
      outage.lastLine = at
      log.warn(
        { reason, failures: outage.failures, unavailableMs: at - outage.since },
        `database still unreachable after ${seconds(at - outage.since)} (${reason}, ${outage.failures} failures); ${options.consequence}`,
      )
    },
    reachable() {
      if (!outage) return
      const lasted = now() - outage.since
      log.info(
        { failures: outage.failures, unavailableMs: lasted },
        `database reachable again after ${seconds(lasted)} (${outage.failures} failure${outage.failures === 1 ? '' : 's'} meanwhile); carrying on`,
      )
      outage = null
    },
    get unavailable() {
      return outage !== null
    },
  }
}
