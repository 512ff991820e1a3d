// npm run bench:import — a CSV order import of BENCH_ROWS rows (default 10,000; two rows, two items, per order):
// rows per second and the process's peak RSS while the import runs, next to the same orders created through
// POST /v4.0/orders one by one (the baseline, its requests built from the same rows) in this one process on this
// machine (docs/benchmarks.md: compare the ratio, not absolute figures, across runs).
//
// The application is built in this process as the tests build it (PGlite in memory, no job workers): the import's
// job is run here by hand (services.orderImports.runImport), as the queue would run it, and the baseline's requests
// go through Fastify's inject one at a time. The upload itself (POST /v4.0/orders/imports) is timed too. RSS is
// sampled every 20 ms during each phase; the import streams the file, so its peak should not grow with the rows.
//
// Prints the report and rewrites the block between the bench:import markers in docs/benchmarks.md. Options (env):
// BENCH_ROWS (default 10000).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PgliteDatabase } from '../src/adapters/database.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { buildApplication } from '../src/app.ts'
import { loadCatalogue } from '../src/catalogue/catalogue.loader.ts'
import { parseId } from '../src/domain/ids.ts'
import { csvLine, TEMPLATE_COLUMNS } from '../src/domain/order-imports.ts'
import { machineLine, writeBenchmarksBlock } from './bench-support.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000)

function rowOf(index: number): Record<string, string> {
  const order = Math.floor(index / 2) + 1
  return {
    merchantReference: `BENCH-${order}`,
    shippingMethod: 'Standard',
    'recipient.name': `Customer ${order}`,
    'recipient.address.line1': `${order} Test Street`,
    'recipient.address.postalOrZipCode': 'EC1A 1BB',
    'recipient.address.countryCode': 'GB',
    'recipient.address.townOrCity': 'London',
    sku: 'GLOBAL-CAN-10x10',
    copies: String(1 + (index % 3)),
    sizing: 'fillPrintArea',
    'attributes.wrap': 'ImageWrap',
    'assets.default': `https://images.example.com/${order}-${index % 2}.jpg`,
  }
}

/** The process's peak RSS while `work` runs, sampled every 20 ms. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakRss: number; seconds: number }> {
  let peakRss = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss())
  }, 20)
  const started = performance.now()
  try {
    const result = await work()
    return {
      result,
      peakRss: Math.max(peakRss, process.memoryUsage.rss()),
      seconds: (performance.now() - started) / 1000,
    }
  } finally {
    clearInterval(timer)
  }
}

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`

const db = await PgliteDatabase.open()
await migrate(db)
const filesDir = mkdtempSync(join(tmpdir(), 'printroute-bench-import-'))
const app = await buildApplication({
  db,
  databaseUrl: null,
  catalogue: loadCatalogue(),
  logger: false,
  filesDir,
  workers: false,
  rateLimit: null,
})
try {
  const account = await app.services.accounts.createAccount(
    { name: 'bench', billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null },
    { kind: 'system' },
  )
  const key = account.keys.sandbox.key
  const lines = [csvLine(TEMPLATE_COLUMNS)]
  for (let index = 0; index < ROWS; index++) {
    const row = rowOf(index)
    lines.push(csvLine(TEMPLATE_COLUMNS.map((column) => row[column] ?? '')))
  }
  const file = lines.join('')
  const rssBefore = process.memoryUsage.rss()

  const uploaded = await withPeakRss(() =>
    app.sandbox.inject({
      method: 'POST',
      url: '/v4.0/orders/imports',
      headers: { 'x-api-key': key, 'content-type': 'text/csv' },
      payload: file,
    }),
  )
  const created = uploaded.result.json().import as { id: string }
  const imported = await withPeakRss(() => app.services.orderImports.runImport(parseId('imp', created.id) as number))
  const done = (
    await app.sandbox.inject({
      method: 'GET',
      url: `/v4.0/orders/imports/${created.id}`,
      headers: { 'x-api-key': key },
    })
  ).json().import as { ordersCreated: number; rowsFailed: number; rowsRead: number }
  if (done.rowsRead !== ROWS || done.rowsFailed !== 0) throw new Error(`the import went wrong: ${JSON.stringify(done)}`)

  // The baseline: the same orders (new references) POSTed one by one, each with its two items.
  const baseline = await withPeakRss(async () => {
    for (let order = 1; order <= ROWS / 2; order++) {
      const rows = [rowOf((order - 1) * 2), rowOf((order - 1) * 2 + 1)]
      const first = rows[0] as Record<string, string>
      const answer = await app.sandbox.inject({
        method: 'POST',
        url: '/v4.0/orders',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        payload: {
          merchantReference: `BASE-${order}`,
          shippingMethod: 'Standard',
          recipient: {
            name: first['recipient.name'],
            address: {
              line1: first['recipient.address.line1'],
              postalOrZipCode: 'EC1A 1BB',
              countryCode: 'GB',
              townOrCity: 'London',
            },
          },
          items: rows.map((row) => ({
            sku: row.sku,
            copies: Number(row.copies),
            sizing: 'fillPrintArea',
            attributes: { wrap: 'ImageWrap' },
            assets: [{ printArea: 'default', url: row['assets.default'] }],
          })),
        },
      })
      if (answer.statusCode !== 200) throw new Error(`baseline order ${order}: ${answer.body.slice(0, 300)}`)
    }
  })

  const importRate = ROWS / imported.seconds
  const baselineRate = ROWS / baseline.seconds
  const report = [
    `Command: \`npm run bench:import\` (BENCH_ROWS=${ROWS}, ${ROWS / 2} orders of 2 rows)`,
    `Machine: ${machineLine()}`,
    `Date: ${new Date().toISOString()}`,
    '',
    '| phase | time | rows per second | peak RSS |',
    '|---|---|---|---|',
    `| upload (POST /v4.0/orders/imports, ${mib(file.length)} file) | ${uploaded.seconds.toFixed(2)} s | | ${mib(uploaded.peakRss)} |`,
    `| import job (${done.ordersCreated} orders created) | ${imported.seconds.toFixed(1)} s | ${importRate.toFixed(0)} | ${mib(imported.peakRss)} |`,
    `| baseline: POST /v4.0/orders one by one | ${baseline.seconds.toFixed(1)} s | ${baselineRate.toFixed(0)} | ${mib(baseline.peakRss)} |`,
    '',
    `Import / baseline rows per second: ${(importRate / baselineRate).toFixed(2)}. RSS before the upload: ${mib(rssBefore)} (the file itself is ${mib(file.length)} of it).`,
  ].join('\n')
  console.log(report)
  await writeBenchmarksBlock('import', report, { heading: '## CSV order imports: `npm run bench:import`' })
} finally {
  await app.close()
  rmSync(filesDir, { recursive: true, force: true })
}
