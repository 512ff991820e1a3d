// Readiness of this process for operators (GET /readyz, docs/operations.md): the database answers, the job
// queue is reachable, the blob store takes a write. Each check is cheap and bounded by a timeout, so a stuck
// dependency makes the answer "not ready" rather than a request that hangs.
import { databaseUnavailableReason } from '../domain/database-unavailable.ts'
import type { ServiceLogger } from './observability.ts'

/** How long one check may take before it counts as failed (a load balancer's probe usually waits 1 to 5 s). */
export const READINESS_CHECK_TIMEOUT_MS = 2_000

export const READINESS_CHECKS = ['database', 'jobQueue', 'blobStore'] as const
export type ReadinessCheckName = (typeof READINESS_CHECKS)[number]

export interface CheckResult {
  ok: boolean
  /** How long the check took (up to the timeout). */
  ms: number
  /** Why it failed, in words that reveal nothing about the infrastructure (the log has the details). */
  error?: string
}

export interface Readiness {
  ready: boolean
  checks: Record<ReadinessCheckName, CheckResult>
  /** The catalogue version this process serves (docs/catalogue.md#switching); absent when it has none. */
  catalogueVersion?: number
}

/**
 * The process's outage log (adapters/database-outage-log.ts), as the health service uses it: a check that finds
 * the database unreachable is one more failure of the outage it reports, which says so once and reminds once a
 * minute, however often a load balancer asks.
 */
export interface DatabaseOutageReports {
  failed(reason: string): void
  /** Whether an outage is being reported now. */
  readonly unavailable: boolean
}

export interface HealthDeps {
  /** Each check resolves when the dependency works and throws (or never settles) when it does not. */
  checks: Record<ReadinessCheckName, () => Promise<void>>
  timeoutMs?: number
  log: ServiceLogger
  outage: DatabaseOutageReports
  /** The catalogue version served now, reported with every answer. */
  catalogueVersion?: () => number | null
}

class CheckTimedOut extends Error {}

async function withTimeout(work: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimedOut()), timeoutMs)
  })
  try {
    await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Whether this process can serve: GET /readyz. */
export interface HealthService {
  /** Runs every readiness check at once; ready when all pass, with each check's result and time. */
  readiness(): Promise<Readiness>
}

export function createHealthService(deps: HealthDeps): HealthService {
  const timeoutMs = deps.timeoutMs ?? READINESS_CHECK_TIMEOUT_MS

  async function run(name: ReadinessCheckName): Promise<CheckResult> {
    const started = performance.now()
    const ms = () => Math.round(performance.now() - started)
    try {
      // Started inside the try: a check that throws synchronously is a failed check too.
      await withTimeout(
        Promise.resolve().then(() => deps.checks[name]()),
        timeoutMs,
      )
      return { ok: true, ms: ms() }
    } catch (error) {
      const timedOut = error instanceof CheckTimedOut
      const reason = timedOut ? `timed out after ${timeoutMs} ms` : 'failed'
      // An unreachable database is the outage log's to report, once per outage and not once per probe (a load
      // balancer asks every few seconds, and two checks need the database). A check that timed out while that
      // outage lasts is the same outage; one that timed out otherwise (a pool kept busy) is worth its own line.
      const unavailable = timedOut ? null : databaseUnavailableReason(error)
      if (unavailable !== null) deps.outage.failed(unavailable)
      else if (!(timedOut && deps.outage.unavailable)) {
        deps.log.warn({ check: name, ...(timedOut ? {} : { err: error }) }, `readiness check ${name} ${reason}`)
      }
      return { ok: false, ms: ms(), error: reason }
    }
  }

  return {
    /** Runs every check at once; ready when all pass. */
    async readiness(): Promise<Readiness> {
      const results = await Promise.all(READINESS_CHECKS.map(run))
      const checks = Object.fromEntries(READINESS_CHECKS.map((name, index) => [name, results[index]])) as Record<
        ReadinessCheckName,
        CheckResult
      >
      const catalogueVersion = deps.catalogueVersion?.() ?? null
      return {
        ready: results.every((result) => result.ok),
        checks,
        ...(catalogueVersion === null ? {} : { catalogueVersion }),
      }
    },
  }
}
