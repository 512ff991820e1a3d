// The runner shares a few processes among most test files (test/run-suite.ts). A file that spawns processes, sets
// process.env or installs process-wide handlers must run in a process of its own (OWN_PROCESS): this test finds
// such files by their sources (test/support/own-process.ts) and fails when one is not on the list.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, test } from 'node:test'
import { OWN_PROCESS, processWideReasons, runsAlone, SHARDED_ALTHOUGH_SPAWNING } from './support/own-process.ts'
import { tier } from './support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..')

async function testFiles(): Promise<string[]> {
  const files: string[] = []
  for await (const file of glob(['src/**/*.test.ts', 'test/**/*.test.ts'], { cwd: ROOT })) files.push(file)
  return files.sort()
}

describe('the files that need a process of their own', () => {
  test('a test file that spawns processes, sets process.env or installs process-wide handlers runs alone', async () => {
    const sharded = (await testFiles())
      .filter((file) => !runsAlone(file) && !(file in SHARDED_ALTHOUGH_SPAWNING))
      .map((file) => ({ file, reasons: processWideReasons(file) }))
      .filter(({ reasons }) => reasons.length > 0)
    assert.deepEqual(sharded, [], 'add these files to OWN_PROCESS in test/support/own-process.ts')
  })

  test('the sharded files that spawn all the same still do, and are still sharded', () => {
    for (const file of Object.keys(SHARDED_ALTHOUGH_SPAWNING)) {
      assert.ok(!runsAlone(file), `${file} runs alone now: drop it from SHARDED_ALTHOUGH_SPAWNING`)
      assert.notDeepEqual(
        processWideReasons(file),
        [],
        `${file} no longer spawns: drop it from SHARDED_ALTHOUGH_SPAWNING`,
      )
    }
  })

  test('every pattern of OWN_PROCESS matches a test file', async () => {
    const files = await testFiles()
    assert.deepEqual(
      OWN_PROCESS.filter((pattern) => !files.some((file) => pattern.test(file))).map(String),
      [],
      'these patterns match no file any more',
    )
  })

  test('the scan flags what spawns or changes the process, itself or through a helper, and nothing else', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'printroute-own-process-'))
    try {
      // Each sign is written with a ~ inside, taken out below: the scan reads this file too, and must find none here.
      const files: Record<string, string> = {
        'test/support/spawner.ts':
          "import { spawn } from 'node:child~_process'\nexport const start = () => spawn('true')\n",
        'test/support/relay.ts': "export { start } from './spawner.ts'\n",
        'test/support/databases.ts': "process.~on('beforeExit', () => {})\n",
        'test/support/quiet.ts':
          "import { readFileSync } from 'node:fs'\nexport const read = () => readFileSync('x')\n",
        'test/probe/spawns.test.ts': "import { execFile } from 'node:child~_process'\nexecFile('true')\n",
        'test/probe/imports-spawner.test.ts': "import { start } from '../support/spawner.ts'\nstart()\n",
        'test/probe/imports-relay.test.ts': "import { start } from '../support/relay.ts'\nstart()\n",
        'test/probe/sets-env.test.ts': "process.env.PRINTROUTE_X ~= '1'\n",
        'test/probe/handler.test.ts': "process.~once('uncaughtException', () => {})\n",
        'test/probe/quiet.test.ts':
          "import { read } from '../support/quiet.ts'\nimport '../support/databases.ts'\n" +
          "if (process.env.PRINTROUTE_X === '1') read()\n",
      }
      for (const [file, source] of Object.entries(files)) {
        mkdirSync(join(scratch, dirname(file)), { recursive: true })
        writeFileSync(join(scratch, file), source.replaceAll('~', ''))
      }
      const flagged = Object.keys(files)
        .filter((file) => file.startsWith('test/probe/'))
        .filter((file) => processWideReasons(file, scratch).length > 0)
      assert.deepEqual(flagged.sort(), [
        'test/probe/handler.test.ts',
        'test/probe/imports-relay.test.ts',
        'test/probe/imports-spawner.test.ts',
        'test/probe/sets-env.test.ts',
        'test/probe/spawns.test.ts',
      ])
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  })
})
