// The V8 flags every printroute process runs with, decided here once. They must be on node's own command line
// (V8 freezes its WebAssembly settings when it starts: `v8.setFlagsFromString` at run time does not take, and
// NODE_OPTIONS refuses V8 flags), so the launchers repeat them: package.json's `start` script, the shebang of
// bin/printroute.js, the systemd unit and the Dockerfile of docs/operations.md; test/cli/launchers.test.ts
// checks that each carries exactly these. The test helpers and benchmarks that spawn printroute take them from
// here.
//
// --liftoff-only: V8 compiles the embedded database's WebAssembly (PGlite's postgres, 9 MB) with its baseline
// compiler only. By default V8 recompiles hot functions with its optimising compiler in the background, and one
// function of postgres (100 KB of WebAssembly) alone takes 640 MB of compiler memory: a `serve` on PGlite went
// from 360 MB to 530-620 MB resident within a second of idling, peaked at 870 MB on an existing data directory
// and at 1.16 GB on a new one. With the flag: 255-300 MB, and no peak above that. The price is PGlite's query
// speed once warm (docs/benchmarks.md, "Idle cost"); a process on PostgreSQL runs no WebAssembly and is not
// affected.
export const PRINTROUTE_NODE_FLAGS: readonly string[] = ['--liftoff-only']
