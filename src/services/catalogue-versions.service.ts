// Catalogue versions (docs/catalogue.md#versions): files imported into the database, numbered from 1, one of them
// active. Importing validates the whole file first (every problem listed, nothing stored on any); the same text
// imported again is the version it already is. Activating takes the row lock of `catalogue_active`, so two
// activations at once (from two processes) run one after the other: the later one's version is the one served,
// and every process, polling the row, ends on it. Each import and activation is recorded in the audit trail in
// its own transaction.
import { createHash } from 'node:crypto'
import type { Clock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import { type AuditActor, describeActor } from '../domain/audit.ts'
import type { Catalogue } from '../domain/catalogue.ts'
import { type CatalogueDiff, diffCatalogues } from '../domain/catalogue-diff.ts'
import type { CatalogueImport, CatalogueVersionView } from '../domain/catalogue-versions.ts'
import { formatId } from '../domain/ids.ts'
import { MAX_CATALOGUE_BYTES } from '../domain/limits.ts'
import { createLiveCatalogue, type LiveCatalogue } from '../domain/live-catalogue.ts'
import { type PriceListFallback, priceListFallbacks, priceListFallbackWarnings } from '../domain/price-lists.ts'
import { listAccountPriceLists } from '../repositories/accounts.repository.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  type ActiveCatalogueRow,
  type CatalogueVersionRow,
  findCatalogueVersion,
  findCatalogueVersionBySha256,
  insertCatalogueVersion,
  listCatalogueVersions,
  readActiveCatalogue,
  readCatalogueContent,
  setActiveCatalogue,
} from '../repositories/catalogue-versions.repository.ts'
import type { ServiceLogger } from './observability.ts'

/** How often each process looks for a newly activated version, by default (docs/catalogue.md#switching). */
export const DEFAULT_CATALOGUE_POLL_SECONDS = 2

/** A catalogue file that cannot be used, or a version that does not exist: refused, nothing changed. */
export class CatalogueVersionError extends Error {
  /** Every problem found (`<path>: <reason>`), for a file; the message alone otherwise. */
  readonly problems: readonly string[]
  constructor(message: string, problems: readonly string[] = []) {
    super(problems.length > 0 ? `${message}\n${problems.map((problem) => `  ${problem}`).join('\n')}` : message)
    this.name = 'CatalogueVersionError'
    this.problems = Object.freeze([...problems])
  }
}

/** Reads catalogue text: the catalogue, or every problem found in it (the loader's checks, filled in by app.ts). */
export type CatalogueParser = (
  text: string,
  sourceName: string,
) => { catalogue: Catalogue; problems?: undefined } | { catalogue?: undefined; problems: readonly string[] }

export interface CatalogueActivation {
  version: number
  /** The version active before; equal to `version` when it already was (nothing changed, nothing recorded). */
  previous: number | null
  /**
   * The accounts whose own price list the version does not have, one line per list (docs/billing.md#price-lists):
   * they fall back to its default list, or to the labs' costs. Absent when there are none.
   */
  warnings?: string[]
}

/** The catalogue a process starts with: a file given to it (`--catalogue`, tests), else the active version. */
export interface StartingCatalogue {
  /** The text to store; the catalogue built from it (already validated). */
  text: string
  sourceName: string
  catalogue: Catalogue
  /**
   * Whether it must be served: stored and activated when the active version's text differs. False (the
   * bundled sample) only fills an empty database.
   */
  explicit: boolean
}

export interface CatalogueVersionsService {
  /** Validates and stores a file as a new version (or finds the version with the same text); `activate`: then activates it. */
  import(
    content: string,
    sourceName: string,
    actor: AuditActor,
    options?: { activate?: boolean },
  ): Promise<CatalogueImport>
  /** Every version, oldest first, the active one marked. */
  list(): Promise<CatalogueVersionView[]>
  /** What changed from version `from` to `to`. */
  diff(from: number, to: number): Promise<CatalogueDiff>
  /** Makes a stored version the active one; every process serves it within a poll. */
  activate(version: number, actor: AuditActor): Promise<CatalogueActivation>
  /**
   * What activating `version` would warn about, before it is activated: the accounts whose own price list it does
   * not have (the console's confirmation shows them). CatalogueVersionError for an unknown version.
   */
  activationWarnings(version: number): Promise<string[]>
  /** The stored text of a version, exactly as imported. */
  export(version: number): Promise<string>
  /** The active version's row (version null before the first start imported one). */
  active(): Promise<ActiveCatalogueRow>
  /** The active version's catalogue, read now (the bundled sample on a database with none yet); for the command line. */
  activeCatalogue(): Promise<Catalogue>
  /** A version's catalogue, parsed once and kept (an in-flight order's, a quote's): the served one for null or unknown. */
  catalogueOf(version: number | null): Promise<Catalogue>
  /**
   * Start-up: makes sure a version is active (storing and activating `starting` when the database has none, or
   * when it is explicit and differs) and serves it; returns the live catalogue every service holds.
   */
  start(starting: StartingCatalogue, actor: AuditActor): Promise<LiveCatalogue>
  /** Checks the active version and switches to it when it changed; true when it switched. The watcher's tick. */
  refresh(): Promise<boolean>
  /** The live catalogue once `start` has run. */
  live(): LiveCatalogue
}

export interface CatalogueVersionsDeps {
  db: Database
  clock: Clock
  parse: CatalogueParser
  log: ServiceLogger
  /**
   * The bundled sample's text: version 1 of a database that has none, stored and activated by whichever comes
   * first, a process's start or an import or activation from the command line.
   */
  sample: () => { text: string; sourceName: string }
}

interface Context extends CatalogueVersionsDeps {
  live: LiveCatalogue | null
  /** The refresh running, if any: refreshes run one at a time, so a slow one cannot switch back to an older version. */
  refreshing: Promise<boolean> | null
}

function sha256Of(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

function toView(row: CatalogueVersionRow, active: ActiveCatalogueRow): CatalogueVersionView {
  const isActive = row.version === active.version
  return {
    version: row.version,
    sourceName: row.sourceName,
    sha256: row.sha256,
    bytes: row.bytes,
    importedAt: new Date(row.importedAt).toISOString(),
    importedBy: row.importedBy,
    active: isActive,
    activatedAt: isActive && active.activatedAt ? new Date(active.activatedAt).toISOString() : null,
    activatedBy: isActive ? active.activatedBy : null,
  }
}

/** The catalogue in `content`, or a refusal listing every problem. */
function parsed(context: Context, content: string, sourceName: string): Catalogue {
  if (Buffer.byteLength(content, 'utf8') > MAX_CATALOGUE_BYTES) {
    throw new CatalogueVersionError(
      `catalogue ${sourceName} refused: larger than ${MAX_CATALOGUE_BYTES} bytes (the limit of a catalogue file)`,
    )
  }
  const result = context.parse(content, sourceName)
  if (result.catalogue) return result.catalogue
  const count = result.problems.length
  throw new CatalogueVersionError(
    `catalogue ${sourceName} refused, nothing stored: ${count} problem${count === 1 ? '' : 's'}`,
    result.problems,
  )
}

/** Stores `content` (under the lock) unless the same text is a version already; that version either way. */
async function store(
  tx: Queryable,
  context: Context,
  content: string,
  sourceName: string,
  actor: AuditActor,
): Promise<{ version: number; created: boolean }> {
  const sha256 = sha256Of(content)
  const existing = await findCatalogueVersionBySha256(tx, sha256)
  if (existing) return { version: existing.version, created: false }
  const at = context.clock.now()
  const version = await insertCatalogueVersion(tx, {
    sourceName,
    sha256,
    content,
    importedAt: at,
    importedBy: describeActor(actor),
  })
  await appendAuditEvent(
    tx,
    {
      actor,
      action: 'catalogue.imported',
      accountId: null,
      environment: null,
      target: `catalogue v${version}`,
      before: null,
      after: { version, sourceName, sha256 },
    },
    at,
  )
  return { version, created: true }
}

/** Makes `version` active under the lock; the version active before. Records the change when there is one. */
async function makeActive(
  tx: Queryable,
  context: Context,
  active: ActiveCatalogueRow,
  version: number,
  actor: AuditActor,
): Promise<CatalogueActivation> {
  if (active.version === version) return { version, previous: version }
  const at = context.clock.now()
  await setActiveCatalogue(tx, version, at, describeActor(actor))
  await appendAuditEvent(
    tx,
    {
      actor,
      action: 'catalogue.activated',
      accountId: null,
      environment: null,
      target: `catalogue v${version}`,
      before: active.version === null ? null : { version: active.version },
      after: { version },
    },
    at,
  )
  return { version, previous: active.version }
}

/**
 * The active version under the lock; on a database with none yet, the bundled sample stored and activated first
 * (by printroute itself), so it is version 1 whatever is imported next.
 */
async function lockActive(tx: Queryable, context: Context): Promise<ActiveCatalogueRow> {
  const active = await readActiveCatalogue(tx, true)
  if (active.version !== null) return active
  const sample = context.sample()
  const system: AuditActor = { kind: 'system' }
  const stored = await store(tx, context, sample.text, sample.sourceName, system)
  await makeActive(tx, context, active, stored.version, system)
  return readActiveCatalogue(tx)
}

async function importVersion(
  context: Context,
  content: string,
  sourceName: string,
  actor: AuditActor,
  options: { activate?: boolean } = {},
): Promise<CatalogueImport> {
  // Validated before the transaction: a refused file takes no lock and changes nothing.
  const catalogue = parsed(context, content, sourceName)
  const imported = await context.db.transaction(async (tx) => {
    const active = await lockActive(tx, context)
    const stored = await store(tx, context, content, sourceName, actor)
    if (options.activate) await makeActive(tx, context, active, stored.version, actor)
    return { ...stored, active: options.activate === true || active.version === stored.version }
  })
  // This process need not wait for its next poll.
  if (options.activate) await refresh(context)
  // Activated: also the accounts whose own price list it does not have.
  const fallbacks = options.activate ? await fallbacksOf(context, catalogue) : []
  const warnings = [
    ...catalogue.warnings,
    ...priceListFallbackWarnings(fallbacks, `catalogue version ${imported.version}`),
  ]
  return warnings.length === 0 ? imported : { ...imported, warnings }
}

async function activate(context: Context, version: number, actor: AuditActor): Promise<CatalogueActivation> {
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new CatalogueVersionError(`"${version}" is not a catalogue version (a number from 1)`)
  }
  const result = await context.db.transaction(async (tx) => {
    const active = await lockActive(tx, context)
    if (!(await findCatalogueVersion(tx, version))) {
      throw new CatalogueVersionError(`no catalogue version ${version}: nothing changed`)
    }
    return makeActive(tx, context, active, version, actor)
  })
  // This process need not wait for its next poll.
  await refresh(context)
  const warnings = await activationWarnings(context, version)
  return warnings.length === 0 ? result : { ...result, warnings }
}

/** The accounts with a list of their own whose list `catalogue` does not have; `only`: these lists' accounts. */
async function fallbacksOf(
  context: Context,
  catalogue: Catalogue,
  only?: ReadonlySet<string>,
): Promise<PriceListFallback[]> {
  const accounts = (await listAccountPriceLists(context.db)).map((row) => ({
    accountId: formatId('acc', row.id),
    priceList: row.priceList,
  }))
  return priceListFallbacks(catalogue.priceLists, accounts, only)
}

async function activationWarnings(context: Context, version: number): Promise<string[]> {
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new CatalogueVersionError(`"${version}" is not a catalogue version (a number from 1)`)
  }
  const catalogue = await load(context, version)
  return priceListFallbackWarnings(await fallbacksOf(context, catalogue), `catalogue version ${version}`)
}

async function versionText(context: Context, version: number): Promise<string> {
  const content = Number.isSafeInteger(version) ? await readCatalogueContent(context.db, version) : undefined
  if (content === undefined) throw new CatalogueVersionError(`no catalogue version ${version}`)
  return content
}

async function load(context: Context, version: number): Promise<Catalogue> {
  const kept = context.live?.kept(version)
  if (kept) return kept
  const content = await versionText(context, version)
  const row = await findCatalogueVersion(context.db, version)
  const catalogue = parsed(context, content, row?.sourceName ?? `catalogue v${version}`)
  return context.live ? context.live.keep(catalogue, version) : catalogue
}

async function catalogueOf(context: Context, version: number | null): Promise<Catalogue> {
  const live = requireLive(context)
  if (version === null || version === live.version) return live.current()
  try {
    return await load(context, version)
  } catch (error) {
    if (!(error instanceof CatalogueVersionError)) throw error
    context.log.warn(
      { catalogueVersion: version, err: error },
      `catalogue version ${version} cannot be read: the served one is used`,
    )
    return live.current()
  }
}

function requireLive(context: Context): LiveCatalogue {
  if (!context.live) throw new Error('the catalogue versions service has not started')
  return context.live
}

async function start(context: Context, starting: StartingCatalogue, actor: AuditActor): Promise<LiveCatalogue> {
  const sha256 = sha256Of(starting.text)
  const chosen = await context.db.transaction(async (tx) => {
    const active = await readActiveCatalogue(tx, true)
    if (active.version !== null && !starting.explicit) return active.version
    const activeRow = active.version === null ? undefined : await findCatalogueVersion(tx, active.version)
    if (activeRow?.sha256 === sha256) return activeRow.version
    const stored = await store(tx, context, starting.text, starting.sourceName, actor)
    await makeActive(tx, context, active, stored.version, actor)
    return stored.version
  })
  const startingVersion = (await findCatalogueVersionBySha256(context.db, sha256))?.version
  const catalogue =
    startingVersion === chosen
      ? starting.catalogue
      : parsed(context, await versionText(context, chosen), `catalogue v${chosen}`)
  context.live = createLiveCatalogue(catalogue, chosen)
  context.log.info({ catalogueVersion: chosen }, `serving catalogue version ${chosen}`)
  logWarnings(context, catalogue, chosen)
  return context.live
}

/** The catalogue's warnings (docs/billing.md#price-lists: a fixed price below a lab's cost), one line each. */
function logWarnings(context: Context, catalogue: Catalogue, version: number): void {
  for (const warning of catalogue.warnings) {
    context.log.warn({ catalogueVersion: version }, `catalogue version ${version}: ${warning}`)
  }
}

/** Runs after the refresh under way, if any (the watcher's tick and an activation in this process may overlap). */
async function refresh(context: Context): Promise<boolean> {
  const previous = context.refreshing ?? Promise.resolve(false)
  const next = previous.catch(() => false).then(() => refreshNow(context))
  context.refreshing = next
  try {
    return await next
  } finally {
    if (context.refreshing === next) context.refreshing = null
  }
}

async function refreshNow(context: Context): Promise<boolean> {
  const live = context.live
  if (!live) return false
  const { version } = await readActiveCatalogue(context.db)
  if (version === null || version === live.version) return false
  const from = live.version
  try {
    const loaded = await load(context, version)
    live.switchTo(loaded, version)
    logWarnings(context, loaded, version)
  } catch (error) {
    // Validated on import, so not expected: the version served stays, and the next poll tries again.
    context.log.error(
      { catalogueVersion: version, err: error },
      `catalogue version ${version} was activated but cannot be loaded: still serving version ${from}`,
    )
    return false
  }
  context.log.info({ catalogueVersion: version, previousVersion: from }, `switched to catalogue version ${version}`)
  return true
}

async function activeCatalogue(context: Context): Promise<Catalogue> {
  const { version } = await readActiveCatalogue(context.db)
  if (version !== null) return load(context, version)
  const sample = context.sample()
  return parsed(context, sample.text, sample.sourceName)
}

async function list(context: Context): Promise<CatalogueVersionView[]> {
  const active = await readActiveCatalogue(context.db)
  return (await listCatalogueVersions(context.db)).map((row) => toView(row, active))
}

async function diff(context: Context, from: number, to: number): Promise<CatalogueDiff> {
  const [a, b] = [await load(context, from), await load(context, to)]
  // The accounts whose list `from` has and `to` takes away.
  const removed = new Set(a.priceLists.names.filter((name) => b.priceLists.find(name) === undefined))
  const accounts = removed.size === 0 ? [] : await fallbacksOf(context, b, removed)
  return diffCatalogues(from, a, to, b, accounts)
}

export function createCatalogueVersionsService(deps: CatalogueVersionsDeps): CatalogueVersionsService {
  const context: Context = { ...deps, live: null, refreshing: null }
  return {
    import: (content, sourceName, actor, options) => importVersion(context, content, sourceName, actor, options),
    list: () => list(context),
    diff: (from, to) => diff(context, from, to),
    activate: (version, actor) => activate(context, version, actor),
    activationWarnings: (version) => activationWarnings(context, version),
    export: (version) => versionText(context, version),
    active: () => readActiveCatalogue(context.db),
    activeCatalogue: () => activeCatalogue(context),
    catalogueOf: (version) => catalogueOf(context, version),
    start: (starting, actor) => start(context, starting, actor),
    refresh: () => refresh(context),
    live: () => requireLive(context),
  }
}
