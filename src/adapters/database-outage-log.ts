// What a process says while its database is away: one line when the first failure shows the database is
// unreachable, saying what the process does about it; a reminder at most once a minute while it lasts, with the
// number of failures meanwhile; one line when a connection succeeds again. Every pool error, refused connection
// and failed fetch of every worker would otherwise be a line of its own (dozens a second) with the driver's
// objects in it. The lines name a code or condition only (docs/operations.md#when-the-database-goes-away).

/** While an outage lasts, a reminder at most this often. */
export const OUTAGE_REMINDER_MS = 60_000
/** While an outage lasts, whether the database answers again is asked this often. */
export const OUTAGE_PROBE_MS = 2_000

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
  /** Stops probing (the process is stopping). */
  stop(): void
}

/** Reasons met when opening a connection; the others end one that was open. */
const REFUSALS = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOST|ENET|ETIMEDOUT|connection timeout|57P03|53300)/

function firstWords(reason: string): string {
  return REFUSALS.test(reason) ? 'database unreachable' : 'database connection lost'
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`
}

export function createDatabaseOutageLog(
  log: OutageLogger,
  options: {
    /** What the process does meanwhile, e.g. "requests answer 503 until it is back". */
    consequence: string
    /**
     * Resolves when the database answers. Run every OUTAGE_PROBE_MS during an outage, so its end is seen (and
     * said) even when nothing else asks the database: an idle API process, or failures only pg-boss's own
     * connections saw, which reconnect by themselves.
     */
    probe?: () => Promise<void>
    now?: () => number
  },
): DatabaseOutageLog {
  const now = options.now ?? Date.now
  let outage: { since: number; failures: number; lastLine: number; reason: string } | null = null
  let probing: NodeJS.Timeout | undefined
  let stopped = false
  const scheduleProbe = () => {
    if (!options.probe || probing || stopped) return
    probing = setTimeout(() => {
      options.probe?.().then(
        () => {
          probing = undefined
          self.reachable()
        },
        () => {
          probing = undefined
          if (outage) scheduleProbe()
        },
      )
    }, OUTAGE_PROBE_MS)
    // The probe never keeps a process alive that has nothing else to do.
    probing.unref()
  }
  const self: DatabaseOutageLog = {
    failed(reason) {
      const at = now()
      if (!outage) {
        outage = { since: at, failures: 1, lastLine: at, reason }
        log.warn({ reason }, `${firstWords(reason)} (${reason}); ${options.consequence}`)
        scheduleProbe()
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
    stop() {
      stopped = true
      clearTimeout(probing)
    },
  }
  return self
}
