// `printroute orders move SHIPMENT_ID --lab CODE --reason TEXT`, run as a user runs it (a child process) on a
// PostgreSQL database that a test app shares: the app makes and submits a Live order, the command moves its shipment,
// and the app then sees the old lab's job cancelled and the new shipment at the new lab. Refusals exit 2 saying why.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { PostgresDatabase } from '../../src/adapters/database.ts'
import { migrate } from '../../src/adapters/migrator.ts'
import { printroute } from '../support/cli.ts'
import { createScratchDatabase, POSTGRES_TEST_URL, type ScratchDatabase } from '../support/databases.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { blackCanvasItem, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

const skip = POSTGRES_TEST_URL ? false : 'needs PostgreSQL: set PRINTROUTE_TEST_DATABASE_URL (CI does)'

describe('printroute orders move', () => {
  let scratch: string
  let database: ScratchDatabase
  let db: PostgresDatabase
  let t: TestApp
  let images: ImageServer

  before(async () => {
    if (skip) return
    scratch = mkdtempSync(join(tmpdir(), 'printroute-move-'))
    database = await createScratchDatabase('printroute_move')
    db = await PostgresDatabase.open(database.url)
    await migrate(db)
    t = await startTestApp({
      database: { db, connectionString: database.url, jobSchema: 'pgboss', close: async () => {} },
    })
    images = await startImageServer()
  })
  after(async () => {
    await t?.close()
    await images?.close()
    await db?.close()
    await database?.drop()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  const cli = (args: string[]) =>
    printroute([...args, '--data-dir', join(scratch, 'data')], { DATABASE_URL: database.url })

  test('moves a submitted shipment; refuses a shipment already moved, a lab that cannot take it, no reason', {
    skip,
    timeout: 120_000,
  }, async () => {
    const created = await t.live({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({ items: [blackCanvasItem(images.url('canvas.jpg'))] }),
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(created.statusCode, 200, created.body)
    const orderId: string = json(created).order.id
    const drive = pipelineDriver(t)
    await drive.allocate(orderId)
    await drive.render(orderId)
    const submitted = await drive.submit(orderId)
    const shipmentId = submitted.document.shipments[0]?.id as string
    assert.equal(submitted.pipeline.shipments[shipmentId]?.labCode, 'uk6')

    const noReason = await cli(['orders', 'move', shipmentId, '--lab', 'nl1'])
    assert.equal(noReason.code, 2, noReason.stdout)
    assert.match(noReason.stderr, /--reason is required/)

    const cannot = await cli(['orders', 'move', shipmentId, '--lab', 'us1', '--reason', 'uk6 is flooded'])
    assert.equal(cannot.code, 2, cannot.stdout)
    assert.match(cannot.stderr, /lab us1 does not ship GLOBAL-CAN-10x10 to GB by Standard/)

    const moved = await cli(['orders', 'move', shipmentId, '--lab', 'nl1', '--reason', 'uk6 is flooded', '--json'])
    assert.equal(moved.code, 0, moved.stderr)
    const result = JSON.parse(moved.stdout)
    assert.equal(result.orderId, orderId)
    assert.equal(result.fromShipmentId, shipmentId)
    assert.equal(result.fromLabCode, 'uk6')
    assert.equal(result.toLabCode, 'nl1')
    assert.equal(result.oldJobCancelled, true)
    assert.match(result.toShipmentId, /^shp_\d+$/)

    const after = await drive.state(orderId)
    assert.equal(after.pipeline.shipments[shipmentId]?.state, 'cancelled')
    assert.deepEqual(
      after.document.shipments.map((shipment) => [shipment.id, shipment.fulfillmentLocation.labCode]),
      [[result.toShipmentId, 'nl1']],
    )
    const audit = await t.app.services.audit.list({ actions: ['order.shipmentMoved'] })
    assert.equal(audit.entries[0]?.actor.kind, 'cli')

    const again = await cli(['orders', 'move', shipmentId, '--lab', 'nl1', '--reason', 'twice'])
    assert.equal(again.code, 2, again.stdout)
    assert.match(again.stderr, new RegExp(`Shipment ${shipmentId} was already moved to lab nl1`))

    const unknown = await cli(['orders', 'move', 'shp_999999', '--lab', 'nl1', '--reason', 'nothing'])
    assert.equal(unknown.code, 2, unknown.stdout)
    assert.match(unknown.stderr, /No order has a shipment shp_999999/)
  })
})
