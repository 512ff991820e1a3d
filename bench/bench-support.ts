// Pieces the benchmarks share: test photos, the vips command line, PostgreSQL reachability and the
// docs/benchmarks.md block each benchmark rewrites.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import pino from 'pino'
import sharp from 'sharp'
import { type Database, PgliteDatabase, PostgresDatabase } from '../src/adapters/database.ts'
import { PRINT_JPEG_QUALITY } from '../src/adapters/image-renderer.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { type Application, type ApplicationOptions, buildApplication } from '../src/app.ts'

export const BENCHMARKS_MD = join(import.meta.dirname, '..', 'docs', 'benchmarks.md')

/**
 * vipsthumbnail arguments matching the renderer: sRGB transform with the profile embedded (`-i`/`-e`; `strip`
 * would drop the profile too), quality, 4:4:4 chroma, no Huffman optimisation.
 */
export const VIPS_PROFILE_ARGS = ['--import-profile', 'srgb', '--export-profile', 'srgb']
export const VIPS_SAVE_OPTIONS = `[Q=${PRINT_JPEG_QUALITY},subsample-mode=off,optimize-coding=false]`

/** The vips version; installs Debian's libvips-tools first when `vipsthumbnail` is missing (benchmarks only). */
export function ensureVips(): string {
  const version = () => execFileSync('vipsthumbnail', ['--vips-version'], { encoding: 'utf8' }).trim()
  try {
    return version()
  } catch {
    process.stderr.write('vipsthumbnail not found: installing libvips-tools with apt-get ...\n')
  }
  const install = () => execFileSync('apt-get', ['install', '-y', 'libvips-tools'], { stdio: 'inherit' })
  try {
    install()
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' })
    install()
  }
  return version()
}

/**
 * A camera-like JPEG: smooth colour regions (a 16x12 grid of random colours, enlarged with a cubic kernel)
 * under fine grain (Gaussian noise, soft-light blended), saved at quality 92 with 4:2:0 chroma like a camera.
 * Pure noise would make decoding unrealistically slow; flat colour, unrealistically fast.
 */
export async function cameraLikeJpeg(width: number, height: number): Promise<Buffer> {
  const cells = Buffer.from(Array.from({ length: 16 * 12 * 3 }, () => Math.floor(Math.random() * 256)))
  const grain = await sharp({
    create: { width, height, channels: 3, background: 'grey', noise: { type: 'gaussian', mean: 128, sigma: 28 } },
  })
    .raw()
    .toBuffer()
  const base = await sharp(cells, { raw: { width: 16, height: 12, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer()
  return sharp(base, { raw: { width, height, channels: 3 } })
    .composite([{ input: grain, raw: { width, height, channels: 3 }, blend: 'soft-light' }])
    .jpeg({ quality: 92, chromaSubsampling: '4:2:0' })
    .toBuffer()
}

export async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

/** A migrated, empty database for one benchmark run; `drop` closes it (and drops its schemas on PostgreSQL). */
export interface BenchDatabase {
  db: Database
  /** The PostgreSQL URL for pg-boss's own pool; null with PGlite. */
  databaseUrl: string | null
  /** Schema of pg-boss's tables. */
  jobSchema: string
  drop(): Promise<void>
}

/** What a pipeline benchmark drives: the application, its database and a Sandbox key. */
export interface BenchApplication {
  app: Application
  db: Database
  /** Schema of pg-boss's tables, for reading the job records. */
  jobSchema: string
  /** The Sandbox key of a new account. */
  sandboxKey: string
  /** A line for each warning or error the application logged so far, `<kind>: logged: ...`, for the report. */
  loggedProblems(): string[]
}

/**
 * Runs `measure` on the application built as the tests build it, on a fresh bench database of `kind`: job
 * workers on, loopback image URLs allowed and no rate limit (a benchmark's polling would exceed any per-key
 * limit, and what is measured is the pipeline). Warnings and errors the application logs are collected for the
 * report (`loggedProblems`). Closes the application and drops the database and its files afterwards.
 */
export async function withBenchApplication<T>(
  kind: 'pglite' | 'postgres',
  url: string,
  settings: Pick<ApplicationOptions, 'jobPollingSeconds' | 'pipeline' | 'catalogue'>,
  measure: (bench: BenchApplication) => Promise<T>,
): Promise<T> {
  const { db, databaseUrl, jobSchema, drop } = await openBenchDatabase(kind, url)
  const filesDir = await mkdtemp(join(tmpdir(), 'printroute-bench-files-'))
  const logged: string[] = []
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) })
  try {
    const app = await buildApplication({
      db,
      databaseUrl,
      jobSchema,
      logger,
      filesDir,
      workers: true,
      allowPrivateUrls: true,
      rateLimit: null,
      ...settings,
    })
    try {
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
      return await measure({
        app,
        db,
        jobSchema,
        sandboxKey: account.keys.sandbox.key,
        loggedProblems: () =>
          logged.map((line) => {
            const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } }
            return `${kind}: logged: ${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`
          }),
      })
    } finally {
      await app.close()
    }
  } finally {
    await drop()
    await rm(filesDir, { recursive: true, force: true })
  }
}

/** PGlite in memory, or a fresh schema (and one for pg-boss beside it) on the PostgreSQL server at `url`. */
export async function openBenchDatabase(
  kind: 'pglite' | 'postgres',
  url: string,
  options: { maxConnections?: number } = {},
): Promise<BenchDatabase> {
  if (kind === 'pglite') {
    const db = await PgliteDatabase.open()
    await migrate(db)
    return { db, databaseUrl: null, jobSchema: 'pgboss', drop: () => db.close() }
  }
  const schema = `printroute_bench_${randomBytes(4).toString('hex')}`
  const jobSchema = `${schema}_jobs`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA ${schema}`)
  } finally {
    await admin.end()
  }
  const db = await PostgresDatabase.open(url, { searchPath: schema, maxConnections: options.maxConnections })
  const drop = async () => {
    await db.close()
    const cleanup = new pg.Client({ connectionString: url })
    await cleanup.connect()
    try {
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      await cleanup.query(`DROP SCHEMA IF EXISTS ${jobSchema} CASCADE`)
    } finally {
      await cleanup.end()
    }
  }
  try {
    await migrate(db)
  } catch (error) {
    await drop()
    throw error
  }
  return { db, databaseUrl: url, jobSchema, drop }
}

/** The `q` quantile (0 to 1) of `values`, interpolated between neighbours; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return item(sorted, low) + (item(sorted, high) - item(sorted, low)) * (position - low)
}

/** The machine a benchmark ran on: CPUs, memory, Node, and the load average (the machine is shared). */
export function machineLine(): string {
  const cpu = cpus()
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')
  return `${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ${process.platform}; load average ${load}`
}

export interface ImageServer {
  base: string
  requests: number
  close(): Promise<void>
}

/** Serves each path of `files` (e.g. `/photos/a.jpg`) from memory on 127.0.0.1; the query string is ignored. */
export async function startImageServer(files: Map<string, Buffer>): Promise<ImageServer> {
  const state = { requests: 0 }
  const server = createServer((request, response) => {
    state.requests++
    const body = files.get((request.url ?? '').split('?')[0] ?? '')
    if (!body) {
      response.writeHead(404).end('not found')
      return
    }
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    base: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

export function item<T>(list: readonly T[], index: number): T {
  const value = list[index]
  if (value === undefined) throw new Error(`no item ${index}`)
  return value
}

/**
 * Replaces the text between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in docs/benchmarks.md.
 * When the markers are missing, a section `heading` with them is added before the heading `before` (if the
 * file has it) or at the end.
 */
export async function writeBenchmarksBlock(
  name: string,
  block: string,
  section: { heading: string; before?: string },
): Promise<void> {
  const start = `<!-- bench:${name}:start -->`
  const end = `<!-- bench:${name}:end -->`
  let text = await readFile(BENCHMARKS_MD, 'utf8')
  if (!text.includes(start)) {
    const added = `${section.heading}\n\n${start}\n${end}\n\n`
    const at = section.before ? text.indexOf(section.before) : -1
    text = at >= 0 ? `${text.slice(0, at)}${added}${text.slice(at)}` : `${text.trimEnd()}\n\n${added}`
  }
  const from = text.indexOf(start) + start.length
  const to = text.indexOf(end)
  if (to < from) throw new Error(`${BENCHMARKS_MD}: ${end} must follow ${start}`)
  await writeFile(BENCHMARKS_MD, `${text.slice(0, from)}\n${block.trimEnd()}\n${text.slice(to)}`)
}
