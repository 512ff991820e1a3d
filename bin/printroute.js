#!/usr/bin/env node
// The printroute command line. Run through npm scripts or npx, `node` is the project's pinned Node 24,
// which runs the TypeScript sources directly.
import { runCli } from '../src/main.ts'

const exitCode = await runCli(process.argv.slice(2))
// `serve` keeps running on its servers; every other command has finished here.
if (exitCode !== 0) process.exit(exitCode)
