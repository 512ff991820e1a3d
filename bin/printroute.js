#!/usr/bin/env node
// The printroute command line. Run through npm scripts or npx, `node` is the project's pinned Node 24,
// which runs the TypeScript sources directly.
import module from 'node:module'
import v8 from 'node:v8'

// Node keeps the compiled code of the modules on disk (in the system's temporary directory, or where
// NODE_COMPILE_CACHE says), so every command after the first starts about half a second sooner. Enabled
// before the sources are imported, hence the dynamic import.
module.enableCompileCache?.()
// Starting, V8's young generation would grow from 1 MB to 2 x 32 MB under the burst of compiling every module
// and building the servers, and then stay committed: 40-50 MB of a resting `serve` or `worker`. The growth
// factor is one of the few heap settings V8 reads while running (the size caps are not), so the young
// generation keeps its size while such a process starts, at the price of about a quarter more CPU to start
// (docs/benchmarks.md, "Idle cost"), and may grow again (factor 2, V8's default) under load once it has
// started. Commands that end soon keep V8's default.
const longRunning = ['serve', 'worker'].includes(process.argv[2] ?? '')
if (longRunning) v8.setFlagsFromString('--semi-space-growth-factor=1')
const { runCli } = await import('../src/main.ts')

const exitCode = await runCli(process.argv.slice(2))
if (longRunning) v8.setFlagsFromString('--semi-space-growth-factor=2')
// `serve` keeps running on its servers; every other command has finished here.
if (exitCode !== 0) process.exit(exitCode)
