// The OpenAPI document each environment serves (docs/api.md, "Reference and OpenAPI"): complete enough for a
// client generator, and true to what the server answers. Generic over the routes, so a new route must comply:
// an operationId, tags, its named schemas, and every error status it can answer documented.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { parse as parseYaml } from 'yaml'
import { SANDBOX_SCENARIOS } from '../../src/domain/sandbox-scenarios.ts'
import { assertErrorBody, rawRequest } from '../support/raw-http.ts'
import { json, listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

type Json = Record<string, any>
const METHODS = ['get', 'put', 'post', 'delete', 'patch']

function operationsOf(document: Json): { path: string; method: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  )
}

/** A path of the document with its parameters filled with values that name nothing. */
function concretePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'nothing_404')
}

describe('OpenAPI document', () => {
  let t: TestApp
  let base: { live: string; sandbox: string }
  const documents: Record<'live' | 'sandbox', Json> = { live: {}, sandbox: {} }

  before(async () => {
    t = await startTestApp()
    base = await listenOnLoopback(t)
    for (const environment of ['live', 'sandbox'] as const) {
      const response = await fetch(`${base[environment]}/v4.0/openapi.json`)
      assert.equal(response.status, 200)
      documents[environment] = (await response.json()) as Json
    }
  })
  after(async () => {
    await t?.close()
  })

  for (const environment of ['live', 'sandbox'] as const) {
    describe(environment, () => {
      test('servers is the base URL of the server itself; info has the version and the licence', () => {
        const document = documents[environment]
        assert.match(String(document.openapi), /^3\.1\./)
        assert.deepEqual(
          document.servers.map((server: Json) => server.url),
          [base[environment]],
        )
        assert.match(document.info.version, /^\d+\.\d+\.\d+/)
        assert.deepEqual(document.info.license, { name: 'MIT', identifier: 'MIT' })
      })

      test('every operation has a unique camelCase operationId, tags that are declared, and a 2xx and 4xx answer', () => {
        const document = documents[environment]
        const declaredTags = new Set(document.tags.map((tag: Json) => tag.name))
        const seen = new Set<string>()
        const operations = [
          ...operationsOf(document),
          ...Object.values(document.webhooks as Json).map((item) => ({
            path: 'webhook',
            method: 'post',
            operation: item.post,
          })),
        ]
        for (const { path, method, operation } of operations) {
          const where = `${method.toUpperCase()} ${path}`
          assert.match(String(operation.operationId), /^[a-z][A-Za-z0-9]*$/, `${where}: operationId`)
          assert.ok(!seen.has(operation.operationId), `${where}: operationId ${operation.operationId} twice`)
          seen.add(operation.operationId)
          assert.ok(operation.tags?.length > 0, `${where}: no tags`)
          for (const tag of operation.tags) assert.ok(declaredTags.has(tag), `${where}: tag ${tag} not declared`)
          const statuses = Object.keys(operation.responses)
          assert.ok(
            statuses.some((status) => status.startsWith('2')),
            `${where}: no 2xx answer`,
          )
          assert.ok(
            statuses.some((status) => status.startsWith('4')),
            `${where}: no 4xx answer`,
          )
        }
      })

      test('every operation lists the 400 it answers to a malformed request, with the error body', async () => {
        const document = documents[environment]
        const badRequest = document.components.responses.BadRequest
        assert.equal(badRequest.content['application/json'].schema.$ref, '#/components/schemas/ErrorBody')
        assert.match(badRequest.description, /ValidationFailed or MalformedRequest/)
        for (const { path, method, operation } of operationsOf(document)) {
          assert.deepEqual(
            operation.responses['400'],
            { $ref: '#/components/responses/BadRequest' },
            `${method.toUpperCase()} ${path}`,
          )
          // Even an operation with no parameter and no body: a header Node's parser refuses (a NUL in it).
          const answer = await rawRequest(
            Number(new URL(base[environment]).port),
            `${method.toUpperCase()} ${concretePath(path)} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\u0000b\r\n\r\n`,
          )
          assertErrorBody(answer, 'MalformedRequest', 400)
        }
      })

      test('create order declares the optional X-Sandbox-Scenario header, naming every scenario', () => {
        const parameters = documents[environment].paths['/v4.0/orders'].post.parameters as Json[]
        const header = parameters.find((parameter) => parameter.in === 'header')
        assert.equal(header?.name, 'x-sandbox-scenario')
        assert.equal(header?.required, false)
        assert.equal(header?.schema.type, 'string')
        for (const scenario of SANDBOX_SCENARIOS) assert.ok(header?.description.includes(scenario), scenario)
      })

      test('only the public API is documented: no dashboard, files, samples, payment pages or probes', () => {
        for (const path of Object.keys(documents[environment].paths)) {
          assert.match(path, /^\/(v4\.0|labs\/v1)\//, path)
        }
        const hasLabs = Object.keys(documents[environment].paths).some((path) => path.startsWith('/labs/v1/'))
        assert.equal(hasLabs, environment === 'live', 'the lab API is Live only')
      })

      test('the objects and outcomes have named schemas, and error answers refer to ErrorBody', () => {
        const schemas = documents[environment].components.schemas
        for (const name of [
          'Order',
          'Item',
          'Asset',
          'Shipment',
          'Charge',
          'Recipient',
          'Money',
          'Quote',
          'Product',
          'CallbackEvent',
          'CallbackDelivery',
          'ErrorBody',
          'ErrorOutcome',
          'CreateOrderOutcome',
          'CancelOutcome',
          'UpdateOutcome',
          'QuoteOutcome',
          'Stage',
          'ShippingMethod',
        ]) {
          assert.ok(schemas[name], `${name} missing from ${Object.keys(schemas).join(', ')}`)
        }
        assert.deepEqual(schemas.CancelOutcome.enum, ['Cancelled', 'FailedToCancel', 'ActionNotAvailable'])
        const getOrder = operationsOf(documents[environment]).find(
          ({ operation }) => operation.operationId === 'getOrder',
        )
        assert.equal(
          getOrder?.operation.responses['200'].content['application/json'].schema.$ref,
          '#/components/schemas/OrderResponse',
        )
        const notFound = documents[environment].components.responses.NotFound
        assert.equal(notFound.content['application/json'].schema.$ref, '#/components/schemas/ErrorBody')
        // No schema is left inline under a name: each title appears only in components.
        const titlesOutside = JSON.stringify({ ...documents[environment], components: {} }).match(/"title":/g) ?? []
        assert.equal(titlesOutside.length, 1, 'only info.title')
      })

      test('webhooks: one per callback event type, with the CloudEvent payload and the signature headers', () => {
        const webhooks = documents[environment].webhooks as Json
        const types = Object.keys(webhooks)
        assert.ok(types.includes('com.printroute.order.shipments.shipment#Shipped'), types.join(', '))
        assert.ok(types.includes('com.printroute.order.status.stage.changed#Cancelled'), types.join(', '))
        for (const type of types) {
          const post = webhooks[type].post
          assert.equal(post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/CallbackEvent')
          assert.deepEqual(
            post.parameters.map((parameter: Json) => `${parameter.in}:${parameter.name}`),
            ['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature'],
          )
        }
      })

      test('every example validates against its schema', () => {
        const document = documents[environment]
        const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
        ajv.addSchema({ $id: 'doc', components: document.components }, 'doc')
        const resolve = (schema: Json) =>
          JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'))
        let examples = 0
        for (const { path, method, operation } of operationsOf(document)) {
          const media = [
            operation.requestBody?.content?.['application/json'],
            ...Object.values(operation.responses as Json).map((response) => response.content?.['application/json']),
          ]
          for (const entry of media) {
            if (!entry?.example) continue
            examples++
            const validate = ajv.compile(resolve(entry.schema))
            assert.ok(validate(entry.example), `${method} ${path}: ${JSON.stringify(validate.errors)}`)
          }
        }
        assert.ok(examples >= 5, `${examples} examples`)
      })

      test('every documented path answers its error statuses as documented: without a key, and with unknown ids', async () => {
        const document = documents[environment]
        const key = environment === 'live' ? t.account.liveKey : t.account.sandboxKey
        for (const { path, method, operation } of operationsOf(document)) {
          const documented = new Set(Object.keys(operation.responses))
          const where = `${method.toUpperCase()} ${path}`
          const url = `${base[environment]}${concretePath(path)}`
          const hasBody = method !== 'get'
          const withoutKey = await fetch(url, {
            method: method.toUpperCase(),
            ...(hasBody ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
          })
          assert.ok(
            documented.has(String(withoutKey.status)),
            `${where} without a key: ${withoutKey.status} not documented`,
          )
          if (path.startsWith('/labs/')) continue
          const withKey = await fetch(url, {
            method: method.toUpperCase(),
            headers: { 'x-api-key': key, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
            ...(hasBody ? { body: '{}' } : {}),
          })
          assert.ok(
            withKey.status === 200 || documented.has(String(withKey.status)),
            `${where} with unknown ids: ${withKey.status} not documented (${await withKey.text()})`,
          )
          if (hasBody) {
            const notJson = await fetch(url, {
              method: method.toUpperCase(),
              headers: { 'x-api-key': key, 'content-type': 'text/plain' },
              body: 'x',
            })
            assert.ok(
              documented.has(String(notJson.status)),
              `${where} with a text body: ${notJson.status} not documented`,
            )
          }
        }
      })

      test('GET /v4.0/openapi.yaml is the same document, open without a key', async () => {
        const response = await t[environment]({ method: 'GET', url: '/v4.0/openapi.yaml' }, null)
        assert.equal(response.statusCode, 200)
        assert.match(String(response.headers['content-type']), /^application\/yaml/)
        assert.deepEqual(parseYaml(response.body), documents[environment])
        assert.deepEqual(json(await t[environment]({ method: 'GET', url: '/v4.0/openapi.json' }, null)).servers, [
          { url: base[environment], description: `${environment === 'live' ? 'Live' : 'Sandbox'} environment` },
        ])
      })
    })
  }
})
