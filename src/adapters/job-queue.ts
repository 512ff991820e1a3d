// Durable background jobs on pg-boss, in the same database as the orders (PGlite or PostgreSQL), so a job is
// enqueued in the same transaction as the state change that causes it. Job ids are derived from each job's
// deterministic key: pg-boss inserts with ON CONFLICT DO NOTHING, so enqueuing the same work twice (a step
// re-run after a crash) adds nothing.
import { createHash } from 'node:crypto'
import type pg from 'pg'
import { fromPglite, PgBoss } from 'pg-boss'
import { asDatabaseUnavailable, DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import type { JobName, JobPayloads, JobRequest } from '../domain/jobs.ts'
import type { Database, Queryable } from './database.ts'
import { DATABASE_CONNECT_TIMEOUT_MS, hearEveryClientError, PgliteDatabase } from './database.ts'
import { createWakeUpListener, type Listen } from './wake-up-listener.ts'

export type { JobName, JobRequest }

/** A definition for every job an order change can cause (jobs/registry.ts builds it). */
export type JobDefinitions = { readonly [N in JobName]: JobDefinition<JobPayloads[N]> }

/**
 * What a service needs of the queue: adding jobs in the transaction of the change that causes them, or the
 * statement that adds them, to run inside a statement of its own.
 */
export type JobEnqueuer = Pick<JobQueue, 'enqueue' | 'insertStatement'>

/** Workers prove they are alive this often (pg-boss's minimum is 10 s). */
const HEARTBEAT_SECONDS = 10
/** pg-boss's supervision (heartbeat takeover, expiry) runs this often while a job is running anywhere. */
const SUPERVISE_SECONDS = 5
/**
 * ... and this often while none is: what is left to do then (queue statistics, deleting old jobs) can wait, and
 * on PGlite a supervision pass costs about 0.1 s of CPU.
 */
const IDLE_SUPERVISE_SECONDS = 300
/**
 * pg-boss's own polling of each worker: a backstop only. The due-job check (see openJobQueue) wakes the workers
 * of a queue when it has work; 29 workers polling every second were most of the idle cost.
 */
const WORKER_BACKSTOP_SECONDS = 300
/** pg-boss's cron: how often schedules are checked and a due one turned into its job (its maximum; ours are minutes apart). */
const CRON_WORKER_SECONDS = 45
/** A failed job's retry is due after its backoff; the check that arms its wake-up runs this long after the failure. */
const CHECK_AFTER_FAILURE_MS = 1000

/**
 * The longest a due-job check waits for a job coming due later (a draft's 30-day expiry, a long pause window): a
 * timer longer than 2^31-1 ms fires at once in Node (TimeoutOverflowWarning), which made the check run in a loop.
 * A check a day later just arms the next wait.
 */
const LONGEST_CHECK_WAIT_MS = 86_400_000

/** While the database is unreachable, a job that failed for it asks again this often whether it is back. */
const DATABASE_PROBE_INTERVAL_MS = 1_000

/** How one kind of job runs; `handler` takes the payload the job was enqueued with. */
export interface JobDefinition<Payload> {
  handler: (data: Payload) => Promise<void>
  /** Jobs of this kind run at most this many at a time in one process. */
  concurrency: number
  /** pg-boss retries a job that threw or whose process died, this many times, with backoff. */
  retryLimit: number
  /** A job running longer than this is considered lost (its process died) and retried. */
  expireInSeconds: number
}

export interface JobQueue {
  /** Adds jobs in the caller's transaction (or on their own when `tx` is null). */
  enqueue(tx: Queryable | null, jobs: readonly JobRequest[]): Promise<void>
  /**
   * The one statement the queue would run to add `jobs` (all of one name), with its one parameter (the jobs as
   * JSON text), for a caller that runs it inside a statement of its own: an order is created in one round trip,
   * its start job included (create_order in the migrations). The statement is pg-boss's own, so the queue's
   * tables stay pg-boss's business.
   */
  insertStatement(jobs: readonly JobRequest[]): Promise<{ text: string; parameter: string }>
  /**
   * Starts working every job of the registry in this process. `checkIntervalSeconds`: how often the queue looks
   * for jobs that are due (or come due) without a wake-up of their own (see openJobQueue).
   */
  work(registry: JobDefinitions, options: { checkIntervalSeconds: number }): Promise<void>
  /** Registers a job that runs on a cron schedule (once across all processes). */
  schedule(name: string, cron: string, definition: JobDefinition<Record<string, never>>): Promise<void>
  /**
   * Puts a job the queue gave up on back in the queue, under its own id, to run now: a job that failed for
   * good (its retries spent) or was cancelled goes back to waiting, one that is gone (deleted after failing)
   * is inserted again. A job still waiting, running or completed is left alone. Returns whether it was put
   * back (two processes calling at once may both say so; the job is put back once: each change is conditional
   * on the job's state, and an insert of an existing id adds nothing).
   */
  requeueAbandoned(job: JobRequest): Promise<boolean>
  /**
   * Jobs not finished, by queue and state: `queued` (due now), `deferred` (due later: retries, pause windows)
   * and `active` (running). Finished jobs are not counted: they only wait for pg-boss to delete them.
   */
  countJobs(): Promise<{ name: string; state: string; count: number }[]>
  /** Resolves when pg-boss's own connection reaches its tables (readiness); throws otherwise. */
  checkReachable(): Promise<void>
  stop(): Promise<void>
}

/** A UUID (version 5 layout) from a job key: the same key always gives the same id. */
export function jobIdFromKey(key: string): string {
  const hash = createHash('sha1').update(`printroute:${key}`).digest()
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/**
 * Whether a job's start time is still ahead. One that is not is enqueued without it, due from the start of the
 * enqueuing transaction: pg-boss wakes workers only for jobs due by then, and a time taken as "now" inside the
 * transaction (a simulated lab step with `--sim-lab-step 0`, computed while the submission is applied) lies a
 * moment after its start, so the job would wait for the next poll. Due at once either way; only the wake-up
 * differs. Compared with the real time, which is the database's: a test's manual clock does not move jobs.
 */
function isLater(startAfter: Date | undefined): startAfter is Date {
  return startAfter !== undefined && startAfter.getTime() > Date.now()
}

/** Runs `work` on pg-boss's own pool, its errors saying "unreachable" as printroute's database does. */
async function onBossPool<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw asDatabaseUnavailable(error)
  }
}

/**
 * Waits until the database answers again, for the jobs that failed because it did not: one probe at a time for
 * the whole process, however many jobs wait, and only as long as one of them still does. Resolves true once a
 * probe succeeds, false at `deadline` (ms since the epoch).
 */
function createDatabaseWaiter(db: Database) {
  let probing: Promise<boolean> | null = null
  let until = 0
  const probe = async (): Promise<boolean> => {
    for (;;) {
      try {
        await db.query('SELECT 1')
        return true
      } catch {
        if (Date.now() >= until) return false
        await new Promise((resolve) => setTimeout(resolve, DATABASE_PROBE_INTERVAL_MS))
      }
    }
  }
  return async (deadline: number): Promise<boolean> => {
    until = Math.max(until, deadline)
    probing ??= probe().finally(() => {
      probing = null
    })
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))
    })
    try {
      return await Promise.race([probing, late])
    } finally {
      clearTimeout(timer)
    }
  }
}

function asBossDatabase(tx: Queryable) {
  return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values ?? []) }) }
}

export interface JobQueueOptions {
  db: Database
  /** PostgreSQL connection string (pg-boss keeps its own pool there); unused with PGlite. */
  connectionString: string | null
  /** Schema of pg-boss's tables. */
  schema: string
  /**
   * Every queue, created at start: creating one later from inside a transaction would wait on PGlite's
   * single connection, which that transaction holds.
   */
  queues: readonly string[]
  /**
   * Whether this process works jobs. Only then does it listen for wake-ups: every process's inserts send them,
   * but a process without workers (an API process beside worker processes) would only be woken for nothing, on
   * a connection of its own, once per job.
   */
  runsWorkers: boolean
  onError: (error: Error) => void
}

/** A schema name as a quoted SQL identifier (tests use generated names; pg-boss quotes nothing itself). */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * pg-boss's insert statement of each queue, wrapped in a PL/pgSQL function in the queue's schema, so that
 * PostgreSQL plans it once per connection instead of on every insert: run as a statement of its own (or by
 * EXECUTE inside create_order) it was planned each time, which cost 1-3 ms on PostgreSQL, most of the time an
 * order's creation took. The function's body is pg-boss's text unchanged (`$1` is the function's parameter), and
 * is replaced on each start, so it follows the installed pg-boss. Returns the statement that calls it, taking
 * the same parameter; when the text cannot be wrapped (a form that returns no rows), the text itself.
 */
function createInsertFunctions(db: Database, schema: string) {
  const calls = new Map<string, Promise<string>>()
  async function create(name: string, text: string): Promise<string> {
    if (!/^\s*WITH\b/.test(text) || !/\bSELECT id FROM ins\b/.test(text)) return text
    const fn = `${quoteIdentifier(schema)}.${quoteIdentifier(`printroute_insert_${name.replaceAll('-', '_')}`)}`
    await db.transaction(async (tx) => {
      // Processes starting together replace the function one at a time (concurrent CREATE OR REPLACE fails).
      await tx.query('SELECT pg_advisory_xact_lock(8232311)')
      await tx.exec(
        `CREATE OR REPLACE FUNCTION ${fn}(jobs text) RETURNS SETOF uuid LANGUAGE plpgsql AS $printroute$
         BEGIN RETURN QUERY ${text}; END $printroute$`,
      )
    })
    return `SELECT ${fn}($1)`
  }
  return {
    callOf(name: string, text: string): Promise<string> {
      let call = calls.get(name)
      if (!call) {
        call = create(name, text)
        calls.set(name, call)
        call.catch(() => calls.delete(name))
      }
      return call
    },
  }
}

/** pg-boss's polling of every worker: the backstop only (workers are woken; see openJobQueue). */
const backstopPolling = {
  batchSize: 1,
  pollingIntervalSeconds: WORKER_BACKSTOP_SECONDS,
  notifyPollingIntervalSeconds: WORKER_BACKSTOP_SECONDS,
}

/**
 * The due-job check of one process (see openJobQueue): wakes the workers of queues with due jobs, arms a timer
 * for the next job coming due, and paces pg-boss's supervision by whether any job is running.
 */
function createDueJobWatcher(boss: PgBoss, options: Pick<JobQueueOptions, 'db' | 'schema' | 'onError'>) {
  const workerIds = new Map<string, string[]>()
  let intervalMs = 0
  let started = false
  let stopped = false
  /** Jobs this process is running now, and whether the last check saw any running anywhere. */
  let runningHere = 0
  let runningAnywhere = false
  let lastSupervised = 0
  let supervising: Promise<void> | null = null
  let checking: Promise<void> | null = null
  /** The next check: when, and its timer. */
  let next: { at: number; timer: NodeJS.Timeout } | null = null
  const table = `${quoteIdentifier(options.schema)}.job`

  const wake = (name: string) => {
    for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id)
  }
  /** Runs a check in `ms` (at most a day: see LONGEST_CHECK_WAIT_MS) unless one is armed sooner. */
  const checkIn = (ms: number) => {
    if (!started || stopped) return
    const at = Date.now() + Math.min(Math.max(ms, 0), LONGEST_CHECK_WAIT_MS)
    if (next && next.at <= at) return
    if (next) clearTimeout(next.timer)
    const timer = setTimeout(() => {
      next = null
      void check()
    }, at - Date.now())
    // Timers never keep a stopping process alive.
    timer.unref()
    next = { at, timer }
  }
  const supervisePace = () => (runningHere > 0 || runningAnywhere ? SUPERVISE_SECONDS : IDLE_SUPERVISE_SECONDS) * 1000
  const superviseIfDue = () => {
    if (supervising || stopped || Date.now() - lastSupervised < supervisePace()) return
    lastSupervised = Date.now()
    supervising = boss
      .supervise()
      .catch((error: Error) => options.onError(error))
      .finally(() => {
        supervising = null
        // A job supervision failed (expired, or its worker's heartbeat stopped) is retried after a backoff.
        checkIn(CHECK_AFTER_FAILURE_MS)
      })
  }
  const check = (): Promise<void> => {
    if (checking) return checking
    checking = (async () => {
      try {
        // Unfinished jobs only: the rows pg-boss's own fetch indexes cover. Seconds to the next due job are
        // measured by the database's clock, which decides when pg-boss hands it out.
        const rows = await options.db.query<{ name: string; due: boolean; running: boolean; seconds: number | null }>(
          `SELECT name,
                  bool_or(state < 'active' AND start_after <= now()) AS due,
                  bool_or(state = 'active') AS running,
                  extract(epoch FROM min(start_after) FILTER (WHERE state < 'active' AND start_after > now()) - now())::float8
                    AS seconds
             FROM ${table}
            WHERE state < 'completed'
            GROUP BY name`,
        )
        runningAnywhere = rows.some((row) => row.running)
        for (const row of rows) {
          if (row.due) wake(row.name)
          // A few milliseconds late, so the job is due by the database's clock when the workers fetch.
          if (row.seconds !== null) checkIn(Math.ceil(Number(row.seconds) * 1000) + 10)
        }
      } catch (error) {
        options.onError(error as Error)
      } finally {
        checking = null
      }
      superviseIfDue()
      checkIn(runningHere > 0 || runningAnywhere ? Math.min(intervalMs, SUPERVISE_SECONDS * 1000) : intervalMs)
    })()
    return checking
  }

  return {
    wake,
    addWorker(name: string, id: string) {
      workerIds.set(name, [...(workerIds.get(name) ?? []), id])
    },
    /** Checks now, then every `intervalSeconds`. */
    start(intervalSeconds: number) {
      intervalMs = intervalSeconds * 1000
      started = true
      void check()
    },
    /** Jobs about to be enqueued here: a check when the first of those due later comes due. */
    expect(jobs: readonly JobRequest[]) {
      for (const job of jobs) if (isLater(job.startAfter)) checkIn(job.startAfter.getTime() - Date.now() + 10)
    },
    /** Runs one job's handler, counted as running; a failure's retry gets a check. */
    async running(handler: () => Promise<void>) {
      runningHere++
      // Supervision keeps its running pace from the job's start.
      checkIn(SUPERVISE_SECONDS * 1000)
      try {
        await handler()
      } catch (error) {
        checkIn(CHECK_AFTER_FAILURE_MS)
        throw error
      } finally {
        runningHere--
      }
    },
    async stop() {
      stopped = true
      if (next) clearTimeout(next.timer)
      next = null
      await checking
      await supervising
    },
  }
}

export async function openJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  // A job whose worker died (kill -9, power loss) stops sending heartbeats; supervision, every
  // SUPERVISE_SECONDS while jobs run, hands it to another worker once HEARTBEAT_SECONDS have passed without one.
  // pg-boss checks each queue's heartbeats in its monitor pass, which runs at most every monitorIntervalSeconds,
  // so the monitor keeps supervision's pace. Supervision is driven from here (`supervise: false` only disarms
  // pg-boss's own timer, and its flow poller, unused here): at that pace while a job is running anywhere, every
  // IDLE_SUPERVISE_SECONDS otherwise.
  //
  // Workers are woken when work arrives instead of polling for it:
  //  - each queue opts in to pg-boss's LISTEN/NOTIFY, whose insert sends a pg_notify in the inserting
  //    transaction, so the notification reaches listeners only once the job is committed and visible (PostgreSQL
  //    and PGlite alike). A notification is only a hint: the worker then runs its usual locking fetch;
  //  - jobs due later (a retry's backoff, a simulated lab step, a pause window) send none: one due-job check per
  //    process, one statement over the unfinished jobs of every queue, wakes the workers of each queue with due
  //    jobs and arms a timer for the next job coming due. It runs every `checkIntervalSeconds` (2 s on PostgreSQL,
  //    where other processes enqueue too; on PGlite, one process, every enqueue and failure here arms the timer
  //    itself and the periodic check is a backstop), and when a job enqueued here, or a failed one's retry, comes
  //    due.
  // pg-boss's own polling stays as a last backstop (WORKER_BACKSTOP_SECONDS), so crash safety is what it was.
  // Only a process that runs workers listens, checks and supervises (`runsWorkers`); every process's inserts
  // notify.
  const common = {
    schema: options.schema,
    supervise: false,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    useListenNotify: options.runsWorkers,
    // The cron (scheduled jobs) runs in processes that work jobs; it is claimed once across them.
    schedule: options.runsWorkers,
    cronWorkerIntervalSeconds: CRON_WORKER_SECONDS,
    cronMonitorIntervalSeconds: CRON_WORKER_SECONDS,
  }
  const boss =
    options.db instanceof PgliteDatabase
      ? new PgBoss({ ...common, db: fromPglite(options.db.client), backend: 'pglite' })
      : new PgBoss({
          ...common,
          connectionString: options.connectionString ?? undefined,
          max: 4,
          connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS,
        })
  if (!(options.db instanceof PgliteDatabase)) {
    // pg-boss's own LISTEN connection could end the process after a database restart
    // (adapters/wake-up-listener.ts): the Db pg-boss made from the connection string listens with ours instead.
    // The Db is pg-boss's until start() opens it, and start() is what begins listening.
    const bossDb = boss.getDb() as unknown as {
      listen: Listen
      config: pg.ClientConfig
      open(): Promise<void>
      pool: pg.Pool
    }
    bossDb.listen = createWakeUpListener({ connection: bossDb.config, onError: options.onError })
    // pg-boss's pool, made by open(), has the gap our own pool had (adapters/database.ts): its transactions'
    // connections are also heard from the moment they connect.
    const openPool = bossDb.open.bind(bossDb)
    bossDb.open = async () => {
      await openPool()
      hearEveryClientError(bossDb.pool)
    }
  }
  boss.on('error', options.onError)
  await boss.start()
  const existing = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]))
  for (const name of options.queues) {
    const queue = existing.get(name)
    if (!queue) {
      await boss.createQueue(name, {
        retryLimit: 5,
        retryDelay: 5,
        retryBackoff: true,
        heartbeatSeconds: HEARTBEAT_SECONDS,
        notify: true,
      })
    } else if (!queue.notify) {
      // Queues created before wake-ups existed opt in once.
      await boss.updateQueue(name, { notify: true })
    }
    // pg-boss looks a queue up (and caches it) on its first insert, through its own connection; done
    // inside a PGlite transaction that lookup would wait for the transaction holding the connection.
    // An empty insert now fills the cache.
    await boss.insert(name, [])
  }

  const watcher = createDueJobWatcher(boss, options)
  const insertFunctions = createInsertFunctions(options.db, options.schema)
  const waitForDatabase = createDatabaseWaiter(options.db)
  /**
   * A job whose handler failed because the database was unreachable runs again in this worker once it answers,
   * within half the job's time: the job stays active meanwhile (no retry spent, no wait for pg-boss's backoff or
   * its supervisor). Past that, the failure goes to pg-boss, which retries the job. Either way the step runs
   * again from the start, which every handler allows (docs/pipeline.md).
   */
  const outlastingOutages = async (run: () => Promise<void>, expireInSeconds: number) => {
    const deadline = Date.now() + (expireInSeconds * 1000) / 2
    for (;;) {
      try {
        return await run()
      } catch (error) {
        if (!(error instanceof DatabaseUnavailableError) || !(await waitForDatabase(deadline))) throw error
      }
    }
  }
  const insertCalls = new Map<string, Promise<string>>()
  const toBossJobs = (list: readonly JobRequest[]) =>
    list.map((job) => ({
      id: jobIdFromKey(job.key),
      data: job.data,
      ...(isLater(job.startAfter) ? { startAfter: job.startAfter } : {}),
    }))

  return {
    async enqueue(tx, jobs) {
      watcher.expect(jobs)
      const byName = new Map<string, JobRequest[]>()
      for (const job of jobs) byName.set(job.name, [...(byName.get(job.name) ?? []), job])
      for (const [name, list] of byName) {
        if (tx) await boss.insert(name, toBossJobs(list), { db: asBossDatabase(tx) })
        else await onBossPool(() => boss.insert(name, toBossJobs(list)))
      }
    },

    async insertStatement(jobs) {
      const name = jobs[0]?.name
      if (!name || jobs.some((job) => job.name !== name)) throw new Error('insertStatement takes jobs of one name')
      watcher.expect(jobs)
      const parameter = JSON.stringify(toBossJobs(jobs))
      const known = insertCalls.get(name)
      if (known) return { text: await known, parameter }
      // pg-boss's insert runs exactly one statement through the `db` it is given; this one records it instead.
      let recorded: { text: string; parameter: string } | undefined
      const recorder = {
        executeSql: async (text: string, values?: unknown[]) => {
          recorded = { text, parameter: String(values?.[0]) }
          return { rows: [] }
        },
      }
      await boss.insert(name, toBossJobs(jobs), { db: recorder })
      if (!recorded || recorded.parameter === 'undefined') throw new Error('pg-boss ran no insert statement')
      const call = insertFunctions.callOf(name, recorded.text)
      // The statement's text depends on the queue only. Its parameter is the jobs as given, unless pg-boss
      // rewrote them: then every later insert asks pg-boss again instead of reusing this one's text.
      if (recorded.parameter === parameter) insertCalls.set(name, call)
      return { text: await call, parameter: recorded.parameter }
    },

    async work(registry, workOptions) {
      // Each queue holds only jobs enqueued from a JobRequest of its name, so its payloads are that name's.
      for (const [name, definition] of Object.entries(registry) as [JobName, JobDefinition<unknown>][]) {
        await boss.updateQueue(name, {
          retryLimit: definition.retryLimit,
          expireInSeconds: definition.expireInSeconds,
        })
        // One pg-boss worker per unit of concurrency, each fetching again at once after a job: pg-boss's worker
        // otherwise waits out its polling interval after every job unless a wake-up came meanwhile, and wake-ups
        // coalesce, so a backlog (50 orders created at once) drained at one job per worker per poll. An empty
        // fetch ends the run; the worker then waits for a wake-up.
        for (let index = 0; index < definition.concurrency; index++) {
          let workerId: string | undefined
          workerId = await boss.work(name, backstopPolling, async (jobs) => {
            for (const job of jobs) {
              await watcher.running(() =>
                outlastingOutages(() => definition.handler(job.data), definition.expireInSeconds),
              )
            }
            if (workerId) boss.notifyWorker(workerId)
          })
          watcher.addWorker(name, workerId)
        }
      }
      watcher.start(workOptions.checkIntervalSeconds)
    },

    async schedule(name, cron, definition) {
      await boss.updateQueue(name, { retryLimit: definition.retryLimit, expireInSeconds: definition.expireInSeconds })
      await boss.schedule(name, cron, {})
      const workerId = await boss.work(name, backstopPolling, async () => {
        await watcher.running(() => definition.handler({}))
      })
      watcher.addWorker(name, workerId)
    },

    requeueAbandoned: (job) =>
      onBossPool(async () => {
        const id = jobIdFromKey(job.key)
        const found = await boss.getJobById(job.name, id)
        if (!found) {
          // ON CONFLICT DO NOTHING: a job another process has just put back stays as it is.
          await boss.insert(job.name, [{ id, data: job.data }])
          watcher.wake(job.name)
          return true
        }
        // retry() gives a failed job one more try (its retry limit + 1); resume() makes a cancelled one wait
        // again. Both change only a job still in that state, so a concurrent call changes nothing more.
        if (found.state === 'failed') await boss.retry(job.name, id)
        else if (found.state === 'cancelled') await boss.resume(job.name, id)
        else return false
        // Put back without a notification: this process's workers are woken here, other processes' by their check.
        watcher.wake(job.name)
        return true
      }),

    async countJobs() {
      // Unfinished jobs only (states before 'completed' in pg-boss's ordered enum): the rows pg-boss's own
      // fetch indexes cover, a number that stays small while workers keep up. At most queues x 3 rows.
      const rows = await options.db.query<{ name: string; state: string; count: number | string }>(
        `SELECT name,
                CASE WHEN state = 'active' THEN 'active'
                     WHEN start_after > now() THEN 'deferred'
                     ELSE 'queued' END AS state,
                count(*) AS count
           FROM ${quoteIdentifier(options.schema)}.job
          WHERE state < 'completed'
          GROUP BY 1, 2`,
      )
      return rows.map((row) => ({ name: row.name, state: row.state, count: Number(row.count) }))
    },

    async checkReachable() {
      await onBossPool(() => boss.getDb().executeSql(`SELECT version FROM ${quoteIdentifier(options.schema)}.version`))
    },

    async stop() {
      await watcher.stop()
      await boss.stop({ graceful: true, timeout: 10_000 })
    },
  }
}
