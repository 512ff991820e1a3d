// The embedded database may be opened by one process only: PGlite has no server to arbitrate, and two
// writers corrupt it. A lock file holding the owner's pid guards the data directory; a lock left by a
// process that no longer exists (kill -9, power loss) is taken over.
// Hand-written rather than proper-lockfile, whose staleness is time-based (a timer refreshes the lock's
// mtime; a lock older than `stale`, at least 2 s, is someone else's to take): a lock left by kill -9 would
// refuse the next start for up to that long instead of being taken over at once, and a process whose event
// loop is blocked longer than `stale` (PGlite runs its queries on the main thread) would have its live lock
// taken over, the very two-writer corruption this lock exists to prevent, and then throw from the timer.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export class DataDirLockedError extends Error {}

export interface DataDirLock {
  release(): void
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // A killed process whose parent has not reaped it yet (a zombie) still answers signal 0 but holds nothing.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true // no /proc (not Linux): trust the signal
  }
}

export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true })
  const lockPath = join(dataDir, 'printroute.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      let released = false
      return {
        release() {
          if (released) return
          released = true
          rmSync(lockPath, { force: true })
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const owner = Number(readFileSync(lockPath, 'utf8').trim())
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processIsAlive(owner)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by process ${owner}. The embedded database allows one ` +
            'process at a time: stop that process, or use a PostgreSQL server (DATABASE_URL) to run several.',
        )
      }
      rmSync(lockPath, { force: true }) // stale: its owner is gone
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`)
}
