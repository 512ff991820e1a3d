// npm run lint:openapi: builds the application (an in-memory PGlite database, no port), writes the OpenAPI
// document each environment serves at GET /v4.0/openapi.json, and the lab API's own (GET /labs/v1/openapi.json on
// Live), to a temporary directory, and runs Redocly's recommended rules (redocly.yaml) on each. Fails on any error
// or warning.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PgliteDatabase } from '../src/adapters/database.ts'
import { migrate } from '../src/adapters/migrator.ts'
import { buildApplication } from '../src/app.ts'
import { loadCatalogue } from '../src/catalogue/catalogue.loader.ts'

const root = join(import.meta.dirname, '..')
const directory = mkdtempSync(join(tmpdir(), 'printroute-openapi-'))
const filesDir = join(directory, 'files')
const database = await PgliteDatabase.open()
await migrate(database)
const app = await buildApplication({
  db: database,
  databaseUrl: null,
  catalogue: loadCatalogue(),
  filesDir,
  logger: false,
  workers: false,
})
const files: string[] = []
try {
  for (const environment of ['live', 'sandbox'] as const) {
    const response = await app[environment].inject({ method: 'GET', url: '/v4.0/openapi.json' })
    if (response.statusCode !== 200) throw new Error(`${environment}: ${response.statusCode} ${response.body}`)
    const file = join(directory, `${environment}.openapi.json`)
    writeFileSync(file, response.body)
    files.push(file)
  }
  const labs = await app.live.inject({ method: 'GET', url: '/labs/v1/openapi.json' })
  if (labs.statusCode !== 200) throw new Error(`labs: ${labs.statusCode} ${labs.body}`)
  const labFile = join(directory, 'labs.openapi.json')
  writeFileSync(labFile, labs.body)
  files.push(labFile)
} finally {
  await app.close()
  await database.close()
}
const redocly = (args: string[]) =>
  spawnSync(join(root, 'node_modules', '.bin', 'redocly'), ['lint', '--config', join(root, 'redocly.yaml'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
// Redocly exits 0 on warnings; its JSON totals are checked so that warnings fail too.
let problems = 0
for (const file of files) {
  const { totals } = JSON.parse(redocly(['--format', 'json', file]).stdout) as {
    totals: { errors: number; warnings: number }
  }
  console.log(`${file}: ${totals.errors} errors, ${totals.warnings} warnings`)
  if (totals.errors + totals.warnings > 0) {
    problems += totals.errors + totals.warnings
    console.log(redocly(['--max-problems', '50', file]).stdout)
  }
}
rmSync(directory, { recursive: true, force: true })
if (problems > 0) process.exit(1)
console.log('OpenAPI lint: the three documents pass the recommended rules with no warning')
