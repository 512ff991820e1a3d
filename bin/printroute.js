#!/usr/bin/env -S node --liftoff-only
// The printroute command line. Run through npm scripts or npx, `node` is the project's pinned Node 24,
// which runs the TypeScript sources directly.
import module from 'node:module'
import v8 from 'node:v8'

// Another node on the PATH (the system's, run as `node bin/printroute.js`) cannot load the sources.
if (!process.features.typescript) {
  process.stderr.write(
    `printroute runs on the project's own Node 24, not on Node ${process.versions.node}: start it with ` +
      '`npm start`, `npx printroute`, or `node_modules/.bin/node bin/printroute.js`\n',
  )
  process.exit(1)
}
stopWhenLauncherEnds()

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

/**
 * Under npm, stops this process (as SIGTERM does) when the process that started it goes away.
 *
 * npm runs a script or an npx bin through `sh -c`, and forwards the SIGTERM or SIGINT it receives to that
 * shell only. Debian's sh (dash) neither passes a signal on to its child nor execs its last command: it
 * dies, npm exits, and printroute went on running under PID 1, still on its ports. `npm start` avoids the
 * shell (its script execs node), but npx runs the bin through one that no script of ours can change, and so
 * does any script that calls printroute without exec. A process's parent only changes when it dies, so
 * watching our own parent id catches every such launcher; the check is one system call a second.
 * Outside npm nothing is watched: there a parent may end on purpose (`nohup printroute serve &` from a
 * terminal that then closes) and the service must stay up.
 */
function stopWhenLauncherEnds() {
  if (!process.env.npm_lifecycle_event) return
  const launcher = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === launcher) return
    clearInterval(watch)
    process.stderr.write(`printroute: the process that started it (pid ${launcher}) ended; stopping as on SIGTERM\n`)
    process.kill(process.pid, 'SIGTERM')
  }, 1000)
  // The watch alone keeps no command running.
  watch.unref()
}
