// `printroute claims list|show|resolve` as an operator runs them on a data directory: the queue Pending first, one
// claim shown, decisions taken as the console takes them (the command line named in the audit trail), refusals in
// the command line's words with exit code 2. The order is shipped and its claims made in this process first, on the
// same data directory.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { openDatabase } from '../../src/app.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { readOrder } from '../../src/repositories/orders.repository.ts'
import { answerClaimAsLab, makeClaim } from '../support/claims-resolve.fixture.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { startImageServer } from '../support/image-server.ts'
import { blackCanvasOrder, shippedOrder } from '../support/shipped-order.ts'
import { startTestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
let orderId = ''
const claims: string[] = []
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-claims-'))
  const images = await startImageServer()
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  const t = await startTestApp({
    database: { db: opened.db, connectionString: null, jobSchema: 'pgboss', close: async () => {} },
    filesDir: join(dataDir, 'files'),
  })
  try {
    const shipped = await shippedOrder(t, blackCanvasOrder(images.url('canvas.jpg')))
    orderId = shipped.orderId
    for (const [index, category] of (['Damaged', 'Other'] as const).entries()) {
      const claim = await makeClaim(t, {
        orderId,
        items: [{ itemId: shipped.itemId, category, description: `claim ${index}` }],
      })
      claims.push(claim.id)
      // One claim per item may be open: the first is decided before the next is made.
      if (index === 0) {
        await answerClaimAsLab(t.database.db, claim.id, 'Disputed', 'packed with corners')
        await t.app.services.claimResolution.resolve(
          { claimId: claim.id, decision: 'Refund', amount: '1.00' },
          { kind: 'system' },
        )
      }
    }
  } finally {
    await t.close()
    await opened.close()
    await images.close()
  }
  cli = startCliSession()
})
after(async () => {
  await cli?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('claims list and show: Pending first, the lab and its answer, the decision', async () => {
  const listed = await withData(['claims', 'list'])
  assert.equal(listed.code, 0, listed.stderr)
  const lines = listed.stdout.trim().split('\n')
  assert.deepEqual(
    lines.map((line) => line.split('\t').slice(0, 3)),
    [
      [claims[1], 'Pending', orderId],
      [claims[0], 'Resolved', orderId],
    ],
  )
  const pending = await withData(['claims', 'list', '--status', 'pending', '--lab', 'uk6', '--json'])
  assert.equal(pending.code, 0, pending.stderr)
  assert.deepEqual(
    JSON.parse(pending.stdout).map((claim: { id: string }) => claim.id),
    [claims[1]],
  )
  const badStatus = await withData(['claims', 'list', '--status', 'Open'])
  assert.equal(badStatus.code, 2)
  assert.match(badStatus.stderr, /--status must be one of Pending, Resolved, Rejected, Retracted, got "Open"/)

  const shown = await withData(['claims', 'show', claims[0] as string])
  assert.equal(shown.code, 0, shown.stderr)
  assert.match(shown.stdout, new RegExp(`^${claims[0]}: Resolved \\(version 2\\)`))
  assert.match(shown.stdout, /lab uk6; the lab's answer: Disputed \("packed with corners"\)/)
  assert.match(shown.stdout, /resolved Refund at .* by rule: credit note \S+ of 1\.00 GBP/)
})

test('claims resolve: refusals in the command line’s words, then a reprint done and audited', async () => {
  const pendingId = claims[1] as string
  const noNote = await withData(['claims', 'resolve', pendingId, '--resolution', 'Reject'])
  assert.equal(noNote.code, 2)
  assert.match(noNote.stderr, /--note is required to reject a claim/)
  const unknownDecision = await withData(['claims', 'resolve', pendingId, '--resolution', 'Replace'])
  assert.equal(unknownDecision.code, 2)
  assert.match(unknownDecision.stderr, /--resolution must be one of Reprint, Refund, Credit, Reject, got "Replace"/)
  const decided = await withData(['claims', 'resolve', claims[0] as string, '--resolution', 'Credit'])
  assert.equal(decided.code, 2)
  assert.match(decided.stderr, /is Resolved: it was already decided, nothing was done/)
  const tooMuch = await withData(['claims', 'resolve', pendingId, '--resolution', 'Credit', '--amount', '9999.00'])
  assert.equal(tooMuch.code, 2)
  assert.match(tooMuch.stderr, /--amount: at most \d+\.\d\d GBP can be refunded/)

  const reprinted = await withData(['claims', 'resolve', pendingId, '--resolution', 'Reprint', '--note', 'on us'])
  assert.equal(reprinted.code, 0, reprinted.stderr)
  assert.match(
    reprinted.stdout,
    new RegExp(`^${pendingId} on ${orderId}: resolved Reprint; reprint shp_\\d+ at lab \\w+`),
  )

  const opened = await openDatabase({ dataDir, databaseUrl: null })
  try {
    const order = await readOrder(opened.db, Number(orderId.slice(4)))
    const reprint = order?.document.shipments.find((shipment) => shipment.claimId === pendingId)
    assert.ok(reprint, 'the reprint shipment')
    assert.equal(order?.document.status.stage, 'InProgress')
    const entries = await listAuditEvents(opened.db, { actions: ['claim.resolved'], limit: 10 })
    const entry = entries.find((candidate) => candidate.target === pendingId)
    assert.equal(entry?.actorKind, 'cli')
    assert.equal(JSON.parse(entry?.after ?? '{}').reprintShipmentId, reprint.id)
  } finally {
    await opened.close()
  }
})
