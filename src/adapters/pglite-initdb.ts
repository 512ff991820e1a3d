// Creates a new PGlite data directory (PostgreSQL's initdb), run as a short-lived child process by
// PgliteDatabase.open, so the memory initdb needs is given back to the system when the child exits instead of
// staying in the serving process: `node --liftoff-only pglite-initdb.ts <directory>`.
//
// PGlite's own first start keeps two postgres instances in memory at once (the one it opens and a second that
// runs initdb, whose files it then copies over as a tarball): 630-700 MB at its peak even with --liftoff-only.
// Run on its own, against the directory directly, initdb peaks at about 450 MB. That uses PGlite's initdb
// function, which the package does not export by name: it is looked up in the exact version pinned in
// package.json, and any other version falls back to PGlite's own first start (correct, only larger);
// `pglite-initdb.ts --check` says which one this install gets.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

/** The PGlite version whose initdb module is known, and the name its function is exported under there. */
const KNOWN_INITDB = { version: '0.5.16', chunk: 'chunk-N66TTF7B.js', exportName: 'h' }

type InitdbFunction = (options: { pg: PGlite }) => Promise<{ exitCode: number; stderr: string }>

async function findInitdb(): Promise<InitdbFunction | null> {
  const distDir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'))
  const { version } = JSON.parse(readFileSync(join(distDir, '..', 'package.json'), 'utf8')) as { version: string }
  if (version !== KNOWN_INITDB.version) return null
  const chunk = (await import(pathToFileURL(join(distDir, KNOWN_INITDB.chunk)).href)) as Record<string, unknown>
  const initdb = chunk[KNOWN_INITDB.exportName]
  return typeof initdb === 'function' ? (initdb as InitdbFunction) : null
}

async function createDataDirectory(directory: string): Promise<void> {
  const initdb = await findInitdb()
  if (!initdb) {
    const db = new PGlite(directory)
    await db.waitReady
    await db.close()
    return
  }
  // An instance that does not start postgres, only gives initdb its file system (the directory, mounted).
  const pg = await PGlite.create(directory, { noInitDb: true })
  try {
    const result = await initdb({ pg })
    if (result.exitCode !== 0) throw new Error(`initdb failed (exit code ${result.exitCode}): ${result.stderr}`)
  } finally {
    await pg.close()
  }
}

const directory = process.argv[2]
if (!directory) {
  process.stderr.write('usage: pglite-initdb.ts <new data directory> | --check\n')
  process.exit(2)
}
if (directory === '--check') {
  // Whether the lean first start is in use: a PGlite upgrade silently falls back to the larger one, so a test
  // runs this and fails until KNOWN_INITDB names the new version's initdb.
  const found = (await findInitdb()) !== null
  process.stdout.write(
    found ? 'initdb: found\n' : `initdb: not found for this PGlite (known: ${KNOWN_INITDB.version})\n`,
  )
  process.exit(found ? 0 : 1)
}
await createDataDirectory(directory)
