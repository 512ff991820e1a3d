// The admin channel: how a CLI command reaches a running `serve` that holds the embedded database. PGlite
// has no server, so only one process may open the data directory; the process that holds it listens on a
// Unix socket inside the data directory and runs the commands' operations itself, so their effect is
// visible to it at once (a key created this way authenticates on the next request). The socket sits in a
// directory only its owner may enter (0700), so only the user running printroute (and root) can use it.
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { Agent, request } from 'undici'
import { CATALOGUE_BODY_LIMIT_BYTES } from '../domain/limits.ts'

/** Unix socket paths are limited to 108 bytes on Linux (104 on macOS); longer ones go to the temp directory. */
const MAX_SOCKET_PATH_BYTES = 100

/** The socket of a data directory: `DIR/run/admin.sock`, or under the temp directory when that is too long. */
export function adminSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, 'run', 'admin.sock')
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return inDataDir
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 16)
  return join(tmpdir(), `printroute-${digest}`, 'admin.sock')
}

/** An operation's refusal as the channel carries it: the message and the exit code the command ends with. */
export interface AdminRefusal {
  message: string
  exitCode: number
}

export type AdminHandler = (operation: string, input: unknown) => Promise<unknown>

export interface AdminChannel {
  path: string
  close(): Promise<void>
}

/** Listens on the data directory's admin socket. Call it only while holding the data directory's lock. */
export async function startAdminChannel(dataDir: string, handle: AdminHandler): Promise<AdminChannel> {
  const path = adminSocketPath(dataDir)
  const directory = join(path, '..')
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  chmodSync(directory, 0o700)
  // A socket left by a process that died: the lock we hold says nobody else is listening on it.
  rmSync(path, { force: true })
  // Operations carry catalogue files (`catalogue import`): the limit fits the largest one accepted.
  const server = Fastify({ logger: false, bodyLimit: CATALOGUE_BODY_LIMIT_BYTES })
  server.post<{ Params: { operation: string } }>('/operations/:operation', async (request, reply) => {
    try {
      return { result: (await handle(request.params.operation, request.body ?? {})) ?? null }
    } catch (error) {
      // Refusals carry the exit code they mean (2: fix the command); anything else is a failure (1).
      const carried = (error as { exitCode?: unknown }).exitCode
      const exitCode = typeof carried === 'number' ? carried : 1
      return reply.code(exitCode === 2 ? 400 : 500).send({ error: { message: (error as Error).message, exitCode } })
    }
  })
  await server.listen({ path })
  chmodSync(path, 0o600)
  return {
    path,
    async close() {
      await server.close()
      rmSync(path, { force: true })
    },
  }
}

/** The answer when no process listens on the data directory's socket: the caller opens the data itself. */
export const NOT_RUNNING = Symbol('no admin channel')

/** Runs an operation in the process serving `dataDir`, if one listens there. */
export async function callAdminChannel(
  dataDir: string,
  operation: string,
  input: unknown,
): Promise<{ result: unknown } | { error: AdminRefusal } | typeof NOT_RUNNING> {
  const path = adminSocketPath(dataDir)
  if (!existsSync(path)) return NOT_RUNNING
  const dispatcher = new Agent({ connect: { socketPath: path } })
  try {
    const answer = await request(`http://printroute/operations/${encodeURIComponent(operation)}`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    })
    return (await answer.body.json()) as { result: unknown } | { error: AdminRefusal }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // A socket file with nobody behind it: its process died without removing it.
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return NOT_RUNNING
    throw error
  } finally {
    await dispatcher.close()
  }
}
