#!/usr/bin/env node
// The printroute command line. Run through npm scripts or npx, `node` is the project's pinned Node 24,
// which runs the TypeScript sources directly.
import module from 'node:module'

// Node keeps the compiled code of the modules on disk (in the system's temporary directory, or where
// NODE_COMPILE_CACHE says), so every command after the first starts about half a second sooner. Enabled
// before the sources are imported, hence the dynamic import.
module.enableCompileCache?.()
const { runCli } = await import('../src/main.ts')

const exitCode = await runCli(process.argv.slice(2))
// `serve` keeps running on its servers; every other command has finished here.
if (exitCode !== 0) process.exit(exitCode)
