// Local scratch space for a file being worked on (an asset between its download and the blob store): a
// private directory per use, removed afterwards whatever happened.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
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

/** The SHA-256 of a file's bytes, hex, read as a stream (a download may be up to the size limit). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** Writes `data` to a scratch file's path (a stored file brought back for another look, e.g. a preflight). */
export async function writeScratchFile(path: string, data: Buffer): Promise<void> {
  await writeFile(path, data)
}
