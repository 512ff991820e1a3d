// `printroute listen` and `printroute orders watch` against a real printroute (the test application listening
// on 127.0.0.1, with its workers and fast simulated labs) and a real local receiver that verifies every
// signature. listen runs as a real process: the point is that it stops on a signal and, started again, carries
// on after the last event it forwarded, without a duplicate or a gap. `orders watch` runs in the CLI session.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { parseId } from '../../src/domain/ids.ts'
import { insertWebhookEndpoint } from '../../src/repositories/webhook-endpoints.repository.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { type CliSession, killStartedPrintroutes, startCliSession, startPrintroute } from '../support/cli.ts'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

tier('sql')

describe('listen and orders watch, against a running printroute', () => {
  let t: TestApp
  let urls: { live: string; sandbox: string }
  let images: ImageServer
  let cli: CliSession
  let stateHome: string

  before(async () => {
    t = await startTestApp({ workers: true, realClock: true, pipeline: { simulatedLabStepSeconds: 0.2 } })
    urls = await listenOnLoopback(t)
    images = await startImageServer()
    cli = startCliSession()
    stateHome = mkdtempSync(join(tmpdir(), 'printroute-listen-state-'))
  })
  after(async () => {
    killStartedPrintroutes()
    await cli.close()
    await images.close()
    await t.close()
    rmSync(stateHome, { recursive: true, force: true })
  })

  async function placeOrder(key: string): Promise<string> {
    const response = await t.sandbox(
      {
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder({
          items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
        }),
        headers: { 'content-type': 'application/json' },
      },
      key,
    )
    assert.equal(response.statusCode, 200, response.body)
    return json(response).order?.id ?? json(response).onHold.id
  }

  async function stageOf(orderId: string, key: string): Promise<string | undefined> {
    const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` }, key)
    return response.statusCode === 200 ? json(response).order.status.stage : undefined
  }

  async function deliveredAtOf(orderId: string, key: string): Promise<string | undefined> {
    const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${orderId}` }, key)
    return response.statusCode === 200 ? json(response).order.deliveredAt : undefined
  }

  test('listen forwards each event signed, retries a refused one, and after a restart carries on without duplicates or gaps', async () => {
    const account = await t.createAccount()
    // The receiver refuses the very first request: that event must come again, not be skipped.
    const receiver: CallbackReceiver = await startCallbackReceiver({
      respond: (_callback, index) => (index === 0 ? 503 : 200),
    })
    const { signingSecret } = json(
      await t.sandbox({ method: 'GET', url: '/v4.0/account/settings' }, account.sandboxKey),
    ).settings
    const env = { PRINTROUTE_API_KEY: account.sandboxKey, PRINTROUTE_BASE_URL: urls.sandbox, XDG_STATE_HOME: stateHome }
    const args = ['listen', '--forward-to', receiver.url('/hook'), '--poll-interval', '200ms']
    try {
      const first = startPrintroute(args, env)
      await first.waitFor(/listening to .* from the first event \(now\)/)
      const orderId = await placeOrder(account.sandboxKey)
      await first.waitFor(/-> 503 error 503 \(\d+ ms\); trying again in 1s/)
      await first.waitFor(/-> 200 \(\d+ ms\)/)
      first.child.kill('SIGINT')
      assert.equal(await first.exited, 0, first.output())
      const stoppedAt = first.output().match(/stopped; the last event forwarded is (evt_\d+)/)?.[1]
      assert.ok(stoppedAt, first.output())

      // The order goes on while nothing listens, to its delivery: the last event it causes.
      await waitFor(
        'the order to be delivered',
        async () => ((await deliveredAtOf(orderId, account.sandboxKey)) !== undefined ? true : undefined),
        45_000,
        250,
      )
      const feed: { id: string; type: string }[] = json(
        await t.sandbox({ method: 'GET', url: '/v4.0/events' }, account.sandboxKey),
      ).events
      assert.deepEqual(
        feed.slice(-3).map((event) => event.type),
        [
          'com.printroute.order.shipments.shipment#InTransit',
          'com.printroute.order.shipments.shipment#Delivered',
          'com.printroute.order.status.delivery#Delivered',
        ],
        'the carrier events are forwarded like the others',
      )

      const second = startPrintroute(args, env)
      await second.waitFor(new RegExp(`from after ${stoppedAt} \\(where the last run stopped`))
      const lastId = feed.at(-1)?.id as string
      await second.waitFor(new RegExp(`${lastId}  -> 200`))
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0, second.output())

      const taken = receiver.received.slice(1)
      assert.deepEqual(
        taken.map((callback) => callback.headers['webhook-id']),
        feed.map((event) => event.id),
        'every event once, in order, across the restart',
      )
      assert.equal(receiver.received[0]?.headers['webhook-id'], feed[0]?.id, 'the refused event was tried again')
      for (const callback of receiver.received) {
        new Webhook(signingSecret).verify(callback.body, callback.headers as Record<string, string>)
        assert.equal(callback.event.id, callback.headers['webhook-id'])
        assert.equal(callback.event.data.order.id, orderId)
      }
      const output = first.output() + second.output()
      for (const event of feed) {
        assert.match(output, new RegExp(`  ${event.type.replace(/[.#]/g, '\\$&')}  ${orderId}  ${event.id}  -> 200`))
      }
      const stateFiles = readdirSync(join(stateHome, 'printroute', 'listen'))
      assert.equal(stateFiles.length, 1)
      const state = readFileSync(join(stateHome, 'printroute', 'listen', stateFiles[0] as string), 'utf8')
      assert.equal(JSON.parse(state).lastEventId, lastId)
      assert.ok(!state.includes(account.sandboxKey), 'the key itself is never stored')
    } finally {
      await receiver.close()
    }
  })

  test('listen refuses a bad key or missing flags with a message', async () => {
    const missing = await cli.run(['listen', '--forward-to', 'http://127.0.0.1:9/hook'], {
      PRINTROUTE_API_KEY: undefined,
      PRINTROUTE_BASE_URL: urls.sandbox,
    })
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /--api-key is required \(or set PRINTROUTE_API_KEY\)/)
    const badKey = await cli.run(
      ['listen', '--api-key', 'pr_sandbox_wrong', '--base-url', urls.sandbox, '--forward-to', 'http://127.0.0.1:9/'],
      { XDG_STATE_HOME: stateHome },
    )
    assert.equal(badKey.code, 2, badKey.stderr)
    assert.match(badKey.stderr, /not a valid Sandbox key/)
    const badTarget = await cli.run(['listen', '--api-key', 'k', '--base-url', urls.sandbox, '--forward-to', 'ftp://x'])
    assert.equal(badTarget.code, 2)
    assert.match(badTarget.stderr, /--forward-to: "ftp:\/\/x" is not an http\(s\) URL/)
  })

  test("listen --webhook forwards only the events the endpoint's filters accept, signed with its secret", async () => {
    const account = await t.createAccount({ pauseWindowSeconds: 3600 })
    const receiver = await startCallbackReceiver()
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const endpoint = await insertWebhookEndpoint(t.database.db, {
      accountId: parseId('acc', account.id) as number,
      environment: 'sandbox',
      url: 'https://shop.example.com/hooks/printroute',
      description: null,
      eventTypes: ['com.printroute.order.status.stage.changed#Cancelled'],
      metadataFilter: { channel: 'shop-eu' },
      enabled: true,
      signingSecret: secret,
      at: new Date(),
    })
    const webhookId = `whk_${endpoint.id}`
    const cancelled = async (channel: string) => {
      const created = json(
        await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder({ metadata: { channel } }),
            headers: { 'content-type': 'application/json' },
          },
          account.sandboxKey,
        ),
      )
      await t.sandbox({ method: 'POST', url: `/v4.0/orders/${created.order.id}/actions/cancel` }, account.sandboxKey)
      const events = json(
        await t.sandbox({ method: 'GET', url: `/v4.0/events?orderId=${created.order.id}` }, account.sandboxKey),
      ).events
      return events[0].id as string
    }
    const wanted = [await cancelled('shop-eu')]
    await cancelled('wholesale')
    wanted.push(await cancelled('shop-eu'))
    const env = {
      PRINTROUTE_API_KEY: account.sandboxKey,
      PRINTROUTE_BASE_URL: urls.sandbox,
      XDG_STATE_HOME: stateHome,
      PRINTROUTE_WEBHOOK_SECRET: secret,
    }
    const args = ['listen', '--forward-to', receiver.url('/hook'), '--poll-interval', '200ms', '--webhook', webhookId]
    try {
      const listening = startPrintroute([...args, '--events-after', 'evt_0'], env)
      await listening.waitFor(
        new RegExp(
          `webhook endpoint ${webhookId} \\(https://shop\\.example\\.com/hooks/printroute\\): com\\.printroute\\.order\\.status\\.stage\\.changed#Cancelled with metadata \\{"channel":"shop-eu"\\}`,
        ),
      )
      await listening.waitFor(new RegExp(`${wanted[1]}  -> 200`))
      // Made while it listens: the one of its channel comes, the other not.
      await cancelled('wholesale')
      const later = await cancelled('shop-eu')
      await listening.waitFor(new RegExp(`${later}  -> 200`))
      listening.child.kill('SIGINT')
      assert.equal(await listening.exited, 0, listening.output())
      assert.deepEqual(
        receiver.received.map((callback) => callback.headers['webhook-id']),
        [...wanted, later],
        "only its filters' events, each once",
      )
      for (const callback of receiver.received) {
        new Webhook(secret).verify(callback.body, callback.headers as Record<string, string>)
        assert.equal(callback.event.data.order.metadata.channel, 'shop-eu')
      }

      // Its own state file: the plain listen of the same key starts afresh.
      const states = readdirSync(join(stateHome, 'printroute', 'listen')).map((file) =>
        JSON.parse(readFileSync(join(stateHome, 'printroute', 'listen', file), 'utf8')),
      )
      assert.ok(states.some((state) => state.lastEventId === later))

      const noSecret = await cli.run(args, { ...env, PRINTROUTE_WEBHOOK_SECRET: undefined })
      assert.equal(noSecret.code, 2)
      assert.match(noSecret.stderr, /--webhook-secret is required with --webhook \(or set PRINTROUTE_WEBHOOK_SECRET\)/)
      const badId = await cli.run([...args.slice(0, -1), 'hook_1'], env)
      assert.equal(badId.code, 2)
      assert.match(badId.stderr, /--webhook: "hook_1" is not a webhook endpoint ID/)
      const unknown = await cli.run([...args.slice(0, -1), 'whk_999999'], env)
      assert.notEqual(unknown.code, 0)
      assert.match(unknown.stderr, /Webhook endpoint whk_999999 was not found/)
    } finally {
      await receiver.close()
    }
  })

  test('orders watch prints the progress of an order until it is complete, waiting out its pause window', async () => {
    const account = await t.createAccount({ pauseWindowSeconds: 2 })
    const orderId = await placeOrder(account.sandboxKey)
    const watched = await cli.run(['orders', 'watch', orderId, '--poll-interval', '200ms'], {
      PRINTROUTE_API_KEY: account.sandboxKey,
      PRINTROUTE_BASE_URL: `${urls.sandbox}/v4.0/`,
    })
    assert.equal(watched.code, 0, watched.stderr + watched.stdout)
    const lines = watched.stdout.trim().split('\n')
    assert.match(lines[0] as string, new RegExp(`  ${orderId}  on hold in the pause window until \\d{4}-`))
    assert.match(lines.at(-1) as string, new RegExp(`  ${orderId}  Complete  .*shipping Complete`))
    assert.ok(
      lines.some((line) => / {2}InProgress {2}.*downloadAssets Complete/.test(line)),
      watched.stdout,
    )
    assert.equal(await stageOf(orderId, account.sandboxKey), 'Complete')

    // A finished order: its state, at once.
    const again = await cli.run([
      'orders',
      'watch',
      orderId,
      '--api-key',
      account.sandboxKey,
      '--base-url',
      urls.sandbox,
    ])
    assert.equal(again.code, 0, again.stderr)
    assert.equal(again.stdout.trim().split('\n').length, 1)
    assert.match(again.stdout, / {2}Complete {2}/)

    const unknown = await cli.run([
      'orders',
      'watch',
      'ord_999999',
      '--api-key',
      account.sandboxKey,
      '--base-url',
      urls.sandbox,
    ])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /no order ord_999999 for this key/)
    const foreign = await cli.run([
      'orders',
      'watch',
      orderId,
      '--api-key',
      t.account.sandboxKey,
      '--base-url',
      urls.sandbox,
    ])
    assert.equal(foreign.code, 1, 'another account does not see it')
    const badId = await cli.run(['orders', 'watch', '12', '--api-key', account.sandboxKey, '--base-url', urls.sandbox])
    assert.equal(badId.code, 2)
    assert.match(badId.stderr, /"12" is not an order ID/)
  })

  test('orders watch --until Delivered follows a Sandbox order advanced through its carrier scans', async () => {
    const response = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      }),
      // manual: nothing moves until the test advances it, so the watch sees every event from the start.
      headers: { 'content-type': 'application/json', 'x-sandbox-scenario': 'manual' },
    })
    const orderId = json(response).order.id
    await waitFor(
      'the shipment with its lab',
      async () => {
        const facts = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${orderId}` })).sandboxOrder
        return facts.cannotAdvance === null ? true : undefined
      },
      120_000,
    )
    const env = { PRINTROUTE_API_KEY: t.account.sandboxKey, PRINTROUTE_BASE_URL: urls.sandbox }
    const watch = startPrintroute(['orders', 'watch', orderId, '--until', 'Delivered', '--poll-interval', '200ms'], env)
    await watch.waitFor(new RegExp(`  ${orderId}  InProgress  `))
    const advanced = await t.sandbox({
      method: 'POST',
      url: `/v4.0/sandbox/orders/${orderId}/advance`,
      payload: { to: 'Delivered' },
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(advanced.statusCode, 200, advanced.body)
    assert.equal(await watch.exited, 0, watch.output())
    const lines = watch.output().trim().split('\n')
    const shown = lines.slice(1).map((line) => line.split(`  ${orderId}  `)[1])
    assert.match(shown[0] as string, /^Complete {2}.*shipping Complete/, watch.output())
    // The events that change nothing shown say what happened; each scan shows where the parcel is, and the watch
    // ends with it delivered.
    assert.deepEqual(shown.slice(1, 3), ['status.details.shipping#Complete', 'status.stage.changed#Complete'])
    assert.match(shown[3] as string, /^Complete {2}.*; shp_\d+ InTransit$/)
    assert.match(shown[4] as string, /^Complete {2}.*; shp_\d+ Delivered$/)
    assert.equal(shown.length, 5, watch.output())
    assert.ok(await deliveredAtOf(orderId, t.account.sandboxKey))
  })

  test('orders advance moves a manual Sandbox order a step, then to Complete and Delivered; its refusals are errors', async () => {
    const response = await t.sandbox({
      method: 'POST',
      url: '/v4.0/orders',
      payload: sampleOrder({
        items: [{ sku: PHONE_CASE, copies: 1, sizing: 'fillPrintArea', assets: [{ url: images.url('case.jpg') }] }],
      }),
      headers: { 'content-type': 'application/json', 'x-sandbox-scenario': 'manual' },
    })
    const orderId = json(response).order.id
    const connection = { PRINTROUTE_API_KEY: t.account.sandboxKey, PRINTROUTE_BASE_URL: urls.sandbox }
    // Download and allocation first: seconds alone, a minute or more on a machine loaded by a whole suite.
    await waitFor(
      'the shipment with its lab',
      async () => {
        const facts = json(await t.sandbox({ method: 'GET', url: `/v4.0/sandbox/orders/${orderId}` })).sandboxOrder
        return facts.cannotAdvance === null ? true : undefined
      },
      120_000,
    )
    const step = await cli.run(['orders', 'advance', orderId], connection)
    assert.equal(step.code, 0, step.stderr)
    assert.match(step.stdout, new RegExp(`^${orderId}  Updated  InProgress  .*inProduction InProgress`))
    const completed = await cli.run(['orders', 'advance', orderId, '--to', 'Complete', '--json'], connection)
    assert.equal(completed.code, 0, completed.stderr)
    assert.equal(JSON.parse(completed.stdout).order.status.stage, 'Complete')
    const delivered = await cli.run(['orders', 'advance', orderId, '--to', 'delivered', '--json'], connection)
    assert.equal(delivered.code, 0, delivered.stderr)
    assert.equal(JSON.parse(delivered.stdout).order.shipments[0].deliveryStatus, 'Delivered')
    const nothingLeft = await cli.run(['orders', 'advance', orderId], connection)
    assert.equal(nothingLeft.code, 1)
    assert.match(nothingLeft.stderr, /nothing is left to advance/)
    const again = await cli.run(['orders', 'advance', orderId, '--to', 'Complete'], connection)
    assert.equal(again.code, 0, again.stderr)
    assert.match(again.stdout, new RegExp(`^${orderId}  Ok  Complete  `))
    const badTarget = await cli.run(['orders', 'advance', orderId, '--to', 'Lost'], connection)
    assert.equal(badTarget.code, 2)
    assert.match(badTarget.stderr, /--to must be one of InProduction, Shipped, Complete, Delivered/)
  })
})
