// The child side of `startCliSession` (cli.ts): runs each command line the parent sends, in this one process,
// and answers with its exit code and what it wrote. Spawning Node and loading printroute is most of what a
// short command costs, so a test of many commands pays for it once.
import { runCli } from '../../src/main.ts'
import type { CliResult, CliSessionRequest } from './cli.ts'

async function run({ args, env }: CliSessionRequest): Promise<CliResult> {
  const savedEnv = { ...process.env }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  const written = { stdout: '', stderr: '' }
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write }
  for (const stream of ['stdout', 'stderr'] as const) {
    process[stream].write = ((chunk: string | Uint8Array) => {
      written[stream] += chunk.toString()
      return true
    }) as typeof process.stdout.write
  }
  try {
    const code = await runCli(args)
    return { code, ...written }
  } catch (error) {
    return { code: 1, stdout: written.stdout, stderr: `${written.stderr}${(error as Error).stack}\n` }
  } finally {
    process.stdout.write = writes.stdout
    process.stderr.write = writes.stderr
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name]
    Object.assign(process.env, savedEnv)
  }
}

process.on('message', (request: CliSessionRequest) => {
  void run(request).then((result) => process.send?.(result))
})
