// `printroute serve` as an operator runs it: a real process on real ports with the embedded database.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { BIN, printroute } from '../support/cli.ts'

interface Running {
  child: ChildProcess
  output: () => string
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  exited: Promise<number | null>
}

function startServe(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--sandbox-port', '0', ...args], {
    env: { ...process.env, DATABASE_URL: '', PRINTROUTE_DATA_DIR: '' },
  })
  let output = ''
  const listeners = new Set<() => void>()
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      if (signal) output += `\n[terminated by ${signal}]`
      resolve(code)
    }),
  )
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern)
          if (match) {
            listeners.delete(check)
            clearTimeout(timer)
            resolve(match)
          }
        }
        const timer = setTimeout(() => {
          listeners.delete(check)
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`))
        }, timeoutMs)
        listeners.add(check)
        check()
      })
    },
  }
}

describe('printroute serve', () => {
  let dataDir: string
  let server: Running
  let sandboxUrl: string
  let liveUrl: string
  let demoKey: string

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'printroute-serve-'))
    server = startServe(['--data-dir', dataDir, '--log-level', 'info'])
    liveUrl = (await server.waitFor(/Live API ready at (http:\/\/127\.0\.0\.1:\d+\/v4\.0)/))[1]!
    sandboxUrl = (await server.waitFor(/Sandbox API ready at (http:\/\/127\.0\.0\.1:\d+\/v4\.0)/))[1]!
    demoKey = (await server.waitFor(/^\s+(pr_sandbox_\S+)$/m))[1]!
  })

  after(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('on an empty database it prints a demo Sandbox key and a curl command that works as printed', async () => {
    const curl = server
      .output()
      .match(/curl -s -X POST (\S+) -H 'X-API-Key: (\S+)' -H 'Content-Type: application\/json' \\\n\s+-d '(.+)'/)
    assert.ok(curl, server.output())
    assert.equal(curl[1], `${sandboxUrl}/orders`)
    assert.equal(curl[2], demoKey)
    const response = await fetch(curl[1]!, {
      method: 'POST',
      headers: { 'x-api-key': curl[2]!, 'content-type': 'application/json' },
      body: curl[3],
    })
    assert.equal(response.status, 200)
    const body = (await response.json()) as any
    assert.equal(body.outcome, 'Created')
    assert.match(response.headers.get('traceparent') ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    const fetched = await fetch(`${sandboxUrl}/orders/${body.order.id}`, { headers: { 'x-api-key': demoKey } })
    assert.equal(fetched.status, 200)
    assert.deepEqual(((await fetched.json()) as any).order, body.order)
  })

  test('Live and Sandbox are separate addresses; the Sandbox key is refused on Live', async () => {
    assert.notEqual(liveUrl, sandboxUrl)
    const response = await fetch(`${liveUrl}/orders`, { headers: { 'x-api-key': demoKey } })
    assert.equal(response.status, 401)
    assert.equal(((await response.json()) as any).outcome, 'Unauthorized')
  })

  test('a second process cannot open the same data directory', async () => {
    const second = await printroute(['accounts', 'list', '--data-dir', dataDir])
    assert.equal(second.code, 1)
    assert.match(second.stderr, /in use by process \d+/)
  })

  test('SIGTERM stops it gracefully and releases the data directory', async () => {
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output().slice(-3000))
    assert.match(server.output(), /stopped/)
    const listed = await printroute(['accounts', 'list', '--data-dir', dataDir])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, /Demo merchant/)
    // A restart on the same data keeps the accounts and creates no second demo account.
    const restarted = startServe(['--data-dir', dataDir])
    await restarted.waitFor(/Sandbox API ready/)
    restarted.child.kill('SIGINT')
    assert.equal(await restarted.exited, 0)
    assert.doesNotMatch(restarted.output(), /Demo account created/)
  })
})
