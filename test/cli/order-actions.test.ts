// `printroute orders note|refund|cancel ORDER_ID --reason TEXT` as an operator runs them on a data directory: the
// same actions as the console's order page, the command line named in the audit trail, refusals in the command
// line's words with exit code 2. The order is put in its state in this process first, on the same data directory.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { openDatabase } from '../../src/app.ts'
import { listAuditEvents } from '../../src/repositories/audit.repository.ts'
import { readOrder } from '../../src/repositories/orders.repository.ts'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { startImageServer } from '../support/image-server.ts'
import { pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
let orderId = ''
let charged = ''
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

/** Opens the data directory's database in this process (the command line has closed it) for `work`. */
async function onDatabase<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  try {
    return await work(opened.db)
  } finally {
    await opened.close()
  }
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-order-actions-'))
  const images = await startImageServer()
  const opened = await openDatabase({ dataDir, databaseUrl: null })
  const t = await startTestApp({
    database: { db: opened.db, connectionString: null, jobSchema: 'pgboss', close: async () => {} },
    filesDir: join(dataDir, 'files'),
  })
  try {
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      headers: { 'content-type': 'application/json' },
      payload: sampleOrder({
        items: [
          {
            sku: 'GLOBAL-CAN-10x10',
            copies: 1,
            sizing: 'fillPrintArea',
            attributes: { wrap: 'Black' },
            assets: [{ url: images.url('canvas.jpg') }],
          },
        ],
      }),
    })
    assert.equal(created.statusCode, 200, created.body)
    orderId = json(created).order.id
    const allocated = await pipelineDriver(t).allocate(orderId)
    charged = allocated.document.charges[0]?.totalCost.amount ?? ''
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

test('orders note, refund and cancel: done as the console does them, audited as the command line', async () => {
  const noted = await withData(['orders', 'note', orderId, '--reason', 'Called the shop about the address'])
  assert.equal(noted.code, 0, noted.stderr)
  assert.match(noted.stdout, new RegExp(`^${orderId}: note ont_\\d+ added by command line \\(`))

  const refunded = await withData(['orders', 'refund', orderId, '--amount', '1.50', '--reason', 'late', '--json'])
  assert.equal(refunded.code, 0, refunded.stderr)
  const refund = JSON.parse(refunded.stdout)
  assert.equal(refund.amount, '1.50')
  assert.equal(refund.currency, 'GBP')
  assert.match(refund.creditNote, /\S/)

  const cancelled = await withData(['orders', 'cancel', orderId, '--reason', 'merchant asked'])
  assert.equal(cancelled.code, 0, cancelled.stderr)
  assert.equal(cancelled.stdout, `${orderId}: Cancelled (stage Cancelled)\n`)

  const { order, entries } = await onDatabase(async (db) => ({
    order: await readOrder(db, Number(orderId.slice(4))),
    entries: await listAuditEvents(db, {
      actions: ['order.noteAdded', 'order.refunded', 'order.cancelled'],
      limit: 10,
    }),
  }))
  assert.equal(order?.document.status.stage, 'Cancelled')
  const total = order?.document.charges.reduce(
    (sum, charge) => sum + Math.round(Number(charge.totalCost.amount) * 100),
    0,
  )
  assert.equal(total, 0, `the charges (first ${charged}) add up to nothing`)
  assert.deepEqual(
    entries.map((entry) => entry.action),
    ['order.cancelled', 'order.refunded', 'order.noteAdded'],
  )
  for (const entry of entries) {
    assert.equal(entry.actorKind, 'cli')
    assert.equal(entry.actor, `${userInfo().username}@${hostname()}`)
    assert.equal(entry.target, orderId)
  }
  assert.equal(JSON.parse(entries[1]?.after ?? '{}').reason, 'late')
})

test('refusals in the command line’s words, exit code 2, nothing done', async () => {
  const noReason = await withData(['orders', 'refund', orderId, '--amount', '1.00'])
  assert.equal(noReason.code, 2)
  assert.match(noReason.stderr, /--reason is required \(it is kept in the audit trail\)/)
  const notAnId = await withData(['orders', 'cancel', 'order-7', '--reason', 'x'])
  assert.equal(notAnId.code, 2)
  assert.match(notAnId.stderr, /"order-7" is not an order ID \(expected ord_<number>\)/)
  const unknown = await withData(['orders', 'release', 'ord_99999', '--reason', 'x'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /No order ord_99999/)
  const again = await withData(['orders', 'cancel', orderId, '--reason', 'again'])
  assert.equal(again.code, 2)
  assert.match(again.stderr, /can no longer be cancelled/)
})
