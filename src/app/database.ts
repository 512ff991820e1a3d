// Opening the configured database: PostgreSQL, or the embedded PGlite in the data directory (locked while open),
// with the pending migrations applied.
import { join } from 'node:path'
import { type DataDirLock, lockDataDir } from '../adapters/data-dir-lock.ts'
import { type Database, PgliteDatabase, PostgresDatabase } from '../adapters/database.ts'
import { migrate } from '../adapters/migrator.ts'
import type { DatabaseSettings } from '../config.ts'

/**
 * What a first start on the embedded database takes, as told while it runs: initdb (in a child process) and the
 * migrations, 8 s on a quiet 2-core machine and 20 s or more on a loaded one (docs/operations.md).
 */
const FIRST_START_SECONDS_TEXT = '20 s'

export interface OpenedDatabase {
  db: Database
  close(): Promise<void>
}

/**
 * Opens the configured database (locking the data directory for PGlite) and applies pending migrations
 * (unless told not to: `printroute migrate` applies them itself to report what it applied).
 */
export async function openDatabase(
  settings: DatabaseSettings,
  options: {
    migrate?: boolean
    /**
     * Told what a first start is doing while it creates the embedded database (tens of seconds with nothing
     * else to say): one line before, one when the database is ready.
     */
    log?: { info(message: string): void }
  } = {},
): Promise<OpenedDatabase> {
  const migrating = options.migrate ?? true
  if (settings.databaseUrl) {
    const db = await PostgresDatabase.open(settings.databaseUrl)
    if (migrating) await migrate(db)
    return { db, close: () => db.close() }
  }
  const lock: DataDirLock = lockDataDir(settings.dataDir)
  try {
    let creatingSince = null as number | null
    const db = await PgliteDatabase.open(join(settings.dataDir, 'pgdata'), {
      onCreate() {
        creatingSince = performance.now()
        options.log?.info(
          `Creating the database in ${settings.dataDir} (first start, about ${FIRST_START_SECONDS_TEXT})...`,
        )
      },
    })
    if (migrating) await migrate(db)
    if (creatingSince !== null) {
      const seconds = ((performance.now() - creatingSince) / 1000).toFixed(1)
      options.log?.info(`Database created in ${seconds} s`)
    }
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
