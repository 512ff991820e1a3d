// One server under benchmark, in its own process so the load generator does not share its event loop.
// Usage: node bench/bench-server.ts bare|pglite|postgres [off|memory|database]
// The second argument is the rate limit: none (default), counted in memory, or in the database's shared
// counters (PostgreSQL); a budget too large to be reached, so what is measured is the counting.
// Prints one JSON line {port, key, orderId} when ready; stops on SIGTERM.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import pg from 'pg'
import { type Database, PgliteDatabase, PostgresDatabase } from '../src/adapters/database.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { buildApplication } from '../src/app.ts'
import { CreateOrderRequestSchema } from '../src/http/schemas/order.schema.ts'
import { validatorCompiler } from '../src/http/validation.ts'
import { BENCH_ORDER } from './bench-order.ts'

const mode = process.argv[2]
const rateLimitMode = process.argv[3] ?? 'off'
const UNREACHABLE_LIMIT = { max: 1_000_000_000, windowMilliseconds: 60_000 }
const POSTGRES_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'

async function startBare() {
  // The baseline: Fastify with the same body schema and validator, and nothing else.
  const app = Fastify({ logger: false })
  app.setValidatorCompiler(validatorCompiler)
  app.post('/v4.0/orders', { schema: { body: CreateOrderRequestSchema } }, async () => ({ outcome: 'Ok' }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    key: '',
    orderId: '',
    stop: () => app.close(),
  }
}

async function startPrintroute(kind: 'pglite' | 'postgres') {
  const schemaName = `printroute_bench_${randomBytes(4).toString('hex')}`
  let db: Database
  let cleanup = async () => {}
  if (kind === 'pglite') {
    db = await PgliteDatabase.open()
  } else {
    const schema = schemaName
    const admin = new pg.Client({ connectionString: POSTGRES_URL })
    await admin.connect()
    await admin.query(`CREATE SCHEMA ${schema}`)
    db = await PostgresDatabase.open(POSTGRES_URL, { searchPath: schema, maxConnections: 20 })
    cleanup = async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`)
      await admin.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`)
      await admin.end()
    }
  }
  await migrate(db)
  const filesDir = mkdtempSync(join(tmpdir(), 'printroute-bench-files-'))
  const app = await buildApplication({
    db,
    databaseUrl: kind === 'postgres' ? POSTGRES_URL : null,
    jobSchema: kind === 'postgres' ? `${schemaName}_jobs` : 'pgboss',
    logger: false,
    filesDir,
    // The API benchmark measures the API: the jobs its orders cause are left queued.
    workers: false,
    rateLimit: rateLimitMode === 'off' ? null : UNREACHABLE_LIMIT,
    rateLimitInMemory: rateLimitMode === 'memory',
  })
  const account = await app.services.accounts.createAccount(
    {
      name: 'bench',
      billingCurrency: 'GBP',
      pauseWindowSeconds: 0,
      callbackUrl: null,
    },
    // The benchmark's own setup: printroute, as the audit trail names it.
    { kind: 'system' },
  )
  const key = account.keys.sandbox.key
  const created = await app.sandbox.inject({
    method: 'POST',
    url: '/v4.0/orders',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: BENCH_ORDER,
  })
  const orderId = JSON.parse(created.body).order.id as string
  await app.sandbox.listen({ host: '127.0.0.1', port: 0 })
  const address = app.sandbox.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    key,
    orderId,
    stop: async () => {
      await app.close()
      await db.close()
      await cleanup()
      rmSync(filesDir, { recursive: true, force: true })
    },
  }
}

const server = mode === 'bare' ? await startBare() : await startPrintroute(mode === 'postgres' ? 'postgres' : 'pglite')
process.stdout.write(`${JSON.stringify({ port: server.port, key: server.key, orderId: server.orderId })}\n`)
process.once('SIGTERM', async () => {
  await server.stop()
  process.exit(0)
})
