// The lab API's own OpenAPI document (GET /labs/v1/openapi.json, docs/labs.md): exactly the lab operations the
// Live server serves, as its full document describes them, every reference resolving inside it, and the pushed
// events as webhooks.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import Fastify from 'fastify'
import { registerLabClaimRoutes } from '../../src/http/routes/lab-claims.routes.ts'
import { registerLabRoutes } from '../../src/http/routes/labs.routes.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

type Json = Record<string, any>
const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Every `#/components/...` reference in `node`. */
function referencesOf(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const entry of node) referencesOf(entry, found)
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value)
      else referencesOf(value, found)
    }
  }
  return found
}

describe('the lab OpenAPI document', () => {
  let t: TestApp
  let base: { live: string; sandbox: string }
  let labs: Json
  let full: Json

  before(async () => {
    t = await startTestApp()
    base = await listenOnLoopback(t)
    const response = await fetch(`${base.live}/labs/v1/openapi.json`)
    assert.equal(response.status, 200, 'open without a key')
    labs = (await response.json()) as Json
    full = (await (await fetch(`${base.live}/v4.0/openapi.json`)).json()) as Json
  })
  after(async () => {
    await t?.close()
  })

  test('it has exactly the /labs/v1 operations of the served document, as that describes them', () => {
    assert.match(String(labs.openapi), /^3\.1\./)
    assert.deepEqual(labs.servers, [{ url: base.live, description: 'Live environment' }])
    const labPaths = Object.keys(full.paths).filter((path) => path.startsWith('/labs/v1/'))
    assert.ok(labPaths.length >= 6, labPaths.join(', '))
    assert.deepEqual(Object.keys(labs.paths), labPaths)
    for (const path of labPaths) assert.deepEqual(labs.paths[path], full.paths[path], path)
    assert.deepEqual(labs.security, [{ labKey: [] }])
    assert.deepEqual(Object.keys(labs.components.securitySchemes), ['labKey'])
  })

  test('every lab operation lists the 400 it answers to a malformed request, with the error body', () => {
    assert.equal(
      labs.components.responses.BadRequest.content['application/json'].schema.$ref,
      '#/components/schemas/ErrorBody',
    )
    for (const [path, item] of Object.entries(labs.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue
        assert.deepEqual(operation.responses['400'], { $ref: '#/components/responses/BadRequest' }, `${method} ${path}`)
      }
    }
  })

  test('every route the server has under /labs/v1 is documented, and every documented one is served', async () => {
    // The routes registerLabRoutes registers, collected as Fastify registers them (the served app also has the
    // 405 answers of other methods on the same paths).
    const probe = Fastify()
    // Only the routes are wanted: their schemas are compiled by the real server (the validation test files).
    probe.setValidatorCompiler(() => () => true)
    probe.setSerializerCompiler(() => (data) => JSON.stringify(data))
    const served = new Set<string>()
    probe.addHook('onRoute', (route) => {
      for (const method of ([] as string[]).concat(route.method)) {
        if (method !== 'HEAD') served.add(`${method} ${route.url}`)
      }
    })
    await probe.register(
      async (api) => {
        registerLabRoutes(
          api,
          {} as never,
          {} as never,
          {
            refuseUnauthenticated: async (_request, reply) => reply,
          },
          {} as never,
        )
        registerLabClaimRoutes(api, {} as never)
      },
      { prefix: '/labs/v1' },
    )
    await probe.ready()
    await probe.close()
    const documented = new Set<string>()
    for (const [path, item] of Object.entries(labs.paths as Json)) {
      for (const method of Object.keys(item).filter((name) => METHODS.includes(name))) {
        documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)
      }
    }
    assert.deepEqual([...served].sort(), [...documented].sort())
    // And each answers as the lab API does: a request without a lab key is refused, not unknown.
    for (const entry of documented) {
      const [method, path] = entry.split(' ') as [string, string]
      const answer = await fetch(`${base.live}${path.replace(/:\w+/g, 'shp_404')}`, {
        method,
        ...(method === 'GET' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      })
      assert.equal(answer.status, 401, entry)
    }
  })

  test('every reference resolves inside it, and it carries no schema it does not use', () => {
    const references = referencesOf(labs)
    for (const reference of references) {
      const [, kind, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(reference) ?? []
      assert.ok(kind && name && labs.components[kind][name], `${reference} resolves`)
    }
    for (const name of Object.keys(labs.components.schemas)) {
      assert.ok(references.includes(`#/components/schemas/${name}`), `${name} is used`)
    }
    assert.ok(!('CallbackEvent' in labs.components.schemas), 'no merchant callback schema')
    assert.ok(labs.components.schemas.LabJob, 'the job is a named schema')
  })

  test('the pushed events are webhooks: a CloudEvent with the job, signed with the Standard Webhooks headers', () => {
    assert.deepEqual(Object.keys(labs.webhooks), [
      'com.printroute.lab.job.created',
      'com.printroute.lab.job.changed',
      'com.printroute.lab.job.cancellationRequested',
      'com.printroute.lab.job.movedAway',
      'com.printroute.lab.job.reminder',
      'com.printroute.lab.claim.created',
    ])
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema({ $id: 'doc', components: labs.components }, 'doc')
    const claimPush = labs.webhooks['com.printroute.lab.claim.created'].post
    const claimData = claimPush.requestBody.content['application/json'].schema.properties.data
    assert.equal(claimData.properties.claim.$ref, '#/components/schemas/LabClaim')
    assert.deepEqual(claimData.required, ['claim'])
    for (const [type, { post }] of Object.entries(labs.webhooks as Json)) {
      if (type.startsWith('com.printroute.lab.claim.')) continue
      assert.deepEqual(
        post.parameters.map((parameter: Json) => parameter.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      )
      const schema = post.requestBody.content['application/json'].schema
      assert.equal(schema.properties.data.properties.job.$ref, '#/components/schemas/LabJob')
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')))
      const job = {
        shipmentId: 'shp_1',
        orderId: 'ord_1',
        state: 'submitted',
        shippingMethod: 'Standard',
        carrier: { name: 'Evri', service: 'Evri Standard 48' },
        recipient: { name: 'Ada Lovelace' },
        items: [],
        packingSlip: null,
        branding: null,
        priority: 'normal',
        packingSlipPdf: null,
      }
      const event = {
        specversion: '1.0',
        type,
        source: `${base.live}/labs/v1/jobs/shp_1`,
        id: 'evt_1',
        time: '2026-11-27T10:00:00Z',
        datacontenttype: 'application/json',
        data: { job, change: 'itemsRemoved', reason: 'overdue' },
      }
      assert.ok(validate(event), `${type}: ${JSON.stringify(validate.errors)}`)
      assert.ok(!validate({ ...event, data: {} }), `${type} without its job`)
    }
  })

  test('the Sandbox, which has no lab API, has no lab document', async () => {
    assert.equal((await fetch(`${base.sandbox}/labs/v1/openapi.json`)).status, 404)
  })
})
