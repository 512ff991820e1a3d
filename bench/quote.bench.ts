// npm run bench:quote — latency of POST /v4.0/quotes for random baskets of 1, 10 and 50 items drawn from the whole
// sample catalogue and sent to destinations that between them use every lab, next to GET /v4.0/products/{sku} (the
// same server, authentication and serialisation, no catalogue work) as the baseline, run before and after the
// quotes in this one process on this machine (docs/benchmarks.md: compare ratios, not absolute figures, across
// runs). Then the time of lab allocation alone (domain/allocation/) for 12 distinct items (the largest basket
// the exact search takes) and 100 distinct items (the order limit, the heuristic), drawn at random and among the
// variants the most labs make (the hardest baskets the sample catalogue allows).
//
// The application is built in this process as the tests build it (PGlite in memory, no job workers) and driven
// with Fastify's inject, one request at a time: the figures are the server's own time per request, without a
// socket or a load generator. Quotes read the catalogue and store each quote of the answer (one INSERT, so an
// order can use its prices); the API key lookup is cached by the server.
// Baskets come from a seeded generator, so every run sends the same requests. Without `shippingMethod` a quote
// prices every method that serves the destination (up to five allocations), which is what the sizes measure;
// one row sends `shippingMethod: "Standard"` for comparison. Every quote computes delivery estimates (the sample
// catalogue has a calendar for every lab and transit days for every rate; the bench counts the quotes that carry
// one), and one row adds `deliverBy` ten days from now, which makes each method's allocation keep out the labs too
// late for it and search again when the cheapest plan misses the date. Target (docs/benchmarks.md): p99 under 20 ms
// for 10 items.
//
// Prints the report and rewrites the block between the bench:quote markers in docs/benchmarks.md. Options (env):
// BENCH_REQUESTS (requests per 1-item scenario, default 2000; 10 items get half, 50 items a tenth),
// BENCH_ALLOCATIONS (allocation runs per size, default 50), BENCH_SEED (default 5).
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { PgliteDatabase } from '../src/adapters/database.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { buildApplication } from '../src/app.ts'
import { loadCatalogue } from '../src/catalogue/catalogue.loader.ts'
import { allocateShipments, EXACT_ALLOCATION_MAX_ITEMS } from '../src/domain/allocation/allocation.ts'
import type { AllocationItem } from '../src/domain/allocation/model.ts'
import type { Variant } from '../src/domain/catalogue.types.ts'
import type { SHIPPING_METHODS } from '../src/domain/shipping-methods.ts'
import { BENCHMARKS_MD, writeBenchmarksBlock } from './bench-support.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const ALLOCATIONS = Number(process.env.BENCH_ALLOCATIONS ?? 50)
const SEED = Number(process.env.BENCH_SEED ?? 5)
/** Between them these reach every lab of the sample: domestic labs in GB, US, NL, DE, AU, CA, GB labs elsewhere. */
const DESTINATIONS = ['GB', 'US', 'DE', 'NL', 'FR', 'AU', 'NZ', 'CA', 'JP', 'CH']
/** The target (docs/benchmarks.md). */
const TARGET_P99_MS_FOR_10_ITEMS = 20

const catalogue = loadCatalogue()

/** mulberry32: a small seeded generator, so every run quotes the same baskets. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = seededRandom(SEED)
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T

/** A request item for a variant: its attributes, an asset for every required print area, pages for books. */
function requestItem(variant: Variant, copies: number) {
  const product = catalogue.findProduct(variant.sku)
  if (!product) throw new Error(`no product ${variant.sku}`)
  const pricing = product.pagePricing
  const pages = pricing
    ? pricing.minimumPages + Math.floor(random() * (pricing.maximumPages - pricing.minimumPages))
    : null
  return {
    sku: variant.sku,
    copies,
    attributes: { ...variant.attributes },
    assets: Object.values(product.printAreas)
      .filter((area) => area.required)
      .map((area) => ({
        printArea: area.name,
        ...(area.name === pricing?.pageCountPrintArea ? { pageCount: pages } : {}),
      })),
  }
}

/** A random quotable basket of `size` items to a random destination: variants that some method takes together. */
function basket(size: number, shippingMethod?: string) {
  for (;;) {
    const destination = pick(DESTINATIONS)
    const variants = Array.from({ length: size }, () => pick(pick(catalogue.products).variants))
    const methods = catalogue.shippingMethodsFor(destination, variants)
    if (methods.length === 0 || (shippingMethod && !methods.includes(shippingMethod as never))) continue
    return {
      ...(shippingMethod ? { shippingMethod } : {}),
      destinationCountryCode: destination,
      items: variants.map((variant) => requestItem(variant, 1 + Math.floor(random() * 3))),
    }
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN
}

interface Latency {
  scenario: string
  requests: number
  p50: number
  p99: number
  mean: number
}

function summarise(scenario: string, millis: number[]): Latency {
  const sorted = [...millis].sort((a, b) => a - b)
  const mean = millis.reduce((sum, value) => sum + value, 0) / millis.length
  return { scenario, requests: millis.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean }
}

// ---- the server ---------------------------------------------------------------------------------------------

const db = await PgliteDatabase.open()
await migrate(db)
const filesDir = mkdtempSync(join(tmpdir(), 'printroute-bench-quote-'))
// No rate limit: thousands of requests a minute from one key are the point here, not a client to slow down.
const app = await buildApplication({
  db,
  databaseUrl: null,
  catalogue,
  logger: false,
  filesDir,
  workers: false,
  rateLimit: null,
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
const headers = { 'x-api-key': account.keys.sandbox.key, 'content-type': 'application/json' }
const labsUsed = new Set<string>()
/** Quotes answered, those with a delivery estimate, and the DeliveryDateUnreachable issues among the answers. */
const estimates = { quotes: 0, estimated: 0, unreachable: 0 }
/** Ten days from now (UTC): near enough that some methods cannot make it, so every case of deliverBy is run. */
const DELIVER_BY = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10)

async function timeRequests(
  count: number,
  request: () => { method: 'GET' | 'POST'; url: string; payload?: unknown },
): Promise<number[]> {
  const millis: number[] = []
  for (let index = 0; index < count; index++) {
    const { method, url, payload } = request()
    const body = payload === undefined ? undefined : JSON.stringify(payload)
    const started = process.hrtime.bigint()
    const response = await app.sandbox.inject({ method, url, headers, ...(body ? { payload: body } : {}) })
    millis.push(Number(process.hrtime.bigint() - started) / 1e6)
    if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`)
    if (url.endsWith('/quotes')) {
      const answer = JSON.parse(response.body)
      for (const quote of answer.quotes) {
        for (const shipment of quote.shipments) labsUsed.add(shipment.fulfillmentLocation.labCode)
        estimates.quotes++
        if (quote.estimatedDelivery) estimates.estimated++
      }
      for (const issue of answer.issues) if (issue.errorCode === 'DeliveryDateUnreachable') estimates.unreachable++
    }
  }
  return millis
}

const getProduct = () => ({ method: 'GET' as const, url: '/v4.0/products/GLOBAL-CAN-10x10' })
const quoteOf = (size: number, shippingMethod?: string, deliverBy?: string) => {
  // Baskets are made before timing, so only the request is timed.
  const baskets = Array.from({ length: 50 }, () => ({
    ...basket(size, shippingMethod),
    ...(deliverBy ? { deliverBy } : {}),
  }))
  let next = 0
  return () => ({ method: 'POST' as const, url: '/v4.0/quotes', payload: baskets[next++ % baskets.length] })
}

// Warm-up: JIT, the key cache, the serialisers.
await timeRequests(300, getProduct)
await timeRequests(300, quoteOf(10))

const latencies: Latency[] = []
latencies.push(summarise('GET product (baseline), first', await timeRequests(REQUESTS, getProduct)))
latencies.push(summarise('quote, 1 item, every method', await timeRequests(REQUESTS, quoteOf(1))))
latencies.push(summarise('quote, 10 items, every method', await timeRequests(REQUESTS / 2, quoteOf(10))))
latencies.push(summarise('quote, 10 items, Standard only', await timeRequests(REQUESTS / 2, quoteOf(10, 'Standard'))))
latencies.push(
  summarise(
    'quote, 10 items, every method, deliverBy',
    await timeRequests(REQUESTS / 2, quoteOf(10, undefined, DELIVER_BY)),
  ),
)
latencies.push(summarise('quote, 50 items, every method', await timeRequests(REQUESTS / 10, quoteOf(50))))
latencies.push(summarise('GET product (baseline), last', await timeRequests(REQUESTS, getProduct)))
await app.close()
await db.close()
rmSync(filesDir, { recursive: true, force: true })

// ---- allocation alone ---------------------------------------------------------------------------------------

type Method = (typeof SHIPPING_METHODS)[number]

/**
 * Distinct variants (no two alike) that some lab ships to `destination` by `method`: drawn at random, or the
 * `hardest` ones, those the most labs could make (the exact search's work grows with the labs per item).
 */
function distinctItems(count: number, destination: string, method: Method, choice: 'random' | 'hardest') {
  const labsFor = (variant: Variant) => catalogue.labOptions(variant, destination, method).length
  const shippable = catalogue.products.flatMap((product) => product.variants).filter((variant) => labsFor(variant) > 0)
  const pool =
    choice === 'random' ? shippable : [...shippable].sort((a, b) => labsFor(b) - labsFor(a)).slice(0, 2 * count)
  if (shippable.length < count) throw new Error(`only ${shippable.length} variants reach ${destination} by ${method}`)
  const chosen: AllocationItem[] = []
  const used = new Set<string>()
  while (chosen.length < count) {
    const variant = pick(pool)
    if (used.has(variant.key)) continue
    used.add(variant.key)
    const pricing = catalogue.findProduct(variant.sku)?.pagePricing
    chosen.push({
      itemId: `item${chosen.length}`,
      variant,
      copies: 1 + Math.floor(random() * 3),
      pageCount: pricing ? pricing.minimumPages + 10 : null,
    })
  }
  return chosen
}

interface AllocationTiming {
  items: number
  choice: string
  destination: string
  method: string
  labs: number
  search: string
  p50: number
  max: number
}

function timeAllocation(count: number, destination: string, method: Method, choice: 'random' | 'hardest') {
  const items = distinctItems(count, destination, method, choice)
  const labs = new Set(
    items.flatMap((item) =>
      catalogue.labOptions(item.variant, destination, method).map((option) => option.offer.lab.code),
    ),
  )
  const request = { destinationCountryCode: destination, shippingMethod: method, items }
  for (let warm = 0; warm < 5; warm++) allocateShipments(catalogue, request)
  const millis: number[] = []
  let search = ''
  for (let run = 0; run < ALLOCATIONS; run++) {
    const started = process.hrtime.bigint()
    const result = allocateShipments(catalogue, request)
    millis.push(Number(process.hrtime.bigint() - started) / 1e6)
    if (!result.ok) throw new Error('allocation failed')
    search = result.method
  }
  const sorted = millis.sort((a, b) => a - b)
  const p50 = percentile(sorted, 0.5)
  return { items: count, choice, destination, method, labs: labs.size, search, p50, max: sorted.at(-1) ?? 0 }
}

const allocations: AllocationTiming[] = []
for (const destination of ['US', 'GB']) {
  for (const choice of ['random', 'hardest'] as const) {
    allocations.push(timeAllocation(EXACT_ALLOCATION_MAX_ITEMS, destination, 'Standard', choice))
    allocations.push(timeAllocation(100, destination, 'Standard', choice))
  }
}

// ---- report -------------------------------------------------------------------------------------------------

const baselineP50 =
  latencies.filter((row) => row.scenario.startsWith('GET product')).reduce((sum, row) => sum + row.p50, 0) / 2
const ms = (value: number) => value.toFixed(2)
const latencyTable = [
  '| scenario | requests | p50 ms | p99 ms | mean ms | p50 vs GET product |',
  '|---|---:|---:|---:|---:|---:|',
  ...latencies.map(
    (row) =>
      `| ${row.scenario} | ${row.requests} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.mean)} | ${(row.p50 / baselineP50).toFixed(1)}x |`,
  ),
].join('\n')
const allocationTable = [
  '| distinct items | variants | destination, method | candidate labs | search | p50 ms | max ms |',
  '|---:|---|---|---:|---|---:|---:|',
  ...allocations.map(
    (row) =>
      `| ${row.items} | ${row.choice} | ${row.destination}, ${row.method} | ${row.labs} | ${row.search} | ${ms(row.p50)} | ${ms(row.max)} |`,
  ),
].join('\n')
const verdictOf = (scenario: string) => {
  const row = latencies.find((candidate) => candidate.scenario === scenario)
  return row && row.p99 < TARGET_P99_MS_FOR_10_ITEMS
    ? `met (${ms(row.p99)} ms)`
    : `not met (${row ? ms(row.p99) : '?'} ms)`
}
const verdict = verdictOf('quote, 10 items, every method')
const datedVerdict = verdictOf('quote, 10 items, every method, deliverBy')
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`
const report = [
  `Command: \`npm run bench:quote\`  (BENCH_REQUESTS=${REQUESTS}, BENCH_ALLOCATIONS=${ALLOCATIONS}, BENCH_SEED=${SEED})`,
  `Machine: ${machine}`,
  `Date: ${new Date().toISOString()}`,
  `Baskets: random variants of all ${catalogue.products.length} products, 1-3 copies each, to ${DESTINATIONS.join(', ')}; labs in the answers: ${labsUsed.size} of ${catalogue.labs.length} (${[...labsUsed].sort().join(', ')}).`,
  `Delivery estimates: ${estimates.estimated} of ${estimates.quotes} quotes carry one; the deliverBy row asks ${DELIVER_BY} (ten days on) and got ${estimates.unreachable} DeliveryDateUnreachable issues.`,
  '',
  latencyTable,
  '',
  `Target (docs/benchmarks.md): p99 under ${TARGET_P99_MS_FOR_10_ITEMS} ms for 10 items (every method): ${verdict}; with deliverBy: ${datedVerdict}.`,
  '',
  'Lab allocation alone (`allocateShipments`), distinct variants drawn at random or among those the most labs make',
  '(`hardest`), median and maximum of the runs:',
  '',
  allocationTable,
  '',
].join('\n')
process.stdout.write(`\n${report}\n`)
await writeBenchmarksBlock('quote', report, {
  heading: '## Quote latency: `npm run bench:quote`',
  before: '## Render throughput',
})
process.stdout.write(`figures written to ${BENCHMARKS_MD}\n`)
