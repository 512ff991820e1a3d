// The published OpenAPI document against real answers: a broad set of requests over every operation (successes
// with orders in every Sandbox scenario taken through the pipeline, the account's settings with and without a
// default scenario, keys, callbacks, events, quotes, previews, the lab API; and errors: no key, unknown ids,
// empty and non-JSON bodies, bodies and headers over their limits, CONNECT), each answer's body validated
// against the document's schema for its operation and status, which must be documented.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { SANDBOX_SCENARIOS } from '../../src/domain/sandbox-scenarios.ts'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { rawRequest } from '../support/raw-http.ts'
import { catalogue, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'
import { waitFor } from '../support/wait.ts'

const databaseKinds = tier('http')

type Json = Record<string, any>
type Server = 'live' | 'sandbox'
const METHODS = ['get', 'put', 'post', 'delete', 'patch']

interface Operation {
  method: string
  template: string
  pattern: RegExp
  operation: Json
}

function operationsOf(document: Json): Operation[] {
  return Object.entries(document.paths as Json).flatMap(([template, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        method,
        template,
        // A literal segment wins over a parameter (`/account/keys` is not `/orders/{orderId}`): tried first.
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.')}$`, 'i'),
        operation: operation as Json,
      })),
  )
}

/** Validates answers against one environment's document, counting what it checked per operation and status. */
class AnswerChecker {
  readonly checked = new Map<string, number>()
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  private readonly operations: Operation[]
  private readonly compiled = new Map<string, ValidateFunction>()

  readonly server: Server
  private readonly responses: Json

  constructor(server: Server, document: Json) {
    this.server = server
    this.responses = document.components?.responses ?? {}
    this.ajv.addSchema({ $id: 'doc', components: document.components }, 'doc')
    // Literal paths before parameterised ones.
    this.operations = operationsOf(document).sort(
      (a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0),
    )
  }

  operationOf(method: string, path: string): Operation | undefined {
    const bare = path.split('?')[0] as string
    return this.operations.find((entry) => entry.method === method.toLowerCase() && entry.pattern.test(bare))
  }

  check(method: string, path: string, status: number, body: string, contentType: string | undefined): void {
    const where = `${this.server} ${method} ${path} ${status}`
    const found = this.operationOf(method, path)
    assert.ok(found, `${where}: no documented operation`)
    const documented = found.operation.responses[String(status)]
    assert.ok(
      documented,
      `${where}: status ${status} not documented for ${found.operation.operationId}: ${body.slice(0, 300)}`,
    )
    // Error answers refer to the shared responses (`#/components/responses/BadRequest`).
    const response = documented.$ref
      ? this.responses[String(documented.$ref).replace('#/components/responses/', '')]
      : documented
    assert.ok(response, `${where}: ${documented.$ref} is not in the document`)
    const media = response.content?.['application/json']
    if (!media) {
      // A file answer (a CSV, a PDF, an image): its content type must be one the document gives for it.
      const types = Object.keys(response.content ?? {})
      assert.ok(
        body === '' || types.some((type) => String(contentType).startsWith(type)),
        `${where}: the document gives no ${String(contentType)} body for it (${types.join(', ') || 'none'}): ${body.slice(0, 300)}`,
      )
      return
    }
    assert.match(String(contentType), /^application\/json/, `${where}: not JSON`)
    const key = `${found.operation.operationId} ${status}`
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = this.ajv.compile(
        JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/')),
      )
      this.compiled.set(key, validate)
    }
    const parsed = JSON.parse(body)
    assert.ok(
      validate(parsed),
      `${where} (${found.operation.operationId}) does not match the document: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${body.slice(0, 1500)}`,
    )
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1)
  }
}

for (const kind of databaseKinds) {
  describe(`the OpenAPI document matches real answers (${kind})`, () => {
    let t: TestApp
    let urls: { live: string; sandbox: string }
    const checkers = {} as Record<Server, AnswerChecker>

    before(async () => {
      t = await startTestApp({
        kind,
        workers: true,
        realClock: true,
        pipeline: { downloadRetryBaseSeconds: 0.05, simulatedLabStepSeconds: 0.1 },
        rateLimit: null,
      })
      urls = await listenOnLoopback(t)
      for (const server of ['live', 'sandbox'] as const) {
        const document = await (await fetch(`${urls[server]}/v4.0/openapi.json`)).json()
        checkers[server] = new AnswerChecker(server, document as Json)
      }
    })
    after(() => t?.close())

    /** Sends a request on `server` (with the account's key unless `key` says otherwise) and checks its answer. */
    async function call(
      server: Server,
      method: string,
      path: string,
      options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
    ): Promise<{ status: number; json: Json }> {
      const key =
        options.key === undefined ? (server === 'live' ? t.account.liveKey : t.account.sandboxKey) : options.key
      const headers: Record<string, string> = { ...(key === null ? {} : { 'x-api-key': key }), ...options.headers }
      if (options.body !== undefined && headers['content-type'] === undefined)
        headers['content-type'] = 'application/json'
      const response = await t.app[server].inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(options.body === undefined
          ? {}
          : { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
      })
      checkers[server].check(
        method,
        path,
        response.statusCode,
        response.body,
        response.headers['content-type'] as string,
      )
      return { status: response.statusCode, json: response.body.startsWith('{') ? JSON.parse(response.body) : {} }
    }

    const phoneOrder = (server: Server, reference: string, metadata: Json = {}) =>
      sampleOrder({
        merchantReference: reference,
        metadata,
        // Two items: the scenarios that split an order into shipments need them.
        items: ['portrait.jpg', 'square.jpg'].map((sample) => ({
          sku: PHONE_CASE,
          copies: 1,
          sizing: 'fillPrintArea',
          assets: [{ printArea: 'default', url: `${urls[server]}/samples/${sample}` }],
        })),
      })

    test('every answer of a broad run validates against its operation and status in the document', async () => {
      // The account's settings: a Sandbox default scenario, none, and Live's (no scenario at all).
      await call('sandbox', 'GET', '/v4.0/account/settings')
      await call('sandbox', 'PATCH', '/v4.0/account/settings', { body: { sandboxScenario: 'manual' } })
      await call('sandbox', 'GET', '/v4.0/account/settings')
      const cleared = await call('sandbox', 'PATCH', '/v4.0/account/settings', {
        body: { sandboxScenario: null, callbackUrl: null },
      })
      assert.equal(cleared.json.settings.sandboxScenario, null, 'a null scenario is answered (and validated)')
      await call('sandbox', 'PATCH', '/v4.0/account/settings', { body: { sandboxScenario: 'nope' } })
      await call('live', 'GET', '/v4.0/account/settings')
      await call('live', 'PATCH', '/v4.0/account/settings', { body: { rotateSigningSecret: true } })
      await call('live', 'GET', '/v4.0/account/settings')

      // Orders in every Sandbox scenario and none, and on Live; each read as it moves and once it settled.
      const sandboxOrders: string[] = []
      for (const scenario of [...SANDBOX_SCENARIOS, null]) {
        const created = await call('sandbox', 'POST', '/v4.0/orders', {
          body: phoneOrder('sandbox', `scenario-${scenario}`),
          ...(scenario ? { headers: { 'x-sandbox-scenario': scenario } } : {}),
        })
        assert.equal(created.status, 200, JSON.stringify(created.json))
        sandboxOrders.push(created.json.order.id)
        await call('sandbox', 'GET', `/v4.0/orders/${created.json.order.id}`)
      }
      const live = await call('live', 'POST', '/v4.0/orders', {
        body: phoneOrder('live', 'live-1', { sandboxScenario: 'manual' }),
      })
      assert.equal(live.status, 200, JSON.stringify(live.json))
      const liveOrder = live.json.order.id as string
      await call('live', 'POST', '/v4.0/orders', {
        body: phoneOrder('live', 'live-2'),
        headers: { 'x-sandbox-scenario': 'manual' },
      })
      await waitFor(
        'the Sandbox orders to leave their first stage',
        async () => {
          const listed = await call('sandbox', 'GET', '/v4.0/orders?top=100')
          const moved = listed.json.orders.filter((order: Json) => order.status.details.downloadAssets !== 'NotStarted')
          return moved.length >= sandboxOrders.length - 1 ? true : undefined
        },
        60_000,
        250,
      )
      // The order without a scenario goes on to its delivery: its shipment with carrier scans, as answered.
      const plain = sandboxOrders.at(-1) as string
      await waitFor(
        'the order without a scenario to be delivered',
        async () => {
          const order = await call('sandbox', 'GET', `/v4.0/orders/${plain}`)
          return order.json.order.deliveredAt ? true : undefined
        },
        60_000,
        250,
      )
      for (const server of ['sandbox', 'live'] as const) {
        const ids = server === 'sandbox' ? sandboxOrders : [liveOrder]
        for (const id of ids) {
          await call(server, 'GET', `/v4.0/orders/${id}`)
          await call(server, 'GET', `/v4.0/orders/${id}/actions`)
          await call(server, 'GET', `/v4.0/orders/${id}/routing`)
          await call(server, 'GET', `/v4.0/orders/${id}/print-files`)
          await call(server, 'GET', `/v4.0/orders/${id}/preflight`)
          if (server === 'sandbox') await call(server, 'GET', `/v4.0/sandbox/orders/${id}`)
        }
        await call(server, 'GET', '/v4.0/orders?top=2')
        await call(server, 'GET', '/v4.0/orders?status=inProgress&search=scenario')
        await call(server, 'GET', '/v4.0/orders?top=0')
      }
      // Actions on orders that allow them and on ones that no longer do.
      const manual = sandboxOrders[SANDBOX_SCENARIOS.indexOf('manual')] as string
      await call('sandbox', 'POST', `/v4.0/orders/${manual}/actions/updateMetadata`, { body: { metadata: { a: 1 } } })
      await call('sandbox', 'POST', `/v4.0/orders/${manual}/actions/updateShippingMethod`, {
        body: { shippingMethod: 'Express' },
      })
      await call('sandbox', 'POST', `/v4.0/orders/${manual}/actions/updateRecipient`, {
        body: { name: 'Grace Hopper', address: sampleOrder().recipient },
      })
      await call('sandbox', 'POST', `/v4.0/sandbox/orders/${manual}/advance`, { body: { to: 'Shipped' } })
      // Once with its lab: the carrier's scans to Delivered (an order with scans), then nothing is left (400).
      await call('sandbox', 'POST', `/v4.0/sandbox/orders/${manual}/advance`, { body: {} })
      await call('sandbox', 'POST', `/v4.0/sandbox/orders/${manual}/advance`, { body: { to: 'Delivered' } })
      await call('sandbox', 'POST', `/v4.0/sandbox/orders/${manual}/advance`, { body: {} })
      await call('sandbox', 'GET', `/v4.0/orders/${manual}`)
      await call('sandbox', 'GET', `/v4.0/events?orderId=${manual}`)
      for (const id of sandboxOrders) await call('sandbox', 'POST', `/v4.0/orders/${id}/actions/cancel`)
      await call('live', 'POST', `/v4.0/orders/${liveOrder}/actions/cancel`)
      for (const id of [...sandboxOrders.slice(0, 3), liveOrder]) {
        const server = id === liveOrder ? 'live' : 'sandbox'
        await call(server, 'GET', `/v4.0/orders/${id}`)
        await call(server, 'GET', `/v4.0/orders/${id}/actions`)
      }

      // Products, quotes, previews, spine widths.
      for (const server of ['sandbox', 'live'] as const) {
        await call(server, 'GET', '/v4.0/products?top=3')
        await call(server, 'GET', '/v4.0/products/GLOBAL-CAN-10x10')
        await call(server, 'GET', `/v4.0/products/${PHONE_CASE}`)
        const quote = await call(server, 'POST', '/v4.0/quotes', {
          body: {
            destinationCountryCode: 'GB',
            currencyCode: 'GBP',
            shippingMethod: 'Standard',
            items: [
              {
                sku: 'GLOBAL-CAN-10x10',
                copies: 1,
                attributes: { wrap: 'ImageWrap' },
                assets: [{ printArea: 'default' }],
              },
            ],
          },
        })
        for (const found of quote.json.quotes ?? [])
          if (found.id) await call(server, 'GET', `/v4.0/quotes/${found.id}/routing`)
        await call(server, 'POST', '/v4.0/quotes', {
          body: {
            destinationCountryCode: 'GB',
            items: [
              {
                sku: PHONE_CASE,
                copies: 1,
                assets: [{ printArea: 'default', url: `${urls[server]}/samples/square.jpg` }],
              },
            ],
          },
        })
        await call(server, 'POST', '/v4.0/previews', {
          body: {
            sku: PHONE_CASE,
            sizing: 'fillPrintArea',
            assets: [{ url: `${urls[server]}/samples/landscape.jpg` }],
          },
        })
        await call(server, 'POST', '/v4.0/products/spine', {
          body: {
            sku: 'BOOK-A4-L-HARD-M',
            destinationCountryCode: 'US',
            state: 'NY',
            numberOfPages: 50,
            shippingMethod: 'Budget',
          },
        })
      }

      // Keys, callbacks and events.
      for (const server of ['sandbox', 'live'] as const) {
        await call(server, 'GET', '/v4.0/account/keys')
        const made = await call(server, 'POST', '/v4.0/account/keys')
        if (made.json.key?.prefix) await call(server, 'POST', `/v4.0/account/keys/${made.json.key.prefix}/revoke`)
        await call(server, 'POST', '/v4.0/callbacks/test', { body: { url: `${urls[server]}/samples/nothing-here` } })
        const callbacks = await call(server, 'GET', '/v4.0/callbacks?top=5')
        for (const delivery of callbacks.json.callbacks ?? []) {
          await call(server, 'POST', `/v4.0/callbacks/${delivery.id}/redeliver`)
        }
        await call(server, 'GET', '/v4.0/events?top=20')
      }

      // The lab API, with a lab key and without.
      const labKey = (await t.app.services.labs.createLabKey(catalogue.labs[0]?.code as string, TEST_ACTOR)).key
      await call('live', 'GET', '/labs/v1/jobs', { key: labKey })
      await call('live', 'POST', '/labs/v1/jobs/shp_1/acknowledge', { key: labKey })
      await call('live', 'POST', '/labs/v1/jobs/shp_1/reject', { key: labKey, body: { reason: 'x' } })
      await call('live', 'GET', '/labs/v1/jobs', { key: 'pr_lab_wrong' })

      // Errors on every operation: no key, unknown ids, an empty and a non-JSON body, a body over the limit.
      for (const server of ['sandbox', 'live'] as const) {
        for (const { method, template, operation } of operationsOf(
          (await (await fetch(`${urls[server]}/v4.0/openapi.json`)).json()) as Json,
        )) {
          const path = template.replace(/\{[^}]+\}/g, 'nothing_404')
          const verb = method.toUpperCase()
          await call(server, verb, path, { key: null, ...(method === 'get' ? {} : { body: {} }) })
          if (path.startsWith('/labs/')) continue
          await call(server, verb, path, method === 'get' ? {} : { body: {} })
          await call(server, verb, `${path}${path.includes('?') ? '&' : '?'}top=-1&unknown=1`)
          if (method !== 'get') {
            await call(server, verb, path, { body: 'x', headers: { 'content-type': 'text/plain' } })
            await call(server, verb, path, { body: '{"a":', headers: { 'content-type': 'application/json' } })
          }
          assert.ok(operation.operationId)
        }
      }
    })

    test('over-limit headers, over-limit bodies on any method and CONNECT get the documented error body', async () => {
      for (const server of ['sandbox', 'live'] as const) {
        const port = Number(new URL(urls[server]).port)
        const key = server === 'live' ? t.account.liveKey : t.account.sandboxKey
        const paths = ['/v4.0/orders', '/v4.0/products/GLOBAL-CAN-10x10', '/v4.0/account/settings']
        for (const path of paths) {
          const tooLarge = await rawRequest(
            port,
            `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`,
          )
          assert.equal(tooLarge.status, 431)
          checkers[server].check('GET', path, tooLarge.status, tooLarge.body, tooLarge.headers['content-type'])
          const body = 'b'.repeat(1_048_576 + 10)
          const oversized = await rawRequest(
            port,
            `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${body.length}\r\n\r\n${body}`,
          )
          assert.equal(oversized.status, 413, `GET ${path} with a body over the limit: ${oversized.body}`)
          assert.equal(JSON.parse(oversized.body).outcome, 'PayloadTooLarge')
          checkers[server].check('GET', path, oversized.status, oversized.body, oversized.headers['content-type'])
        }
        for (const target of ['127.0.0.1:443', '/v4.0/orders']) {
          const answer = await rawRequest(
            port,
            `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nX-API-Key: ${key}\r\n\r\n`,
          )
          assert.ok(answer.status >= 400 && answer.status < 500, `CONNECT ${target}: ${answer.status}`)
          const error = JSON.parse(answer.body)
          assert.deepEqual(Object.keys(error), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
          assert.equal(error.statusCode, answer.status)
        }
      }
    })

    test('the run covered the operations with successes, and many answers', () => {
      for (const server of ['sandbox', 'live'] as const) {
        const succeeded = new Set(
          [...checkers[server].checked.keys()].filter((key) => / 200$/.test(key)).map((key) => key.split(' ')[0]),
        )
        assert.ok(
          succeeded.size >= 20,
          `${server}: ${succeeded.size} operations answered 200: ${[...succeeded].join(', ')}`,
        )
        const total = [...checkers[server].checked.values()].reduce((sum, count) => sum + count, 0)
        assert.ok(total > 100, `${server}: ${total} answers validated`)
      }
    })
  })
}
