// Draft orders and per-order holds (docs/api.md#drafts-and-holds): a draft is validated and stored like any order,
// readable and listed, but not started until confirmed (once, however many confirms race); it can be changed and
// cancelled, and expires after 30 days. A hold keeps the order before production until its end or a confirm.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jobIdFromKey } from '../../src/adapters/job-queue.ts'
import { MAX_HOLD_DAYS } from '../../src/domain/limits.ts'
import { type PipelineDriver, pipelineDriver } from '../support/pipeline-driver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')
const JSON_HEADERS = { 'content-type': 'application/json' }
const DAY_MS = 86_400_000

for (const kind of databaseKinds) {
  describe(`draft orders and holds (${kind})`, () => {
    let t: TestApp
    let drive: PipelineDriver
    before(async () => {
      t = await startTestApp({ kind })
      drive = pipelineDriver(t)
    })
    after(() => t.close())

    async function create(overrides: Record<string, unknown> = {}, key?: string) {
      const response = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: sampleOrder(overrides), headers: JSON_HEADERS },
        key,
      )
      return { status: response.statusCode, body: json(response) }
    }

    async function post(orderId: string, action: string, key?: string) {
      const response = await t.sandbox({ method: 'POST', url: `/v4.0/orders/${orderId}/actions/${action}` }, key)
      return { status: response.statusCode, body: json(response) }
    }

    async function get(url: string, key?: string) {
      const response = await t.sandbox({ method: 'GET', url }, key)
      return { status: response.statusCode, body: json(response) }
    }

    /**
     * The jobs queued for the order, by name. (When each is due is not compared: the queue schedules by the
     * database's time, and the test clock is not it; a job queued again for a later instant has it in its key.)
     */
    async function jobsOf(orderId: string): Promise<{ name: string }[]> {
      return t.database.db.query<{ name: string }>(
        `SELECT name FROM ${t.database.jobSchema}.job WHERE data->>'orderId' = $1 ORDER BY created_on`,
        [orderId],
      )
    }

    /** Whether the job of this key was queued. */
    async function queued(key: string): Promise<boolean> {
      const rows = await t.database.db.query(`SELECT 1 FROM ${t.database.jobSchema}.job WHERE id = $1`, [
        jobIdFromKey(key),
      ])
      return rows.length === 1
    }

    async function eventTypes(orderId: string): Promise<string[]> {
      const events = (await get(`/v4.0/events?orderId=${orderId}`)).body.events
      return events.map((event: { type: string }) => event.type.replace('com.printroute.order.', ''))
    }

    test('an order without draft or holdUntil has neither key, and its actions gain only confirm: No', async () => {
      const { body } = await create()
      assert.equal(body.outcome, 'Created')
      for (const key of ['draft', 'expiresAt', 'holdUntil']) assert.ok(!(key in body.order), key)
      const actions = (await get(`/v4.0/orders/${body.order.id}/actions`)).body
      assert.deepEqual(Object.keys(actions), [
        'outcome',
        'cancel',
        'changeRecipientDetails',
        'changeShippingMethod',
        'changeMetaData',
        'replaceAsset',
        'confirm',
        'traceParent',
      ])
      assert.deepEqual(actions.confirm, { isAvailable: 'No' })
      const confirm = await post(body.order.id, 'confirm')
      assert.equal(confirm.status, 200)
      assert.equal(confirm.body.outcome, 'ActionNotAvailable')
      assert.equal(confirm.body.order.id, body.order.id)
    })

    test('a draft is stored, readable and listed as a draft, with no start queued, only its expiry', async () => {
      const { body } = await create({ draft: true, merchantReference: 'DRAFT-1' })
      assert.equal(body.outcome, 'Created')
      const order = body.order
      assert.equal(order.draft, true)
      assert.equal(order.expiresAt, new Date(t.clock.now().getTime() + 30 * DAY_MS).toISOString())
      assert.equal(order.status.stage, 'InProgress')
      const keys = Object.keys(order)
      assert.deepEqual(keys.slice(keys.indexOf('metadata')), ['metadata', 'draft', 'expiresAt'])
      assert.deepEqual(
        (await jobsOf(order.id)).map((job) => job.name),
        ['expire-draft'],
      )
      const read = await get(`/v4.0/orders/${order.id}`)
      assert.equal(read.status, 200)
      assert.equal(read.body.order.draft, true)
      const drafts = (await get('/v4.0/orders?status=draft&top=100')).body.orders.map((o: { id: string }) => o.id)
      assert.ok(drafts.includes(order.id))
      const all = (await get('/v4.0/orders?top=100')).body.orders.map((o: { id: string }) => o.id)
      assert.ok(all.includes(order.id), 'drafts are in the unfiltered list too')
      const actions = (await get(`/v4.0/orders/${order.id}/actions`)).body
      assert.equal(actions.confirm.isAvailable, 'Yes')
      assert.equal(actions.cancel.isAvailable, 'Yes')
      assert.equal(actions.changeRecipientDetails.isAvailable, 'Yes')
      assert.equal(actions.changeShippingMethod.isAvailable, 'Yes')
      // Even run by its job, the start does nothing to a draft.
      await t.app.services.pipeline.startOrder(order.id)
      const state = await drive.state(order.id)
      assert.equal(state.pipeline.phase, 'waiting')
      assert.equal(state.document.charges.length, 0)
    })

    test('a draft is refused with the same 400 as any order, and creates nothing', async () => {
      const { status, body } = await create({ draft: true, shippingMethod: 'Teleport' })
      assert.equal(status, 400)
      assert.equal(body.outcome, 'ValidationFailed')
      assert.ok(body.failures.shippingMethod)
      const wrongType = await create({ draft: 'yes' })
      assert.equal(wrongType.status, 400)
      assert.ok(wrongType.body.failures.draft)
    })

    test('a draft can be changed, and confirmed: it starts then, once, with draft#Confirmed', async () => {
      const { body } = await create({ draft: true })
      const id = body.order.id
      const method = await t.sandbox({
        method: 'POST',
        url: `/v4.0/orders/${id}/actions/updateShippingMethod`,
        payload: { shippingMethod: 'Express' },
        headers: JSON_HEADERS,
      })
      assert.equal(json(method).outcome, 'Updated')
      assert.equal(json(method).order.shippingMethod, 'Express')
      assert.equal(json(method).order.draft, true)
      const confirmed = await post(id, 'confirm')
      assert.equal(confirmed.status, 200)
      assert.equal(confirmed.body.outcome, 'Confirmed')
      assert.ok(!('draft' in confirmed.body.order))
      assert.ok(!('expiresAt' in confirmed.body.order))
      assert.deepEqual(
        (await jobsOf(id)).map((job) => job.name),
        ['expire-draft', 'start-order'],
      )
      const again = await post(id, 'confirm')
      assert.equal(again.body.outcome, 'Confirmed')
      assert.equal((await jobsOf(id)).length, 2, 'a second confirm queues nothing')
      assert.equal((await get(`/v4.0/orders/${id}/actions`)).body.confirm.isAvailable, 'No')
      const drafts = (await get('/v4.0/orders?status=draft&top=100')).body.orders.map((o: { id: string }) => o.id)
      assert.ok(!drafts.includes(id))
      assert.deepEqual(await eventTypes(id), ['draft#Confirmed'])
      // Its start now runs as a new order's: the downloads are queued.
      await t.app.services.pipeline.startOrder(id)
      assert.equal((await drive.state(id)).pipeline.phase, 'downloading')
      // The expiry job, run at its time, leaves a confirmed order alone.
      t.clock.advanceSeconds(31 * 86_400)
      await t.app.services.orderActions.expireDraft(id)
      assert.equal((await get(`/v4.0/orders/${id}`)).body.order.status.stage, 'InProgress')
    })

    test("a draft confirmed in the account's pause window answers OnHold and starts when the window ends", async () => {
      const paused = await t.createAccount({ pauseWindowSeconds: 600 })
      const { body } = await create({ draft: true }, paused.sandboxKey)
      assert.equal(body.outcome, 'Created', 'a draft is readable at once: the window applies from its confirm')
      const id = body.order.id
      t.clock.advanceSeconds(3_600)
      const confirmed = await post(id, 'confirm', paused.sandboxKey)
      assert.equal(confirmed.body.outcome, 'OnHold')
      assert.deepEqual(confirmed.body.order, { id })
      const windowEnd = new Date(t.clock.now().getTime() + 600_000).toISOString()
      // Its start, run inside the window, waits for the window's end.
      await t.app.services.pipeline.startOrder(id)
      assert.equal((await drive.state(id)).pipeline.phase, 'waiting')
      assert.ok(await queued(`start:${id}:${windowEnd}`))
      assert.equal((await get(`/v4.0/orders/${id}`, paused.sandboxKey)).status, 404)
      assert.equal((await post(id, 'confirm', paused.sandboxKey)).body.outcome, 'OnHold')
    })

    test('a cancelled draft is no draft: nothing refunded, confirm not available', async () => {
      const { body } = await create({ draft: true })
      const id = body.order.id
      const cancelled = await post(id, 'cancel')
      assert.equal(cancelled.body.outcome, 'Cancelled')
      assert.equal(cancelled.body.order.status.stage, 'Cancelled')
      assert.deepEqual(cancelled.body.order.charges, [])
      assert.ok(!('draft' in cancelled.body.order))
      assert.equal((await post(id, 'confirm')).body.outcome, 'ActionNotAvailable')
    })

    test('a draft not confirmed within 30 days is cancelled by its job, with draft#Expired', async () => {
      const { body } = await create({ draft: true })
      const id = body.order.id
      // Run early (another process's clock), it waits for its time.
      t.clock.advanceSeconds(29 * 86_400)
      await t.app.services.orderActions.expireDraft(id)
      assert.equal((await get(`/v4.0/orders/${id}`)).body.order.draft, true)
      assert.ok(await queued(`expire-draft:${id}:${body.order.expiresAt}`))
      t.clock.advanceSeconds(86_400)
      await t.app.services.orderActions.expireDraft(id)
      const order = (await get(`/v4.0/orders/${id}`)).body.order
      assert.equal(order.status.stage, 'Cancelled')
      assert.ok(!('draft' in order))
      assert.deepEqual(await eventTypes(id), ['status.stage.changed#Cancelled', 'draft#Expired'])
      // Run again, nothing more happens.
      await t.app.services.orderActions.expireDraft(id)
      assert.deepEqual(await eventTypes(id), ['status.stage.changed#Cancelled', 'draft#Expired'])
    })

    test('holdUntil in the past or more than 14 days ahead is a 400 naming holdUntil', async () => {
      const now = t.clock.now().getTime()
      for (const holdUntil of [
        new Date(now - 1000).toISOString(),
        new Date(now + (MAX_HOLD_DAYS * DAY_MS + 1000)).toISOString(),
        'soon',
      ]) {
        const { status, body } = await create({ holdUntil })
        assert.equal(status, 400, holdUntil)
        assert.equal(body.outcome, 'ValidationFailed')
        assert.ok(body.failures.holdUntil, JSON.stringify(body))
      }
    })

    test('a held order is shown with its hold, starts at its end, and confirm releases it early', async () => {
      const holdUntil = new Date(t.clock.now().getTime() + 2 * DAY_MS).toISOString()
      const { body } = await create({ holdUntil })
      assert.equal(body.outcome, 'Created')
      const id = body.order.id
      assert.equal(body.order.holdUntil, holdUntil)
      assert.deepEqual(
        (await jobsOf(id)).map((job) => job.name),
        ['start-order'],
      )
      // Run before its end, the start is queued again for it and the order stays before production.
      await t.app.services.pipeline.startOrder(id)
      assert.equal((await drive.state(id)).pipeline.phase, 'waiting')
      assert.ok(await queued(`start:${id}:${holdUntil}`))
      const actions = (await get(`/v4.0/orders/${id}/actions`)).body
      assert.equal(actions.confirm.isAvailable, 'Yes')
      assert.equal(actions.changeRecipientDetails.isAvailable, 'Yes')
      const released = await post(id, 'confirm')
      assert.equal(released.body.outcome, 'Confirmed')
      assert.equal(released.body.order.holdUntil, t.clock.now().toISOString())
      assert.ok(await queued(`start:${id}:released`))
      await t.app.services.pipeline.startOrder(id)
      assert.equal((await drive.state(id)).pipeline.phase, 'downloading')
      assert.equal((await post(id, 'confirm')).body.outcome, 'Confirmed')
      assert.deepEqual(await eventTypes(id), ['hold#Released'])
    })

    test('a held draft keeps its hold after the confirm', async () => {
      const holdUntil = new Date(t.clock.now().getTime() + DAY_MS).toISOString()
      const { body } = await create({ draft: true, holdUntil })
      const id = body.order.id
      assert.equal((await post(id, 'confirm')).body.outcome, 'Confirmed')
      // Its start, run before the hold's end, waits for it.
      await t.app.services.pipeline.startOrder(id)
      assert.equal((await drive.state(id)).pipeline.phase, 'waiting')
      assert.ok(await queued(`start:${id}:${holdUntil}`))
    })
  })
}

// Concurrent confirms on PostgreSQL too, where they really run at once: the order's row lock lets one start it.
for (const kind of tier('sql')) {
  describe(`draft confirms at once (${kind})`, () => {
    let t: TestApp
    before(async () => {
      t = await startTestApp({ kind, maxConnections: 10 })
    })
    after(() => t.close())

    test('confirms sent at once start the draft once, with one draft#Confirmed', async () => {
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({ draft: true }),
        headers: JSON_HEADERS,
      })
      const id = json(created).order.id
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => t.sandbox({ method: 'POST', url: `/v4.0/orders/${id}/actions/confirm` })),
      )
      for (const answer of answers) assert.equal(json(answer).outcome, 'Confirmed', answer.body)
      const starts = await t.database.db.query(
        `SELECT 1 FROM ${t.database.jobSchema}.job WHERE name = 'start-order' AND data->>'orderId' = $1`,
        [id],
      )
      assert.equal(starts.length, 1)
      const events = json(await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${id}` })).events
      assert.deepEqual(
        events.map((event: { type: string }) => event.type),
        ['com.printroute.order.draft#Confirmed'],
      )
    })
  })
}
