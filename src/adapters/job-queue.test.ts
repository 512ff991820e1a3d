// The job queue's insert statement for callers that run it inside a statement of their own (order creation):
// pg-boss's statement, wrapped in a function of the queue's schema, inserting the job pg-boss would insert.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { openTestDatabase, type TestDatabase } from '../../test/support/databases.ts'
import { tier } from '../../test/support/tiers.ts'
import { jobRequest } from '../domain/jobs.ts'
import { type JobQueue, openJobQueue } from './job-queue.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`job queue insert statement (${kind})`, () => {
    let database: TestDatabase
    let queue: JobQueue
    const count = async (state: string) =>
      (await queue.countJobs()).find((row) => row.name === 'start-order' && row.state === state)?.count ?? 0

    before(async () => {
      database = await openTestDatabase(kind)
      queue = await openJobQueue({
        db: database.db,
        connectionString: database.connectionString,
        schema: database.jobSchema,
        queues: ['start-order'],
        runsWorkers: false,
        onError: (error) => {
          throw error
        },
      })
    })
    after(async () => {
      await queue.stop()
      await database.close()
    })

    test('runs as one statement, inserting the job once under the id its key gives', async () => {
      const job = jobRequest('start-order', { orderId: 'ord_1' })
      const statement = await queue.insertStatement([job])
      assert.match(statement.text, /^SELECT ".+"\."printroute_insert_start_order"\(\$1\)$/)
      assert.deepEqual(JSON.parse(statement.parameter), [{ id: JSON.parse(statement.parameter)[0].id, data: job.data }])
      await database.db.query(statement.text, [statement.parameter])
      assert.equal(await count('queued'), 1)
      // The same job again adds nothing: its id comes from its key.
      await database.db.query(statement.text, [statement.parameter])
      assert.equal(await count('queued'), 1)
    })

    test('later statements reuse the text and carry their own jobs, due now or later', async () => {
      const first = await queue.insertStatement([jobRequest('start-order', { orderId: 'ord_2' })])
      const later = new Date(Date.now() + 3_600_000)
      const second = await queue.insertStatement([jobRequest('start-order', { orderId: 'ord_3' }, later)])
      assert.equal(second.text, first.text)
      assert.notEqual(JSON.parse(second.parameter)[0].id, JSON.parse(first.parameter)[0].id)
      assert.equal(JSON.parse(second.parameter)[0].startAfter, later.toISOString())
      const deferredBefore = await count('deferred')
      await database.db.query(second.text, [second.parameter])
      assert.equal(await count('deferred'), deferredBefore + 1)
    })

    test('a statement takes jobs of one queue', async () => {
      await assert.rejects(
        queue.insertStatement([
          jobRequest('start-order', { orderId: 'ord_4' }),
          jobRequest('allocate-order', { orderId: 'ord_4', round: 1 }),
        ]),
        /one name/,
      )
    })
  })
}
