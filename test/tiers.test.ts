// Every test file declares its tier (test/support/tiers.ts): what it needs, and so which databases it runs on.
// This test reads the sources: it refuses a file that declares no tier or more than one, a `pure` file that opens
// a database (itself, or through a helper of test/support/ it imports), and a mismatch with the browser helper.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, test } from 'node:test'
import { TEST_TIERS, type TestTier, tier } from './support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..')

async function testFiles(): Promise<string[]> {
  const files: string[] = []
  for await (const file of glob(['src/**/*.test.ts', 'test/**/*.test.ts'], { cwd: ROOT })) files.push(file)
  return files.sort()
}

/** The tiers a source declares, in order. */
function declaredTiers(source: string): string[] {
  return [...source.matchAll(/^(?:const \w+ = )?tier\('(\w+)'\)$/gm)].map(([, declared = '']) => declared)
}

/** The modules whose import shows that a file opens a database (itself, or through a test app or the CLI). */
const DATABASE_MODULES = ['test/support/databases.ts', 'src/adapters/database.ts', 'src/app.ts', '@electric-sql/pglite']

/** What `file` imports: relative specifiers as paths relative to `root`, packages as they are named. */
function importsOf(file: string, root: string): string[] {
  // A type-only import loads nothing when the file runs.
  const source = readFileSync(join(root, file), 'utf8').replace(/^import type [^']*'[^']+'/gm, '')
  return [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(([, specifier = '']) =>
    specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier)) : specifier,
  )
}

/** The helpers of test/support/ that `file` imports, directly or through one another. */
function supportHelpersOf(file: string, root: string, seen = new Set<string>()): string[] {
  for (const target of importsOf(file, root)) {
    if (!target.startsWith('test/support/') || seen.has(target) || !existsSync(join(root, target))) continue
    seen.add(target)
    supportHelpersOf(target, root, seen)
  }
  return [...seen]
}

/** Why `file` (relative to `root`) breaks the tier rules; empty when it keeps them. */
function tierProblems(file: string, root = ROOT): string[] {
  const source = readFileSync(join(root, file), 'utf8')
  const declared = declaredTiers(source)
  if (declared.length === 0)
    return ["declares no tier: call tier('pure' | 'http' | 'browser' | 'sql') after the imports"]
  if (declared.length > 1) return [`declares ${declared.length} tiers (${declared.join(', ')}): one per file`]
  const [only] = declared
  if (!TEST_TIERS.includes(only as TestTier)) return [`declares the unknown tier '${only}'`]
  const problems: string[] = []
  if (only === 'pure') {
    for (const importer of [file, ...supportHelpersOf(file, root)]) {
      for (const module of importsOf(importer, root).filter((target) => DATABASE_MODULES.includes(target))) {
        const through = importer === file ? '' : ` through ${importer}`
        problems.push(`is pure but opens a database: imports ${module}${through}`)
      }
    }
  }
  if (only === 'browser' && !supportHelpersOf(file, root).includes('test/support/browser.ts')) {
    problems.push('is declared browser but drives no browser (test/support/browser.ts)')
  }
  if (only !== 'browser' && supportHelpersOf(file, root).includes('test/support/browser.ts')) {
    problems.push('drives a browser (test/support/browser.ts): declare it browser')
  }
  return problems
}

describe('every test file declares its tier', () => {
  test('each file declares one known tier, and a pure one opens no database', async () => {
    const problems = (await testFiles())
      .map((file) => ({ file, problems: tierProblems(file) }))
      .filter(({ problems }) => problems.length > 0)
    assert.deepEqual(problems, [], 'see test/support/tiers.ts and docs/testing.md ("Tiers")')
  })

  test('the check refuses what it should, and passes what it should', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'printroute-tiers-'))
    try {
      // Written with a ~ in each sign, taken out below: this file's own source must show none of them.
      const files: Record<string, string> = {
        'test/support/databases.ts': 'export const openTestDatabase = () => {}\n',
        'test/support/test-app.ts': "import { openTestDatabase } from './databases~.ts'\n",
        'test/support/browser.ts': 'export const acquireBrowser = () => {}\n',
        'test/support/wait.ts': 'export const waitFor = () => {}\n',
        'test/probe/undeclared.test.ts': "import { test } from 'node:test'\n",
        'test/probe/twice.test.ts': "tier~('pure')\ntier~('sql')\n",
        'test/probe/unknown.test.ts': "tier~('e2e')\n",
        'test/probe/pure-opens.test.ts': "import { PGlite } from '@electric-sql/pglite~'\ntier~('pure')\n",
        'test/probe/pure-imports-app.test.ts': "import '../support/test-app~.ts'\ntier~('pure')\n",
        'test/probe/browser-without.test.ts': "tier~('browser')\n",
        'test/probe/browser-undeclared.test.ts': "import '../support/browser~.ts'\ntier~('http')\n",
        'test/probe/pure.test.ts':
          "import '../support/wait~.ts'\nimport type { Kind } from '../support/databases~.ts'\ntier~('pure')\n",
        'test/probe/sql.test.ts': "import '../support/test-app~.ts'\nconst databaseKinds = tier~('sql')\n",
        'test/probe/browser.test.ts':
          "import '../support/browser~.ts'\nimport '../support/test-app~.ts'\ntier~('browser')\n",
      }
      for (const [file, source] of Object.entries(files)) {
        mkdirSync(join(scratch, dirname(file)), { recursive: true })
        writeFileSync(join(scratch, file), source.replaceAll('~', ''))
      }
      const refused = Object.keys(files)
        .filter((file) => file.startsWith('test/probe/'))
        .filter((file) => tierProblems(file, scratch).length > 0)
      assert.deepEqual(refused.sort(), [
        'test/probe/browser-undeclared.test.ts',
        'test/probe/browser-without.test.ts',
        'test/probe/pure-imports-app.test.ts',
        'test/probe/pure-opens.test.ts',
        'test/probe/twice.test.ts',
        'test/probe/undeclared.test.ts',
        'test/probe/unknown.test.ts',
      ])
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })

  test('only sql files run on PostgreSQL', () => {
    assert.deepEqual(tier('pure'), [])
    assert.deepEqual(tier('http'), ['pglite'])
    assert.deepEqual(tier('browser'), ['pglite'])
    const both = process.env.PRINTROUTE_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']
    assert.deepEqual(tier('sql'), both)
  })
})
