// Local scratch space for a file being worked on (an asset between its download and the blob store): a
// private directory per use, removed afterwards whatever happened.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Runs `use` with the path of a file that does not exist yet, in a fresh directory removed once `use` settles. */
export async function withScratchFile<R>(use: (path: string) => Promise<R>): Promise<R> {
  const workDir = await mkdtemp(join(tmpdir(), 'printroute-download-'))
  try {
    return await use(join(workDir, 'file'))
  } finally {
    await rm(workDir, { recursive: true, force: true })
  }
}
