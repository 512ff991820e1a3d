// GET /healthz and /readyz on both ports, without a key: ready while the database, the job queue and the blob
// store work; 503 NotReady in the documented error format naming the failing check when one really fails
// (an unwritable files directory, a closed database, a database that does not answer in time).
import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('sql')

const TRACEPARENT = /^00-[\da-f]{32}-[\da-f]{16}-01$/

function get(t: TestApp, server: 'live' | 'sandbox', url: string): Promise<LightMyRequestResponse> {
  return t.app[server].inject({ method: 'GET', url })
}

function assertNotReady(response: LightMyRequestResponse, failing: string[]): Record<string, any> {
  assert.equal(response.statusCode, 503, response.body)
  const body = json(response)
  assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
  assert.equal(body.outcome, 'NotReady')
  assert.equal(body.statusCode, 503)
  assert.equal(body.traceParent, response.headers.traceparent)
  for (const name of failing) {
    assert.match(body.statusText, new RegExp(name))
    assert.equal(body.data.checks[name].ok, false, name)
    assert.equal(typeof body.data.checks[name].error, 'string')
  }
  return body
}

for (const kind of databaseKinds) {
  describe(`health endpoints (${kind})`, () => {
    test('healthz and readyz answer on both ports without an API key', async () => {
      const t = await startTestApp({ kind })
      try {
        for (const server of ['live', 'sandbox'] as const) {
          const alive = await get(t, server, '/healthz')
          assert.equal(alive.statusCode, 200)
          assert.deepEqual(Object.keys(json(alive)), ['outcome', 'traceParent'])
          assert.equal(json(alive).outcome, 'Ok')
          assert.match(String(alive.headers.traceparent), TRACEPARENT)

          const ready = await get(t, server, '/readyz')
          assert.equal(ready.statusCode, 200, ready.body)
          const body = json(ready)
          assert.equal(body.outcome, 'Ok')
          assert.deepEqual(Object.keys(body.checks), ['database', 'jobQueue', 'blobStore'])
          for (const check of Object.values(body.checks) as { ok: boolean; ms: number }[]) {
            assert.equal(check.ok, true)
            assert.equal(typeof check.ms, 'number')
          }
          assert.equal(ready.headers['cache-control'], 'no-store')
        }
        // Outside /v4.0 only; the versioned path does not exist.
        assert.equal((await get(t, 'live', '/v4.0/healthz')).statusCode, 404)
      } finally {
        await t.close()
      }
    })

    test('an unwritable blob store makes readyz answer 503 naming blobStore, until it is writable again', async () => {
      const t = await startTestApp({ kind })
      try {
        // A file where the files directory should be: no write below it can succeed, whoever runs the test.
        rmSync(t.filesDir, { recursive: true, force: true })
        writeFileSync(t.filesDir, 'not a directory')
        for (const server of ['live', 'sandbox'] as const) {
          const body = assertNotReady(await get(t, server, '/readyz'), ['blobStore'])
          assert.equal(body.data.checks.database.ok, true)
          assert.equal(body.data.checks.jobQueue.ok, true)
        }
        assert.equal((await get(t, 'live', '/healthz')).statusCode, 200, 'alive all the same')
        rmSync(t.filesDir)
        mkdirSync(t.filesDir)
        assert.equal((await get(t, 'live', '/readyz')).statusCode, 200)
      } finally {
        await t.close()
      }
    })

    test('a database that does not answer in time makes readyz answer 503 rather than hang', async () => {
      // One connection on PostgreSQL, so a transaction held open leaves the check nothing to run on; PGlite is a
      // single connection anyway. The held database never answers, so any limit shows it; the limit is long
      // enough for the blob store's probe (a write with fsync) to pass on a machine busy with other I/O.
      const t = await startTestApp({ kind, maxConnections: 1, readinessTimeoutMs: 3000 })
      try {
        let release = () => {}
        let holding = () => {}
        const holds = new Promise<void>((resolve) => {
          holding = resolve
        })
        const held = t.database.db.transaction(
          () =>
            new Promise<void>((resolve) => {
              release = resolve
              holding()
            }),
        )
        // The check must meet the connection taken: on a busy machine taking it can outlast the check's limit,
        // and `release` called before the transaction began would leave it open for ever.
        await holds
        try {
          const body = assertNotReady(await get(t, 'live', '/readyz'), ['database'])
          assert.equal(body.data.checks.database.error, 'timed out after 3000 ms')
          assert.equal(body.data.checks.blobStore.ok, true)
        } finally {
          release()
          await held
        }
        // Ready again once the database answers. The work that queued behind the held connection (the workers'
        // polls) runs first, and on a loaded machine it can outlast one check: wait for readiness, bounded.
        await waitFor('readyz to answer 200 again', async () =>
          (await get(t, 'live', '/readyz')).statusCode === 200 ? true : undefined,
        )
      } finally {
        // Always: an app left open (its database, its job queue's timers) keeps the test process from ever ending.
        await t.close()
      }
    })

    test('a closed database makes readyz answer 503 naming the database', async () => {
      const t = await startTestApp({ kind })
      try {
        await t.database.db.close()
        const body = assertNotReady(await get(t, 'sandbox', '/readyz'), ['database'])
        assert.equal(body.data.checks.database.error, 'failed', 'no infrastructure detail in a public answer')
        assert.equal(body.data.checks.blobStore.ok, true)
      } finally {
        await t.close()
      }
    })
  })
}
