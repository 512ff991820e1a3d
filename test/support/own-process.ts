// Which test files run in a process of their own (test/run-suite.ts), and how a file shows that it needs one:
// it spawns processes, changes the process's environment variables or installs process-wide handlers, itself or
// through a helper of test/support/ it imports. test/own-process.test.ts fails when such a file is not listed.
// The scan reads sources, it does not run them: a spawn inside src/ code a test calls (PGlite's first start runs
// initdb) is not seen, so such a file is listed by hand.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/** Files run in a process of their own. */
export const OWN_PROCESS: RegExp[] = [
  /^test\/cli\//, // spawned processes
  /^src\/adapters\/s3-blob-store\.test\.ts$/, // sets the AWS_* environment variables
  /^src\/adapters\/pglite-first-start\.test\.ts$/, // spawns the initdb child process (in src/adapters/database.ts)
  /^src\/adapters\/image-renderer\.colour\.test\.ts$/, // spawns transicc and a fresh Node process (reproducing a print file)
  /^test\/sdk\/sdk\.package\.test\.ts$/, // packs and installs the SDK
  /^test\/architecture\/boundaries\.test\.ts$/, // runs Biome
]

export const runsAlone = (file: string) => OWN_PROCESS.some((pattern) => pattern.test(file))

/**
 * Sharded files that spawn processes all the same, on purpose: each awaits its short-lived child (curl, tsc),
 * which changes nothing in the test process, so it can leak nothing into the files beside it; a process of its own
 * would cost the browser file a Chromium of its own. An entry fails the check once its file no longer spawns.
 */
export const SHARDED_ALTHOUGH_SPAWNING: Record<string, string> = {
  'test/docs/api-examples.test.ts': 'runs curl (execFile) for every example in the docs',
  'test/sdk/sdk.browser.test.ts': 'compiles the SDK with tsc (execFile) once, before its browser tests',
  'src/adapters/pdf-colour-converter.test.ts':
    "runs Ghostscript (and stand-ins of it, one killed at the time bound) through the adapter's execFile",
}

/**
 * Helpers of test/support/ that do something process-wide by design of the shards, so importing them does not
 * call for a process of one's own.
 */
const SHARD_SAFE_HELPERS: Record<string, string> = {
  // One beforeExit handler per process, installed on import: it drops the schemas of every file the process ran.
  'test/support/databases.ts': 'drops the test schemas before the process exits',
}

/** What in a source shows a process-wide effect, and how a reason names it. */
const PROCESS_WIDE_SIGNS: Array<[RegExp, string]> = [
  [/from\s+'(node:)?(child_process|cluster)'|import\(\s*'(node:)?(child_process|cluster)'\s*\)/, 'spawns processes'],
  [
    /process\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)|delete\s+process\.env|Object\.assign\(\s*process\.env/,
    'sets process.env',
  ],
  [/process\.(on|once|addListener|prependListener|prependOnceListener)\(/, 'installs a process-wide handler'],
  [/process\.(chdir|umask|setUncaughtExceptionCaptureCallback)\(/, 'changes the process itself'],
]

/** The relative imports of `file` (relative to `root`) that land in test/support/, as paths relative to `root`. */
function supportImportsOf(source: string, file: string, root: string): string[] {
  const imports: string[] = []
  for (const [, specifier = ''] of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = relative(root, resolve(root, dirname(file), specifier))
    if (target.startsWith('test/support/') && existsSync(join(root, target))) imports.push(target)
  }
  return imports
}

/**
 * Why `file` (a path relative to `root`) needs a process of its own: what its source does, and what the helpers
 * of test/support/ it imports (directly or through one another) do on its behalf. Empty when nothing.
 */
export function processWideReasons(file: string, root = ROOT, seen = new Set<string>()): string[] {
  if (seen.has(file)) return []
  seen.add(file)
  const source = readFileSync(join(root, file), 'utf8')
  const reasons = PROCESS_WIDE_SIGNS.filter(([sign]) => sign.test(source)).map(([, reason]) => reason)
  for (const helper of supportImportsOf(source, file, root)) {
    if (helper in SHARD_SAFE_HELPERS) continue
    const helperReasons = processWideReasons(helper, root, seen)
    if (helperReasons.length > 0) reasons.push(`imports ${helper}, which ${helperReasons.join(', ')}`)
  }
  return reasons
}
