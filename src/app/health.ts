// The readiness checks of GET /readyz: the database, the job queue and the blob store.
import { randomBytes } from 'node:crypto'
import type { BlobStore } from '../adapters/blob-store.ts'
import type { JobQueue } from '../adapters/job-queue.ts'
import { createHealthService, type HealthDeps, type HealthService } from '../services/health.service.ts'
import type { ServiceLogger } from '../services/observability.ts'
import type { ApplicationOptions } from './options.ts'

/** The health service over this application's database, job queue and blob store. */
export function buildHealth(
  options: Pick<ApplicationOptions, 'db' | 'readinessTimeoutMs'>,
  {
    jobs,
    files,
    log,
    outage,
    catalogueVersion,
  }: {
    jobs: JobQueue
    files: BlobStore
    log: ServiceLogger
    outage: HealthDeps['outage']
    catalogueVersion: () => number | null
  },
): HealthService {
  return createHealthService({
    checks: {
      database: async () => {
        await options.db.query('SELECT 1')
      },
      jobQueue: () => jobs.checkReachable(),
      // A small object written and removed: proves the store takes writes (disk full, read-only, credentials).
      blobStore: async () => {
        const key = `readiness/probe-${process.pid}-${randomBytes(6).toString('hex')}`
        await files.put(key, Buffer.from('printroute readiness probe\n'), 'text/plain')
        await files.delete(key)
      },
    },
    ...(options.readinessTimeoutMs !== undefined ? { timeoutMs: options.readinessTimeoutMs } : {}),
    log,
    outage,
    catalogueVersion,
  })
}
