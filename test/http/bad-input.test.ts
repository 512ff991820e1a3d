// Bad input gets the documented error, never a 500 (docs/errors.md, docs/api.md "Limits"), on every database
// backend: the text rule (U+0000 anywhere, control characters, lone surrogates) in bodies at any depth, query
// and path values and account settings; URLs that can never be fetched refused at create; list filters in the
// bracket spellings of common HTTP libraries. A sweep of every endpoint puts a NUL in each string a valid
// request carries and expects 400 InvalidCharacter naming exactly that field.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { TEST_ACTOR } from '../support/audit-actor.ts'
import { assertErrorBody } from '../support/raw-http.ts'
import { catalogue, json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const NUL = '\u0000'

function errorOf(response: LightMyRequestResponse, outcome = 'ValidationFailed', status = 400) {
  return assertErrorBody(
    { status: response.statusCode, headers: response.headers, body: response.body },
    outcome,
    status,
  )
}

/** Every string leaf of a JSON value with its path in the contract's notation (keys excluded). */
function stringLeaves(value: unknown, path = ''): { path: string; set: (root: any, text: string) => any }[] {
  const leaves: { path: string; set: (root: any, text: string) => any }[] = []
  const walk = (node: unknown, at: string, trail: (string | number)[]) => {
    if (typeof node === 'string') {
      leaves.push({
        path: at,
        set: (root, text) => {
          const copy = structuredClone(root)
          let target = copy
          for (const step of trail.slice(0, -1)) target = target[step]
          target[trail.at(-1) as string | number] = text
          return copy
        },
      })
    } else if (Array.isArray(node)) {
      for (const [index, entry] of node.entries()) walk(entry, `${at}[${index}]`, [...trail, index])
    } else if (node && typeof node === 'object') {
      for (const [key, entry] of Object.entries(node)) walk(entry, at === '' ? key : `${at}.${key}`, [...trail, key])
    }
  }
  walk(value, path, [])
  return leaves
}

/** A full order: every optional string the create request takes, so the sweep reaches each of them. */
function fullOrder(): Record<string, unknown> {
  return sampleOrder({
    merchantReference: 'MR-7',
    idempotencyKey: null,
    callbackUrl: 'https://shop.test/callbacks?token=abc',
    recipient: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phoneNumber: '+44 20 7946 0000',
      address: {
        line1: '14 Test Street',
        line2: 'Flat 2',
        postalOrZipCode: 'EC1A 1BB',
        countryCode: 'GB',
        townOrCity: 'London',
        stateOrCounty: 'Greater London',
      },
    },
    branding: { flyer: { url: 'https://shop.test/flyer.pdf' } },
    packingSlip: { url: 'https://shop.test/slip.pdf' },
    items: [
      {
        merchantReference: 'line-1',
        sku: 'GLOBAL-CAN-10x10',
        copies: 1,
        sizing: 'fillPrintArea',
        recipientCost: { amount: '10.00', currency: 'GBP' },
        attributes: { wrap: 'ImageWrap' },
        assets: [{ printArea: 'default', url: 'https://images.test/a.jpg', md5Hash: 'a'.repeat(32) }],
      },
    ],
    metadata: { shop: { note: 'gift', tags: ['a', 'b'] } },
  })
}

for (const kind of databaseKinds) {
  describe(`bad input (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    const orderCount = async () =>
      json(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' })).orders.length as number

    describe('the text rule', () => {
      test('a NUL anywhere in a create body is 400 InvalidCharacter naming that field, and nothing is stored', async () => {
        const before = await orderCount()
        const order = fullOrder()
        const leaves = stringLeaves(order)
        assert.ok(leaves.length > 25, `${leaves.length} strings`)
        for (const leaf of leaves) {
          const response = await t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: leaf.set(order, `a${NUL}b`),
          })
          const body = errorOf(response)
          assert.deepEqual(
            body.failures[leaf.path]?.find((failure: any) => failure.code === 'InvalidCharacter'),
            { code: 'InvalidCharacter', providedValue: `a${NUL}b`, comparisonValue: 'U+0000' },
            leaf.path,
          )
        }
        // Metadata keys too, at any depth, named by their path.
        const keyed = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ metadata: { outer: { [`k${NUL}`]: 1 } } }),
        })
        assert.deepEqual(errorOf(keyed).failures, {
          [`metadata.outer.k${NUL}`]: [
            { code: 'InvalidCharacter', providedValue: `k${NUL}`, comparisonValue: 'U+0000' },
          ],
        })
        assert.equal(await orderCount(), before)
      })

      test('free text keeps tab and line breaks; identifiers refuse them; other controls and lone surrogates are refused', async () => {
        const recipient = (sampleOrder().recipient ?? {}) as Record<string, any>
        const accepted = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({
            recipient: {
              ...recipient,
              name: 'Ada\tLovelace',
              address: { ...recipient.address, line1: 'Flat 2\r\n14 Test St' },
            },
            metadata: { note: 'line one\nline two' },
          }),
        })
        assert.equal(json(accepted).outcome, 'Created', accepted.body)
        const order = json(accepted).order
        assert.equal(order.recipient.address.line1, 'Flat 2\r\n14 Test St')

        for (const [payload, path, character] of [
          [sampleOrder({ idempotencyKey: 'key\t1' }), 'idempotencyKey', 'U+0009'],
          [sampleOrder({ merchantReference: 'MR\n1' }), 'merchantReference', 'U+000A'],
          [sampleOrder({ callbackUrl: 'https://shop.test/\r' }), 'callbackUrl', 'U+000D'],
          [sampleOrder({ recipient: { ...recipient, name: 'Ada\u001b[31m' } }), 'recipient.name', 'U+001B'],
          [sampleOrder({ recipient: { ...recipient, name: 'Ada\u0085' } }), 'recipient.name', 'U+0085'],
          [sampleOrder({ metadata: { note: 'bell\u0007' } }), 'metadata.note', 'U+0007'],
          [sampleOrder({ merchantReference: 'MR-\ud800' }), 'merchantReference', 'U+D800'],
        ] as const) {
          const failures = errorOf(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload })).failures
          assert.deepEqual(
            failures[path]?.find((failure: any) => failure.code === 'InvalidCharacter')?.comparisonValue,
            character,
            `${path}: ${JSON.stringify(failures)}`,
          )
        }
      })

      test('query and path values refuse every control character, named by parameter', async () => {
        for (const [url, path, character] of [
          ['/v4.0/orders?merchantReferences=a%00b', 'merchantReferences[0]', 'U+0000'],
          ['/v4.0/orders?merchantReferences=ok,b%09c', 'merchantReferences[1]', 'U+0009'],
          ['/v4.0/orders?orderIds[]=ord_1%00', 'orderIds[0]', 'U+0000'],
          ['/v4.0/orders?createdFrom=2026-01-01T00:00:00Z%00', 'createdFrom', 'U+0000'],
          ['/v4.0/orders/ord_1%00', 'orderId', 'U+0000'],
          ['/v4.0/orders/ord_1%0A/actions', 'orderId', 'U+000A'],
          ['/v4.0/products/GLOBAL-CAN-10x10%00', 'sku', 'U+0000'],
          ['/v4.0/callbacks?orderId=ord_1%00', 'orderId', 'U+0000'],
          ['/v4.0/events?after=evt_1%00', 'after', 'U+0000'],
        ] as const) {
          const failures = errorOf(await t.sandbox({ method: 'GET', url })).failures
          assert.deepEqual(
            failures[path]?.find((failure: any) => failure.code === 'InvalidCharacter')?.comparisonValue,
            character,
            `${url}: ${JSON.stringify(failures)}`,
          )
        }
      })

      test('an account name with a NUL is refused before the database (printroute accounts create)', async () => {
        const input = { billingCurrency: 'GBP', pauseWindowSeconds: 0, callbackUrl: null }
        await assert.rejects(
          t.app.services.accounts.createAccount({ ...input, name: `Shop${NUL}` }, TEST_ACTOR),
          /The account name must not contain U\+0000/,
        )
        const created = await t.app.services.accounts.createAccount({ ...input, name: 'Shop\tTwo' }, TEST_ACTOR)
        assert.equal(created.account.name, 'Shop\tTwo')
      })

      test('account settings: a NUL in the callback URL is refused and nothing changes', async () => {
        const before = json(await t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings
        const response = await t.live({
          method: 'PATCH',
          url: '/v4.0/account/settings',
          payload: { callbackUrl: `https://shop.test/${NUL}`, pauseWindowSeconds: 60 },
        })
        assert.deepEqual(errorOf(response).failures, {
          callbackUrl: [
            { code: 'InvalidCharacter', providedValue: `https://shop.test/${NUL}`, comparisonValue: 'U+0000' },
          ],
        })
        assert.deepEqual(json(await t.live({ method: 'GET', url: '/v4.0/account/settings' })).settings, before)
      })
    })

    describe('URLs that can never be fetched', () => {
      const unfetchable = [
        ['http:///a', 'the URL has no host'],
        ['http://127.0.0.1:99999/a', 'the port 99999 is outside 1 to 65535'],
        ['http://[::1/a', 'the IPv6 address has no closing ]'],
        ['http://user:secret@127.0.0.1/a', 'the URL carries a user name or password, which is not supported'],
        ['ftp://127.0.0.1/a', 'the scheme must be http or https, not ftp'],
        ['file:///etc/passwd', 'the scheme must be http or https, not file'],
        ['http:/127.0.0.1/a', 'http: must be followed by //'],
      ] as const

      test('are refused at create in every URL field with 400 and the reason; nothing is stored', async () => {
        const before = await orderCount()
        for (const [url, reason] of unfetchable) {
          const item = (sampleOrder().items as Record<string, any>[])[0] ?? {}
          for (const [path, payload] of [
            ['items[0].assets[0].url', sampleOrder({ items: [{ ...item, assets: [{ url }] }] })],
            ['packingSlip.url', sampleOrder({ packingSlip: { url } })],
            ['branding.flyer.url', sampleOrder({ branding: { flyer: { url } } })],
            ['callbackUrl', sampleOrder({ callbackUrl: url })],
          ] as const) {
            const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload })
            assert.deepEqual(
              errorOf(response).failures,
              { [path]: [{ code: 'InvalidFormat', providedValue: url, comparisonValue: `http(s) URL: ${reason}` }] },
              `${path} = ${url}`,
            )
          }
        }
        assert.equal(await orderCount(), before)
      })

      test('are refused as the account callback URL', async () => {
        for (const [url, reason] of unfetchable) {
          const response = await t.live({
            method: 'PATCH',
            url: '/v4.0/account/settings',
            payload: { callbackUrl: url },
          })
          assert.deepEqual(errorOf(response).failures, {
            callbackUrl: [{ code: 'InvalidFormat', providedValue: url, comparisonValue: `http(s) URL: ${reason}` }],
          })
        }
        const fine = await t.live({
          method: 'PATCH',
          url: '/v4.0/account/settings',
          payload: { callbackUrl: 'http://127.0.0.1:65535/hook?token=a%2Fb' },
        })
        assert.equal(json(fine).settings.callbackUrl, 'http://127.0.0.1:65535/hook?token=a%2Fb')
      })
    })

    describe('list filters in bracket spellings', () => {
      test('orderIds[] and merchantReferences[] are the same filters, and nextUrl keeps them', async () => {
        const ids: string[] = []
        for (const reference of ['br-1', 'br-2', 'br-3']) {
          const created = await t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder({ merchantReference: reference }),
          })
          ids.push(json(created).order.id)
        }
        const listed = async (query: string) => {
          const body = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders?${query}` }))
          assert.equal(body.outcome, 'Ok', JSON.stringify(body))
          return body as { orders: { id: string }[]; hasMore: boolean; nextUrl: string | null }
        }
        const expected = [ids[2], ids[0]]
        for (const query of [
          `orderIds=${ids[0]}&orderIds=${ids[2]}`,
          `orderIds[]=${ids[0]}&orderIds[]=${ids[2]}`,
          `orderIds%5B%5D=${ids[0]}&OrderIds%5B%5D=${ids[2]}`,
          `orderIds[0]=${ids[0]}&orderIds[1]=${ids[2]}`,
          `orderIds[]=${ids[0]},${ids[2]}`,
          'merchantReferences[]=br-1&merchantReferences[]=br-3',
          `MerchantReferences[]=br-1,br-3&orderIds[]=${ids.join(',')}`,
        ]) {
          assert.deepEqual(
            (await listed(query)).orders.map((order) => order.id),
            expected,
            query,
          )
        }
        const first = await listed(`orderIds[]=${ids[0]}&orderIds[]=${ids[1]}&orderIds[]=${ids[2]}&top=2`)
        assert.deepEqual(
          first.orders.map((order) => order.id),
          [ids[2], ids[1]],
        )
        assert.ok(first.nextUrl)
        const next = new URL(first.nextUrl)
        const second = await listed(next.search.slice(1))
        assert.deepEqual(
          second.orders.map((order) => order.id),
          [ids[0]],
        )
        assert.equal(second.hasMore, false)
        // Brackets on a parameter that is no list stay unknown.
        assert.deepEqual(errorOf(await t.sandbox({ method: 'GET', url: '/v4.0/orders?top[]=1' })).failures, {
          'top[]': [{ code: 'UnknownField', providedValue: '1' }],
        })
      })
    })

    describe('every endpoint', () => {
      test('a NUL in any string of a valid request is 400 InvalidCharacter naming it, on both addresses', async () => {
        const labCode = catalogue.labs[0]?.code as string
        const labKey = (await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
        const recipient = sampleOrder().recipient
        const requests: {
          server: 'live' | 'sandbox'
          method: 'POST' | 'PATCH'
          url: string
          body: object
          key?: string
        }[] = [
          { server: 'sandbox', method: 'POST', url: '/v4.0/orders', body: fullOrder() },
          { server: 'live', method: 'POST', url: '/v4.0/orders', body: fullOrder() },
          {
            server: 'sandbox',
            method: 'POST',
            url: '/v4.0/orders/ord_1/actions/updateRecipient',
            body: recipient as object,
          },
          {
            server: 'sandbox',
            method: 'POST',
            url: '/v4.0/orders/ord_1/actions/updateShippingMethod',
            body: { shippingMethod: 'Express' },
          },
          {
            server: 'sandbox',
            method: 'POST',
            url: '/v4.0/orders/ord_1/actions/updateMetadata',
            body: { metadata: { a: ['b', { c: 'd' }] } },
          },
          {
            server: 'live',
            method: 'POST',
            url: '/v4.0/quotes',
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
          },
          {
            server: 'sandbox',
            method: 'POST',
            url: '/v4.0/products/spine',
            body: {
              sku: 'BOOK-A4-L-HARD-M',
              destinationCountryCode: 'US',
              state: 'NY',
              numberOfPages: 50,
              shippingMethod: 'Budget',
            },
          },
          {
            server: 'live',
            method: 'PATCH',
            url: '/v4.0/account/settings',
            body: { callbackUrl: 'https://shop.test/hook' },
          },
          {
            server: 'live',
            method: 'POST',
            url: '/labs/v1/jobs/shp_1/shipped',
            key: labKey,
            body: {
              carrier: { name: 'Royal Mail', service: 'Tracked 48' },
              tracking: { number: 'RM1', url: 'https://track.test/RM1' },
            },
          },
          {
            server: 'live',
            method: 'POST',
            url: '/labs/v1/jobs/shp_1/reject',
            key: labKey,
            body: { reason: 'out of stock', unavailableItemIds: ['ori_1'], note: 'sorry' },
          },
          {
            server: 'live',
            method: 'POST',
            url: '/payments/ord_1',
            body: {
              token: 'tok',
              amount: '10.00',
              card: { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' },
            },
          },
        ]
        for (const request of requests) {
          for (const leaf of stringLeaves(request.body)) {
            const response = await t[request.server](
              { method: request.method, url: request.url, payload: leaf.set(request.body, `x${NUL}`) },
              request.key,
            )
            assert.notEqual(response.statusCode, 500, `${request.url} ${leaf.path}`)
            const failures = errorOf(response).failures
            assert.ok(
              failures[leaf.path]?.some((failure: any) => failure.code === 'InvalidCharacter'),
              `${request.url} ${leaf.path}: ${JSON.stringify(failures)}`,
            )
          }
        }
      })

      test('a date in year 0 or past 9999 is 400 naming the field and the bound, in every part of the API', async () => {
        const labCode = catalogue.labs[0]?.code as string
        const labKey = (await t.app.services.labs.createLabKey(labCode, TEST_ACTOR)).key
        const YEAR_0 = '0000-01-01T00:00:00Z'
        const EARLY = {
          code: 'MustBeGreaterThanOrEqualTo',
          providedValue: YEAR_0,
          comparisonValue: '0001-01-01T00:00:00Z',
        }
        const cases: {
          server: 'live' | 'sandbox'
          method: 'GET' | 'POST'
          url: string
          body?: object
          key?: string
          field: string
        }[] = [
          { server: 'sandbox', method: 'GET', url: `/v4.0/account/audit?to=${YEAR_0}`, field: 'to' },
          { server: 'live', method: 'GET', url: `/v4.0/account/audit?from=${YEAR_0}`, field: 'from' },
          { server: 'sandbox', method: 'GET', url: `/v4.0/orders?createdFrom=${YEAR_0}`, field: 'createdFrom' },
          { server: 'sandbox', method: 'GET', url: `/v4.0/orders?createdTo=${YEAR_0}`, field: 'createdTo' },
          {
            server: 'sandbox',
            method: 'POST',
            url: '/v4.0/webhooks/whk_1/redeliver-missed',
            body: { since: YEAR_0 },
            field: 'since',
          },
          {
            server: 'live',
            method: 'POST',
            url: '/v4.0/account/keys',
            body: { expiresAt: YEAR_0 },
            field: 'expiresAt',
          },
          {
            server: 'live',
            method: 'POST',
            url: '/labs/v1/jobs/shp_1/shipped',
            key: labKey,
            body: { dispatchDate: YEAR_0 },
            field: 'dispatchDate',
          },
          {
            server: 'live',
            method: 'POST',
            url: '/labs/v1/jobs/shp_1/tracking',
            key: labKey,
            body: { events: [{ time: YEAR_0, status: 'InTransit', description: 'scanned' }] },
            field: 'events[0].time',
          },
        ]
        for (const request of cases) {
          const response = await t[request.server](
            { method: request.method, url: request.url, ...(request.body ? { payload: request.body } : {}) },
            request.key,
          )
          const failures = errorOf(response).failures
          assert.deepEqual(failures[request.field], [EARLY], `${request.url}: ${JSON.stringify(failures)}`)
        }
        // Past 9999 in UTC (a date of year 9999 at a negative offset) is refused naming the latest bound.
        const late = await t.sandbox({ method: 'GET', url: '/v4.0/account/audit?to=9999-12-31T23:30:00-01:00' })
        assert.equal(errorOf(late).failures.to[0].code, 'MustBeLessThanOrEqualTo')
        // The widest range is read on both databases.
        const widest = await t.sandbox({
          method: 'GET',
          url: '/v4.0/account/audit?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999Z',
        })
        assert.equal(widest.statusCode, 200, widest.body)
      })

      test('a NUL in any path or query value is 400 InvalidCharacter naming it, on both addresses', async () => {
        const paths = [
          ['GET', '/v4.0/orders/{orderId}'],
          ['GET', '/v4.0/orders/{orderId}/actions'],
          ['POST', '/v4.0/orders/{orderId}/actions/cancel'],
          ['GET', '/v4.0/products/{sku}'],
          ['POST', '/v4.0/callbacks/{callbackId}/redeliver'],
          ['GET', '/payments/{orderId}'],
        ] as const
        for (const server of ['live', 'sandbox'] as const) {
          for (const [method, template] of paths) {
            if (template.startsWith('/payments') && server === 'sandbox') continue
            const name = /\{(\w+)\}/.exec(template)?.[1] as string
            const response = await t[server]({ method, url: template.replace(`{${name}}`, 'ord_1%00') })
            const failures = errorOf(response).failures
            assert.ok(
              failures[name]?.some((failure: any) => failure.code === 'InvalidCharacter'),
              `${server} ${template}`,
            )
          }
          for (const url of [
            '/v4.0/orders?status=%00',
            '/v4.0/callbacks?status=pending%00',
            '/v4.0/events?after=%00',
            ...(server === 'live' ? ['/payments/ord_1?token=t%00'] : []),
          ]) {
            const response = await t[server]({ method: 'GET', url })
            assert.notEqual(response.statusCode, 500, url)
            const failures = errorOf(response).failures
            assert.ok(
              Object.values(failures)
                .flat()
                .some((failure: any) => failure.code === 'InvalidCharacter'),
              `${server} ${url}: ${JSON.stringify(failures)}`,
            )
          }
        }
      })
    })
  })
}
