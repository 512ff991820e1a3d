// Composition root: opens the database, loads the catalogue, builds the services and the two HTTP servers
// (Live and Sandbox). No business logic lives here.
import { join } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { type Clock, systemClock } from './adapters/clock.ts'
import { type DataDirLock, lockDataDir } from './adapters/data-dir-lock.ts'
import { type Database, PgliteDatabase, PostgresDatabase } from './adapters/database.ts'
import { migrate } from './adapters/migrator.ts'
import { loadCatalogue } from './catalogue/catalogue.loader.ts'
import type { Catalogue } from './catalogue/catalogue.ts'
import type { DatabaseSettings } from './config.ts'
import { type App, buildHttpServer } from './http/server.ts'
import { createAccountsService } from './services/accounts.service.ts'
import { createOrdersService } from './services/orders.service.ts'
import { createProductsService } from './services/products.service.ts'

export interface OpenedDatabase {
  db: Database
  close(): Promise<void>
}

/** Opens the configured database (locking the data directory for PGlite) and applies pending migrations. */
export async function openDatabase(settings: DatabaseSettings): Promise<OpenedDatabase> {
  if (settings.databaseUrl) {
    const db = await PostgresDatabase.open(settings.databaseUrl)
    await migrate(db)
    return { db, close: () => db.close() }
  }
  const lock: DataDirLock = lockDataDir(settings.dataDir)
  try {
    const db = await PgliteDatabase.open(join(settings.dataDir, 'pgdata'))
    await migrate(db)
    return {
      db,
      async close() {
        await db.close()
        lock.release()
      },
    }
  } catch (error) {
    lock.release()
    throw error
  }
}

export function buildServices(deps: { db: Database; catalogue: Catalogue; clock?: Clock }) {
  const clock = deps.clock ?? systemClock
  return {
    accounts: createAccountsService({ db: deps.db, clock }),
    orders: createOrdersService({ db: deps.db, catalogue: deps.catalogue, clock }),
    products: createProductsService({ catalogue: deps.catalogue }),
  }
}
export type Services = ReturnType<typeof buildServices>

export interface Application {
  services: Services
  live: App
  sandbox: App
  close(): Promise<void>
}

export async function buildApplication(options: {
  db: Database
  catalogue?: Catalogue
  clock?: Clock
  logger: FastifyBaseLogger | boolean
  requestTimeoutMs?: number
}): Promise<Application> {
  const catalogue = options.catalogue ?? loadCatalogue()
  const services = buildServices({ db: options.db, catalogue, clock: options.clock })
  const common = { services, logger: options.logger, requestTimeoutMs: options.requestTimeoutMs }
  const live = await buildHttpServer({ ...common, environment: 'live' })
  const sandbox = await buildHttpServer({ ...common, environment: 'sandbox' })
  return {
    services,
    live,
    sandbox,
    async close() {
      await Promise.all([live.close(), sandbox.close()])
    },
  }
}
