// The boundaries between the folders of src/ (docs/architecture.md, "Boundaries") are allow-lists in biome.jsonc.
// This test holds them to it both ways: in a scratch directory holding only a copy of biome.jsonc, it writes one
// probe file per import (a file in a folder of src/ with that one import line), runs the project's Biome once over
// all of them, and asserts that each forbidden import is refused by a boundary rule and each permitted one is not.
// Biome matches import specifiers as written, so the probes need no real modules behind them; the last test checks
// that src/ writes its relative specifiers in normal form, the form the allow-lists match. The same run shows that
// the lint refuses a cycle of files closed only by `import type`.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { tier } from '../support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..', '..')
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome')

interface Probe {
  /** Where the probe file goes, as a path in src/ (its folder decides which allow-list applies). */
  from: string
  /** The one import line. */
  line: string
}

const forbidden: Probe[] = [
  // domain/ is pure.
  { from: 'src/domain/probe.ts', line: "import { readFileSync } from 'fs'" },
  { from: 'src/domain/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/domain/probe.ts', line: "import { connect } from 'node:net'" },
  { from: 'src/domain/probe.ts', line: "import { S3Client } from '@aws-sdk/client-s3'" },
  { from: 'src/domain/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/domain/probe.ts', line: "import sharp from 'sharp'" },
  { from: 'src/domain/probe.ts', line: "import pino from 'pino'" },
  { from: 'src/domain/probe.ts', line: "import { Type } from 'typebox'" },
  { from: 'src/domain/probe.ts', line: "import { createOrdersService } from '../services/orders.service.ts'" },
  { from: 'src/domain/probe.ts', line: "import { buildServer } from '../http/server.ts'" },
  { from: 'src/domain/probe.ts', line: "import type { Clock } from '../adapters/clock.ts'" },
  { from: 'src/domain/probe.ts', line: "import { loadCatalogue } from '../catalogue/catalogue.loader.ts'" },
  { from: 'src/domain/probe.ts', line: "import { settings } from '../config.ts'" },
  { from: 'src/domain/pipeline/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/domain/pipeline/probe.ts', line: "import { settings } from '../../config.ts'" },
  {
    from: 'src/domain/allocation/probe.ts',
    line: "import { createOrdersService } from '../../services/orders.service.ts'",
  },
  // services/ reach libraries and the disk through adapters, and take adapters by their interfaces.
  { from: 'src/services/probe.ts', line: "import { readFileSync } from 'fs'" },
  { from: 'src/services/probe.ts', line: "import { readFile } from 'node:fs/promises'" },
  { from: 'src/services/probe.ts', line: "import { connect } from 'node:net'" },
  { from: 'src/services/probe.ts', line: "import pino from 'pino'" },
  { from: 'src/services/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/services/probe.ts', line: "import Fastify from 'fastify'" },
  { from: 'src/services/probe.ts', line: "import sharp from 'sharp'" },
  { from: 'src/services/probe.ts', line: "import { buildServer } from '../http/server.ts'" },
  { from: 'src/services/probe.ts', line: "import { OrderSchema } from '../http/schemas/order.schema.ts'" },
  { from: 'src/services/probe.ts', line: "import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'" },
  { from: 'src/services/probe.ts', line: "import { buildProgram } from '../cli/program.ts'" },
  { from: 'src/services/probe.ts', line: "import { registerJobs } from '../jobs/registry.ts'" },
  { from: 'src/services/probe.ts', line: "import { settings } from '../config.ts'" },
  { from: 'src/services/probe.ts', line: "import type { BlobStore } from '../adapters/blob-store.ts'" },
  { from: 'src/services/probe.ts', line: "import { systemClock } from '../adapters/clock.ts'" },
  { from: 'src/services/probe.ts', line: "import * as database from '../adapters/database.ts'" },
  // A class is PascalCase like a type: the four adapters' classes and any error class are named.
  { from: 'src/services/probe.ts', line: "import { ManualClock } from '../adapters/clock.ts'" },
  { from: 'src/services/probe.ts', line: "import { type Database, PostgresDatabase } from '../adapters/database.ts'" },
  { from: 'src/services/probe.ts', line: "import { DatabaseUnavailableError } from '../adapters/database.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { PgliteDatabase } from '../../adapters/database.ts'" },
  { from: 'src/jobs/probe.ts', line: "import { JobQueueClosedError } from '../adapters/job-queue.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { buildServer } from '../../http/server.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { systemClock } from '../../adapters/clock.ts'" },
  { from: 'src/services/labs/probe.ts', line: "import { buildServer } from '../../http/server.ts'" },
  { from: 'src/services/labs/probe.ts', line: "import { systemClock } from '../../adapters/clock.ts'" },
  // http/: routes and the server reach data through services.
  { from: 'src/http/routes/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/http/routes/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/http/routes/probe.ts', line: "import { insertOrder } from '../../repositories/orders.repository.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import { registerJobs } from '../../jobs/registry.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import { buildProgram } from '../../cli/program.ts'" },
  {
    from: 'src/http/routes/probe.ts',
    line: "import { registerDashboard } from '../../web/merchant/dashboard.plugin.ts'",
  },
  { from: 'src/http/routes/probe.ts', line: "import type { Database } from '../../adapters/database.ts'" },
  { from: 'src/http/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/http/probe.ts', line: "import { insertOrder } from '../repositories/orders.repository.ts'" },
  { from: 'src/http/probe.ts', line: "import { registerJobs } from '../jobs/registry.ts'" },
  { from: 'src/http/probe.ts', line: "import { buildProgram } from '../cli/program.ts'" },
  { from: 'src/http/probe.ts', line: "import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'" },
  { from: 'src/http/probe.ts', line: "import { buildApp } from '../app.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import { ENVIRONMENTS } from '../../services/accounts.service.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import type { Database } from '../../adapters/database.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import { registerOrderRoutes } from '../routes/orders.routes.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import { buildServer } from '../server.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import Fastify from 'fastify'" },
  // adapters/ are I/O only: no settings table, no services.
  { from: 'src/adapters/probe.ts', line: "import { settings } from '../config.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { createOrdersService } from '../services/orders.service.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { insertOrder } from '../repositories/orders.repository.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { buildServer } from '../http/server.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { loadCatalogue } from '../catalogue/catalogue.loader.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { Command } from 'commander'" },
  // repositories/ hold SQL.
  { from: 'src/repositories/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/repositories/probe.ts', line: "import { createOrdersService } from '../services/orders.service.ts'" },
  { from: 'src/repositories/probe.ts', line: "import Fastify from 'fastify'" },
  { from: 'src/repositories/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/repositories/probe.ts', line: "import { PgBoss } from 'pg-boss'" },
  { from: 'src/repositories/probe.ts', line: "import type { BlobStore } from '../adapters/blob-store.ts'" },
  { from: 'src/repositories/probe.ts', line: "import { buildServer } from '../http/server.ts'" },
  // The web pages reach data through the API (or the ports app/ fills); a party's pages never import another's,
  // and the kit imports no party.
  { from: 'src/web/merchant/probe.ts', line: "import { insertOrder } from '../../repositories/orders.repository.ts'" },
  { from: 'src/web/merchant/probe.ts', line: "import { createOrdersService } from '../../services/orders.service.ts'" },
  { from: 'src/web/merchant/probe.ts', line: "import type { Database } from '../../adapters/database.ts'" },
  { from: 'src/web/merchant/probe.ts', line: "import { buildServer } from '../../http/server.ts'" },
  {
    from: 'src/web/merchant/probe.ts',
    line: "import { registerOrderRoutes } from '../../http/routes/orders.routes.ts'",
  },
  { from: 'src/web/merchant/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/web/labs/probe.ts', line: "import { insertOrder } from '../../repositories/orders.repository.ts'" },
  { from: 'src/web/operator/probe.ts', line: "import { createOrdersService } from '../../services/orders.service.ts'" },
  { from: 'src/web/operator/probe.ts', line: "import { registerDashboard } from '../merchant/dashboard.plugin.ts'" },
  { from: 'src/web/labs/probe.ts', line: "import { ADMIN_PATH } from '../operator/admin-context.ts'" },
  { from: 'src/web/merchant/probe.ts', line: "import { registerLabPortal } from '../labs/lab-portal.plugin.ts'" },
  { from: 'src/web/kit/probe.ts', line: "import { registerDashboard } from '../merchant/dashboard.plugin.ts'" },
  // catalogue/ reads the file and checks it against domain/.
  { from: 'src/catalogue/probe.ts', line: "import type { Database } from '../adapters/database.ts'" },
  { from: 'src/catalogue/probe.ts', line: "import { createProductsService } from '../services/products.service.ts'" },
  { from: 'src/catalogue/probe.ts', line: "import sharp from 'sharp'" },
  // jobs/ call services.
  { from: 'src/jobs/probe.ts', line: "import { buildServer } from '../http/server.ts'" },
  { from: 'src/jobs/probe.ts', line: "import { insertOrder } from '../repositories/orders.repository.ts'" },
  { from: 'src/jobs/probe.ts', line: "import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'" },
  { from: 'src/jobs/probe.ts', line: "import pg from 'pg'" },
  // cli/ builds the app; it never reaches past services.
  { from: 'src/cli/probe.ts', line: "import { insertOrder } from '../repositories/orders.repository.ts'" },
  { from: 'src/cli/probe.ts', line: "import { registerJobs } from '../jobs/registry.ts'" },
  { from: 'src/cli/probe.ts', line: "import { registerOrderRoutes } from '../http/routes/orders.routes.ts'" },
  { from: 'src/cli/probe.ts', line: "import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'" },
  // app/, the composition root's parts, reach as far as app.ts and no further.
  { from: 'src/app/probe.ts', line: "import { buildProgram } from '../cli/program.ts'" },
  { from: 'src/app/probe.ts', line: "import pg from 'pg'" },
  // The root files.
  { from: 'src/app.ts', line: "import { buildProgram } from './cli/program.ts'" },
  { from: 'src/app.ts', line: "import pg from 'pg'" },
  { from: 'src/config.ts', line: "import { createOrdersService } from './services/orders.service.ts'" },
  { from: 'src/config.ts', line: "import type { Database } from './adapters/database.ts'" },
  { from: 'src/config.ts', line: "import { readFileSync } from 'fs'" },
  { from: 'src/main.ts', line: "import { buildApp } from './app.ts'" },
  // A folder nobody has decided about yet.
  { from: 'src/web/probe.ts', line: "import { formatMinorAsAmount } from '../domain/money.ts'" },
]

const permitted: Probe[] = [
  { from: 'src/domain/probe.ts', line: "import { formatMinorAsAmount } from './money.ts'" },
  { from: 'src/domain/probe.ts', line: "import { createHash } from 'node:crypto'" },
  { from: 'src/domain/probe.ts', line: "import { startPipeline } from './pipeline/start-order.ts'" },
  { from: 'src/domain/pipeline/probe.ts', line: "import { formatMinorAsAmount } from '../money.ts'" },
  { from: 'src/domain/pipeline/probe.ts', line: "import type { ExclusionByHistory } from '../allocation/model.ts'" },
  { from: 'src/domain/allocation/probe.ts', line: "import type { AllocationProblem } from './problem.ts'" },
  { from: 'src/services/probe.ts', line: "import { formatMinorAsAmount } from '../domain/money.ts'" },
  { from: 'src/services/probe.ts', line: "import { insertOrder } from '../repositories/orders.repository.ts'" },
  { from: 'src/services/probe.ts', line: "import type { Clock } from '../adapters/clock.ts'" },
  { from: 'src/services/probe.ts', line: "import { type Database, Transaction } from '../adapters/database.ts'" },
  { from: 'src/services/probe.ts', line: "import { createOrderChanger } from './order-change.ts'" },
  { from: 'src/services/probe.ts', line: "import { startOrder } from './pipeline/start-order.ts'" },
  { from: 'src/services/probe.ts', line: "import { randomBytes } from 'node:crypto'" },
  { from: 'src/services/probe.ts', line: "import { isAwaitingPayment } from '../domain/pipeline/submit-shipment.ts'" },
  { from: 'src/services/labs/probe.ts', line: "import { readOrder } from '../../repositories/orders.repository.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { formatMinorAsAmount } from '../../domain/money.ts'" },
  {
    from: 'src/services/pipeline/probe.ts',
    line: "import { readOrder } from '../../repositories/orders.repository.ts'",
  },
  { from: 'src/services/pipeline/probe.ts', line: "import type { JobEnqueuer } from '../../adapters/job-queue.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { createOrderChanger } from '../order-change.ts'" },
  { from: 'src/services/pipeline/probe.ts', line: "import { formatStepLog } from './step-log.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import type { OrdersService } from '../../services/orders.service.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import { OrderSchema } from '../schemas/order.schema.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import { replyWithError } from '../errors.ts'" },
  { from: 'src/http/routes/probe.ts', line: "import type { FastifyInstance } from 'fastify'" },
  { from: 'src/http/routes/probe.ts', line: "import type { LabsService } from '../../services/labs/labs.service.ts'" },
  { from: 'src/http/probe.ts', line: "import type { OrdersService } from '../services/orders.service.ts'" },
  { from: 'src/http/probe.ts', line: "import { registerOrderRoutes } from './routes/orders.routes.ts'" },
  { from: 'src/http/probe.ts', line: "import Fastify from 'fastify'" },
  { from: 'src/http/schemas/probe.ts', line: "import { Type } from 'typebox'" },
  { from: 'src/http/schemas/probe.ts', line: "import { CALLBACK_LIST_MAX_TOP } from '../../domain/limits.ts'" },
  { from: 'src/http/schemas/probe.ts', line: "import { OkOutcome } from './common.schema.ts'" },
  { from: 'src/adapters/probe.ts', line: "import { readFileSync } from 'node:fs'" },
  { from: 'src/adapters/probe.ts', line: "import { readFile } from 'node:fs/promises'" },
  { from: 'src/adapters/probe.ts', line: "import pg from 'pg'" },
  { from: 'src/adapters/probe.ts', line: "import { jobRequest } from '../domain/jobs.ts'" },
  { from: 'src/repositories/probe.ts', line: "import type { Queryable } from '../adapters/database.ts'" },
  { from: 'src/repositories/probe.ts', line: "import { formatId } from '../domain/ids.ts'" },
  {
    from: 'src/web/merchant/probe.ts',
    line: "import type { ProductSummary } from '../../http/schemas/product.schema.ts'",
  },
  { from: 'src/web/kit/probe.ts', line: "import { csrfTokenOf } from '../../services/sessions.service.ts'" },
  { from: 'src/web/merchant/probe.ts', line: "import { html } from '../kit/html.ts'" },
  { from: 'src/web/operator/probe.ts', line: "import { html } from '../kit/html.ts'" },
  { from: 'src/web/labs/probe.ts', line: "import { formatMinorAsAmount } from '../../domain/money.ts'" },
  { from: 'src/catalogue/probe.ts', line: "import { parseCatalogue } from '../domain/catalogue.ts'" },
  { from: 'src/catalogue/probe.ts', line: "import Ajv from 'ajv'" },
  { from: 'src/jobs/probe.ts', line: "import type { PipelineService } from '../services/pipeline.service.ts'" },
  { from: 'src/jobs/probe.ts', line: "import type { JobQueue } from '../adapters/job-queue.ts'" },
  { from: 'src/cli/probe.ts', line: "import { buildApp } from '../app.ts'" },
  { from: 'src/cli/probe.ts', line: "import { Command } from 'commander'" },
  {
    from: 'src/cli/probe.ts',
    line: "import { createOperatorService } from '../services/operator/operator.service.ts'",
  },
  { from: 'src/app/probe.ts', line: "import { createOrdersService } from '../services/orders.service.ts'" },
  { from: 'src/app/probe.ts', line: "import { registerDashboard } from '../web/merchant/dashboard.plugin.ts'" },
  { from: 'src/app.ts', line: "import { buildServices } from './app/services.ts'" },
  { from: 'src/app.ts', line: "import { createOrdersService } from './services/orders.service.ts'" },
  { from: 'src/app.ts', line: "import { readSetting } from './repositories/settings.repository.ts'" },
  { from: 'src/config.ts', line: "import { parseDurationSeconds } from './domain/duration.ts'" },
  { from: 'src/main.ts', line: "import { buildProgram } from './cli/program.ts'" },
  // Tests are exempt.
  { from: 'src/domain/probe.test.ts', line: "import pg from 'pg'" },
]

interface Diagnostic {
  category: string
  message: string
  location: { path: string; start: { line: number } }
}

/** The root files' allow-lists apply to those exact names: their probes share that one file, a line each. */
const ROOT_FILES = new Set(['src/app.ts', 'src/config.ts', 'src/main.ts'])

let scratch: string
/** Where each probe's import line is (`file:line`, relative to the scratch directory). */
const probeLines = new Map<Probe, string>()
/** Boundary diagnostics by `file:line`. */
const refusals = new Map<string, string[]>()

/**
 * Two files of domain/ that need each other's types, and a third that needs one of them: biome.jsonc's
 * noImportCycles (with `ignoreTypes: false`) must refuse the first two, though only `import type` closes the cycle.
 */
const typeOnlyCycle: Record<string, string> = {
  'src/domain/cycle-a.ts': "import type { B } from './cycle-b.ts'\nexport interface A { b: B }\n",
  'src/domain/cycle-b.ts': "import type { A } from './cycle-a.ts'\nexport interface B { a?: A }\n",
  'src/domain/cycle-c.ts': "import type { A } from './cycle-a.ts'\nexport type C = A\n",
}
/** The files noImportCycles reported. */
const cycleFiles = new Set<string>()

/** Writes each probe in a file of its own beside `from` (a root file's probes in `from`, one line each). */
function writeProbes() {
  mkdirSync(join(scratch, 'src', 'domain'), { recursive: true })
  for (const [file, content] of Object.entries(typeOnlyCycle)) writeFileSync(join(scratch, file), content)
  const rootFileLines = new Map<string, string[]>()
  ;[...forbidden, ...permitted].forEach((probe, index) => {
    if (ROOT_FILES.has(probe.from)) {
      const lines = rootFileLines.get(probe.from) ?? []
      lines.push(probe.line)
      rootFileLines.set(probe.from, lines)
      probeLines.set(probe, `${probe.from}:${lines.length}`)
      return
    }
    const file = probe.from.replace(/(\.test)?\.ts$/, (ending) => `-${index}${ending}`)
    mkdirSync(join(scratch, dirname(file)), { recursive: true })
    writeFileSync(join(scratch, file), `${probe.line}\n`)
    probeLines.set(probe, `${file}:1`)
  })
  for (const [file, lines] of rootFileLines) writeFileSync(join(scratch, file), `${lines.join('\n')}\n`)
}

/** Keeps the noRestrictedImports diagnostics that come from a boundary override (their messages cite it). */
function collect(diagnostics: Diagnostic[]) {
  for (const diagnostic of diagnostics) {
    if (diagnostic.category === 'lint/suspicious/noImportCycles') cycleFiles.add(diagnostic.location.path)
    if (diagnostic.category !== 'lint/style/noRestrictedImports' || !diagnostic.message.includes('Boundaries')) continue
    const key = `${diagnostic.location.path}:${diagnostic.location.start.line}`
    refusals.set(key, [...(refusals.get(key) ?? []), diagnostic.message])
  }
}

const refusalOf = (probe: Probe) => refusals.get(probeLines.get(probe) ?? '')

describe('the import boundaries of src/ (biome.jsonc)', () => {
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'printroute-boundaries-'))
    copyFileSync(join(ROOT, 'biome.jsonc'), join(scratch, 'biome.jsonc'))
    mkdirSync(join(scratch, 'src'))
    writeProbes()
    const result = spawnSync(
      BIOME,
      ['lint', '--vcs-enabled=false', '--reporter=json', '--max-diagnostics=none', 'src'],
      {
        cwd: scratch,
        encoding: 'utf8',
      },
    )
    assert.ok(result.stdout.startsWith('{'), `biome lint gave no report: ${result.error ?? result.stderr}`)
    collect((JSON.parse(result.stdout) as { diagnostics: Diagnostic[] }).diagnostics)
  })
  after(() => rmSync(scratch, { recursive: true, force: true }))

  test('refuses every forbidden import, by a boundary rule', () => {
    const notRefused = forbidden.filter((probe) => refusalOf(probe) === undefined)
    assert.deepEqual(notRefused, [], 'these imports passed the allow-lists')
  })

  test('lets every permitted import through', () => {
    const refused = permitted
      .filter((probe) => refusalOf(probe) !== undefined)
      .map((probe) => ({ ...probe, refusal: refusalOf(probe) }))
    assert.deepEqual(refused, [], 'these imports were refused')
  })

  test('refuses a cycle closed by `import type` alone (noImportCycles)', () => {
    assert.deepEqual([...cycleFiles].sort(), ['src/domain/cycle-a.ts', 'src/domain/cycle-b.ts'])
  })
})

test('src/ writes relative imports in normal form, the form the allow-lists match', async () => {
  // `./../app.ts` or `../domain/../app.ts` would reach past a list's `!./*` or `!../domain/*`.
  const detours: string[] = []
  for await (const file of glob('src/**/*.ts', { cwd: ROOT })) {
    const source = readFileSync(join(ROOT, file), 'utf8')
    for (const [, specifier = ''] of source.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']*)'/g)) {
      const rest = specifier.replace(/^(\.\/|(\.\.\/)+)/, '').split('/')
      if (rest.some((segment) => segment === '.' || segment === '..')) detours.push(`${file}: ${specifier}`)
    }
  }
  assert.deepEqual(detours, [])
})
