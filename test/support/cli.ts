// Runs the printroute command line as a child process, the way a user does.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'printroute.js')

export async function printroute(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: '', PRINTROUTE_DATA_DIR: '', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}
