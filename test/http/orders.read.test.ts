// GET /v4.0/orders/{id} and GET /v4.0/orders through HTTP on every database backend: scoping by account and
// environment, order ID validation, the pause window (OnHold, hidden until expiry) and the list with its
// paging, nextUrl and filters (docs/wire-contract.md#order-list).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/

function numberOf(id: string): number {
  assert.match(id, /^ord_\d+$/)
  return Number(id.slice(4))
}

function failuresOf(response: LightMyRequestResponse): Record<string, { code: string; providedValue?: unknown }[]> {
  assert.equal(response.statusCode, 400, response.body)
  const body = json(response)
  assert.equal(body.outcome, 'ValidationFailed')
  return body.failures
}

for (const kind of databaseKinds) {
  describe(`read orders (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    const createOrder = async (
      account: TestAccount,
      overrides: Record<string, unknown> = {},
    ): Promise<ReturnType<typeof json>> => {
      const response = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: sampleOrder(overrides) },
        account.sandboxKey,
      )
      assert.equal(response.statusCode, 200, response.body)
      return json(response)
    }
    const list = async (account: TestAccount, query = '', headers: Record<string, string> = {}) => {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders${query}`, headers }, account.sandboxKey)
      return response
    }
    const listIds = async (account: TestAccount, query = ''): Promise<string[]> => {
      const response = await list(account, query)
      assert.equal(response.statusCode, 200, response.body)
      return json(response).orders.map((order: { id: string }) => order.id)
    }

    describe('get one order', () => {
      test("another account's order is EntityNotFound", async () => {
        const owner = await t.createAccount()
        const stranger = await t.createAccount()
        const { order } = await createOrder(owner)
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}` }, stranger.sandboxKey)
        assert.equal(response.statusCode, 404)
        const body = json(response)
        assert.equal(body.outcome, 'EntityNotFound')
        assert.equal(body.statusCode, 404)
        assert.deepEqual(Object.keys(body), ['outcome', 'statusText', 'statusCode', 'data', 'traceParent'])
        assert.equal(body.traceParent, response.headers.traceparent)
      })

      test('a Sandbox order is not found on the Live address of the same account', async () => {
        const account = await t.createAccount()
        const { order } = await createOrder(account)
        const live = await t.live({ method: 'GET', url: `/v4.0/orders/${order.id}` }, account.liveKey)
        assert.equal(live.statusCode, 404)
        assert.equal(json(live).outcome, 'EntityNotFound')
        const sandbox = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}` }, account.sandboxKey)
        assert.equal(sandbox.statusCode, 200)
        const liveList = await t.live({ method: 'GET', url: '/v4.0/orders' }, account.liveKey)
        assert.deepEqual(json(liveList).orders, [])
      })

      test('an order ID of the wrong format is ValidationFailed at orderId', async () => {
        for (const id of ['ord_abc', 'abc', 'ori_1', 'ord_', 'ord_-1']) {
          const failures = failuresOf(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` }))
          assert.deepEqual(Object.keys(failures), ['orderId'], id)
          assert.equal(failures.orderId?.[0]?.providedValue, id)
        }
      })

      test('an order that does not exist is EntityNotFound', async () => {
        const response = await t.sandbox({ method: 'GET', url: '/v4.0/orders/ord_999999' })
        assert.equal(response.statusCode, 404)
        assert.equal(json(response).outcome, 'EntityNotFound')
      })

      test('GET of an order in another letter case of the path still finds it', async () => {
        const account = await t.createAccount()
        const { order } = await createOrder(account)
        const response = await t.sandbox({ method: 'GET', url: `/V4.0/ORDERS/${order.id}/` }, account.sandboxKey)
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(json(response).order.id, order.id)
      })
    })

    describe('pause window', () => {
      test('an order created in the pause window is OnHold, hidden until the window expires', async () => {
        const account = await t.createAccount({ pauseWindowSeconds: 1800 })
        const createdAt = t.clock.now()
        const payload = sampleOrder({ idempotencyKey: 'held-key' })
        const created = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey)
        assert.equal(created.statusCode, 200, created.body)
        const body = json(created)
        assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
        assert.deepEqual(Object.keys(body.order), ['id'])
        const id = body.order.id as string
        assert.match(id, /^ord_\d+$/)
        assert.match(body.traceParent, TRACEPARENT)
        assert.deepEqual(body, { outcome: 'OnHold', order: { id }, traceParent: created.headers.traceparent })

        const hidden = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` }, account.sandboxKey)
        assert.equal(hidden.statusCode, 404)
        const hiddenBody = json(hidden)
        assert.equal(hiddenBody.outcome, 'EntityNotFound')
        assert.match(hiddenBody.statusText, /hold/i)
        const until = new Date(createdAt.getTime() + 1800 * 1000).toISOString()
        assert.deepEqual(hiddenBody.data, { onHoldUntil: until })

        assert.deepEqual(await listIds(account), [])

        const repeat = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey)
        assert.equal(repeat.statusCode, 200)
        assert.deepEqual(json(repeat), {
          outcome: 'AlreadyExists',
          order: { id },
          traceParent: repeat.headers.traceparent,
        })

        t.clock.advanceSeconds(1799)
        assert.equal(
          (await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` }, account.sandboxKey)).statusCode,
          404,
        )

        t.clock.advanceSeconds(2)
        const visible = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${id}` }, account.sandboxKey)
        assert.equal(visible.statusCode, 200, visible.body)
        const order = json(visible).order
        assert.equal(json(visible).outcome, 'Ok')
        assert.equal(order.id, id)
        assert.equal(order.status.stage, 'InProgress')
        assert.equal(order.idempotencyKey, 'held-key')
        assert.deepEqual(await listIds(account), [id])

        const repeatAfter = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload }, account.sandboxKey)
        assert.equal(json(repeatAfter).outcome, 'AlreadyExists')
        assert.equal(json(repeatAfter).order.id, id)
        assert.equal(json(repeatAfter).order.status.stage, 'InProgress')
      })

      test('an app started with a pause window holds the default account orders', async () => {
        const held = await startTestApp({ kind, pauseWindowSeconds: 1800 })
        try {
          const created = await held.sandbox({ method: 'POST', url: '/v4.0/orders', payload: sampleOrder() })
          assert.equal(json(created).outcome, 'OnHold')
          const listed = await held.sandbox({ method: 'GET', url: '/v4.0/orders' })
          assert.deepEqual(json(listed).orders, [])
          held.clock.advanceSeconds(1801)
          const after = await held.sandbox({ method: 'GET', url: '/v4.0/orders' })
          assert.deepEqual(
            json(after).orders.map((order: { id: string }) => order.id),
            [json(created).order.id],
          )
        } finally {
          await held.close()
        }
      })
    })

    describe('list', () => {
      test('the list answer has the keys outcome, orders, hasMore, nextUrl, traceParent in order', async () => {
        const account = await t.createAccount()
        await createOrder(account)
        const response = await list(account)
        assert.equal(response.statusCode, 200)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'orders', 'hasMore', 'nextUrl', 'traceParent'])
        assert.equal(body.outcome, 'Ok')
        assert.equal(body.hasMore, false)
        assert.equal(body.nextUrl, null)
        assert.equal(body.traceParent, response.headers.traceparent)
      })

      test('orders are listed newest first and only the caller account', async () => {
        const account = await t.createAccount()
        const other = await t.createAccount()
        const ids: string[] = []
        for (let index = 0; index < 3; index++) {
          ids.push((await createOrder(account)).order.id)
          await createOrder(other)
        }
        const listed = await listIds(account)
        assert.deepEqual(listed, [...ids].reverse())
        const numbers = listed.map(numberOf)
        assert.deepEqual(
          numbers,
          [...numbers].sort((a, b) => b - a),
        )
      })

      test('the default page holds 10 orders', async () => {
        const account = await t.createAccount()
        for (let index = 0; index < 12; index++) await createOrder(account)
        const response = await list(account)
        const body = json(response)
        assert.equal(body.orders.length, 10)
        assert.equal(body.hasMore, true)
        assert.equal(typeof body.nextUrl, 'string')
        const next = new URL(body.nextUrl)
        assert.equal(next.searchParams.get('skip'), '10')
        assert.equal(next.searchParams.get('top'), '10')
      })

      test('top and skip page through every order; nextUrl is absolute (on the public URL) and null on the last page', async () => {
        const account = await t.createAccount()
        const created: string[] = []
        for (let index = 0; index < 7; index++) created.push((await createOrder(account)).order.id)
        const newestFirst = [...created].reverse()

        const seen: string[] = []
        let url: string | null = '/v4.0/orders?top=3'
        let pages = 0
        while (url !== null) {
          const response = await t.sandbox(
            { method: 'GET', url, headers: { host: 'api.printroute.test' } },
            account.sandboxKey,
          )
          assert.equal(response.statusCode, 200, response.body)
          const body = json(response)
          pages++
          seen.push(...body.orders.map((order: { id: string }) => order.id))
          if (body.hasMore) {
            const next = new URL(body.nextUrl)
            // The Sandbox's public URL, not the Host the request named.
            assert.equal(next.origin, t.app.publicUrl('sandbox'))
            assert.equal(next.pathname.toLowerCase(), '/v4.0/orders')
            assert.equal(next.searchParams.get('top'), '3')
            assert.equal(next.searchParams.get('skip'), String(pages * 3))
            url = `${next.pathname}${next.search}`
          } else {
            assert.equal(body.nextUrl, null)
            url = null
          }
        }
        assert.equal(pages, 3)
        assert.deepEqual(seen, newestFirst)

        const middle = await listIds(account, '?top=2&skip=3')
        assert.deepEqual(middle, newestFirst.slice(3, 5))
        const beyond = json(await list(account, '?skip=50'))
        assert.deepEqual(beyond.orders, [])
        assert.equal(beyond.hasMore, false)
        assert.equal(beyond.nextUrl, null)
      })

      test('exactly top orders left means no further page', async () => {
        const account = await t.createAccount()
        for (let index = 0; index < 4; index++) await createOrder(account)
        const body = json(await list(account, '?top=2&skip=2'))
        assert.equal(body.orders.length, 2)
        assert.equal(body.hasMore, false)
        assert.equal(body.nextUrl, null)
      })

      test('nextUrl keeps every filter', async () => {
        const account = await t.createAccount()
        for (let index = 0; index < 3; index++) await createOrder(account, { merchantReference: 'KEEP-A' })
        const query =
          '?top=1&status=inProgress&merchantReferences=KEEP-A,KEEP-B&createdFrom=2020-01-01T00:00:00Z&createdTo=2099-01-01T00:00:00Z'
        const response = await list(account, query, { host: 'shop.example.test:8443' })
        const body = json(response)
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(body.orders.length, 1)
        assert.equal(body.hasMore, true)
        const next = new URL(body.nextUrl)
        assert.equal(next.origin, t.app.publicUrl('sandbox'))
        assert.equal(next.searchParams.get('top'), '1')
        assert.equal(next.searchParams.get('skip'), '1')
        assert.equal(next.searchParams.get('status'), 'inProgress')
        assert.deepEqual(
          next.searchParams.getAll('merchantReferences').flatMap((value) => value.split(',')),
          ['KEEP-A', 'KEEP-B'],
        )
        assert.equal(next.searchParams.get('createdFrom'), '2020-01-01T00:00:00Z')
        assert.equal(next.searchParams.get('createdTo'), '2099-01-01T00:00:00Z')
        const second = json(
          await t.sandbox({ method: 'GET', url: `${next.pathname}${next.search}` }, account.sandboxKey),
        )
        assert.equal(second.orders.length, 1)
        assert.notEqual(second.orders[0].id, body.orders[0].id)
      })

      test('nextUrl keeps repeated orderIds parameters', async () => {
        const account = await t.createAccount()
        const ids: string[] = []
        for (let index = 0; index < 3; index++) ids.push((await createOrder(account)).order.id)
        const body = json(await list(account, `?top=1&orderIds=${ids[0]}&orderIds=${ids[2]}`))
        assert.equal(body.hasMore, true)
        const next = new URL(body.nextUrl)
        assert.deepEqual(
          next.searchParams
            .getAll('orderIds')
            .flatMap((value) => value.split(','))
            .sort(),
          [ids[0], ids[2]].sort(),
        )
        const second = json(
          await t.sandbox({ method: 'GET', url: `${next.pathname}${next.search}` }, account.sandboxKey),
        )
        assert.deepEqual(
          second.orders.map((order: { id: string }) => order.id),
          [ids[0]],
        )
        assert.equal(second.hasMore, false)
      })

      test('top=0, top=101 and skip=-1 are ValidationFailed naming the parameter', async () => {
        const account = await t.createAccount()
        const top0 = failuresOf(await list(account, '?top=0'))
        assert.deepEqual(Object.keys(top0), ['top'])
        assert.equal(top0.top?.[0]?.code, 'MustBeGreaterThanOrEqualTo')
        const top101 = failuresOf(await list(account, '?top=101'))
        assert.deepEqual(Object.keys(top101), ['top'])
        assert.equal(top101.top?.[0]?.code, 'MustBeLessThanOrEqualTo')
        const skip = failuresOf(await list(account, '?skip=-1'))
        assert.deepEqual(Object.keys(skip), ['skip'])
        assert.equal(skip.skip?.[0]?.code, 'MustBeGreaterThanOrEqualTo')
        const text = failuresOf(await list(account, '?top=ten'))
        assert.deepEqual(Object.keys(text), ['top'])
        assert.equal((await list(account, '?top=100')).statusCode, 200)
        assert.equal((await list(account, '?top=1')).statusCode, 200)
      })

      test('createdFrom and createdTo bound the creation time, both ends included', async () => {
        const account = await t.createAccount()
        const first = (await createOrder(account)).order
        t.clock.advanceSeconds(3600)
        const second = (await createOrder(account)).order
        t.clock.advanceSeconds(3600)
        const third = (await createOrder(account)).order
        t.clock.advanceSeconds(60)

        assert.deepEqual(await listIds(account, `?createdFrom=${second.created}`), [third.id, second.id])
        assert.deepEqual(await listIds(account, `?createdTo=${second.created}`), [second.id, first.id])
        assert.deepEqual(await listIds(account, `?createdFrom=${second.created}&createdTo=${second.created}`), [
          second.id,
        ])
        const afterFirst = new Date(Date.parse(first.created) + 1000).toISOString()
        const beforeThird = new Date(Date.parse(third.created) - 1000).toISOString()
        assert.deepEqual(await listIds(account, `?createdFrom=${afterFirst}&createdTo=${beforeThird}`), [second.id])
        assert.deepEqual(await listIds(account, `?createdfrom=${afterFirst}&CREATEDTO=${beforeThird}`), [second.id])
      })

      test('createdTo before createdFrom and unparsable dates are ValidationFailed', async () => {
        const account = await t.createAccount()
        const reversed = failuresOf(
          await list(account, '?createdFrom=2026-03-02T00:00:00Z&createdTo=2026-03-01T00:00:00Z'),
        )
        assert.deepEqual(Object.keys(reversed), ['createdTo'])
        const bad = failuresOf(await list(account, '?createdFrom=yesterday'))
        assert.deepEqual(Object.keys(bad), ['createdFrom'])
      })

      test('status filters: inProgress matches new orders, the others match none of them', async () => {
        const account = await t.createAccount()
        const ids = [(await createOrder(account)).order.id, (await createOrder(account)).order.id].reverse()
        assert.deepEqual(await listIds(account, '?status=inProgress'), ids)
        assert.deepEqual(await listIds(account, '?STATUS=INPROGRESS'), ids)
        assert.deepEqual(await listIds(account, '?status=InProgress'), ids)
        for (const status of ['complete', 'cancelled', 'draft', 'awaitingPayment', 'DRAFT', 'AwaitingPayment']) {
          const response = await list(account, `?status=${status}`)
          assert.equal(response.statusCode, 200, `${status}: ${response.body}`)
          assert.deepEqual(json(response).orders, [], status)
          assert.equal(json(response).hasMore, false)
        }
        const bogus = failuresOf(await list(account, '?status=shipped'))
        assert.deepEqual(Object.keys(bogus), ['status'])
        assert.equal(bogus.status?.[0]?.code, 'InvalidValue')
      })

      test('orderIds filter, repeated or comma-separated', async () => {
        const account = await t.createAccount()
        const stranger = await t.createAccount()
        const ids: string[] = []
        for (let index = 0; index < 4; index++) ids.push((await createOrder(account)).order.id)
        const foreign = (await createOrder(stranger)).order.id
        const [a, , c, d] = ids as [string, string, string, string]
        assert.deepEqual(await listIds(account, `?orderIds=${a}&orderIds=${c}`), [c, a])
        assert.deepEqual(await listIds(account, `?orderIds=${a},${c}`), [c, a])
        assert.deepEqual(await listIds(account, `?orderIds=${a},${c}&orderIds=${d}`), [d, c, a])
        assert.deepEqual(await listIds(account, `?ORDERIDS=${d}`), [d])
        assert.deepEqual(await listIds(account, `?orderIds=${foreign}`), [])
        const bad = failuresOf(await list(account, '?orderIds=ord_abc'))
        assert.equal(Object.values(bad).flat()[0]?.code, 'InvalidFormat')
        assert.match(Object.keys(bad)[0] ?? '', /^orderIds/)
      })

      test('merchantReferences filter, repeated or comma-separated', async () => {
        const account = await t.createAccount()
        const a = (await createOrder(account, { merchantReference: 'REF-A' })).order.id
        const b = (await createOrder(account, { merchantReference: 'REF-B' })).order.id
        const c = (await createOrder(account, { merchantReference: 'REF-C' })).order.id
        await createOrder(account, { merchantReference: null })
        assert.deepEqual(await listIds(account, '?merchantReferences=REF-A&merchantReferences=REF-C'), [c, a])
        assert.deepEqual(await listIds(account, '?merchantReferences=REF-A,REF-C'), [c, a])
        assert.deepEqual(await listIds(account, '?merchantreferences=REF-B'), [b])
        assert.deepEqual(await listIds(account, '?merchantReferences=REF-Z'), [])
      })

      test('filters combine', async () => {
        const account = await t.createAccount()
        const a = (await createOrder(account, { merchantReference: 'MIX-A' })).order.id
        await createOrder(account, { merchantReference: 'MIX-B' })
        assert.deepEqual(await listIds(account, `?merchantReferences=MIX-A,MIX-B&orderIds=${a}&status=inProgress`), [a])
        assert.deepEqual(await listIds(account, `?merchantReferences=MIX-B&orderIds=${a}`), [])
      })

      test('an unknown query parameter is ValidationFailed UnknownField', async () => {
        const account = await t.createAccount()
        const failures = failuresOf(await list(account, '?colour=red'))
        assert.deepEqual(failures, { colour: [{ code: 'UnknownField', providedValue: 'red' }] })
      })

      test('a query parameter named like an Object.prototype member is UnknownField, not a 500', async () => {
        const account = await t.createAccount()
        for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
          const response = await list(account, `?${name}=1`)
          assert.equal(response.statusCode, 400, `${name}: ${response.body}`)
          assert.deepEqual(Object.keys(json(response).failures), [name])
          assert.equal(json(response).failures[name][0].code, 'UnknownField')
        }
      })

      test('a query parameter named __proto__ is UnknownField named __proto__', async () => {
        const account = await t.createAccount()
        const response = await list(account, '?__proto__=1')
        const failures = failuresOf(response)
        assert.deepEqual(Object.keys(failures), ['__proto__'])
        assert.equal(Object.getOwnPropertyDescriptor(failures, '__proto__')?.value?.[0]?.code, 'UnknownField')
      })

      test('a huge skip answers an empty page or ValidationFailed at skip, never 500', async () => {
        const account = await t.createAccount()
        await createOrder(account)
        for (const skip of ['10000000000', '99999999999999999999']) {
          const response = await list(account, `?skip=${skip}`)
          assert.notEqual(response.statusCode, 500, `skip=${skip}: ${response.body}`)
          if (response.statusCode === 200) {
            assert.deepEqual(json(response).orders, [])
            assert.equal(json(response).hasMore, false)
          } else {
            assert.deepEqual(Object.keys(failuresOf(response)), ['skip'])
          }
        }
      })

      test('a leap-second date-time filter is refused as ValidationFailed or honoured, never 500', async () => {
        const account = await t.createAccount()
        await createOrder(account)
        for (const [name, value] of [
          ['createdFrom', '2026-03-01T23:59:60Z'],
          ['createdTo', '2016-12-31T23:59:60Z'],
        ] as const) {
          const response = await list(account, `?${name}=${value}`)
          assert.notEqual(response.statusCode, 500, `${name}=${value}: ${response.body}`)
          if (response.statusCode !== 200) assert.deepEqual(Object.keys(failuresOf(response)), [name])
        }
      })

      test('date-time filters at the ends of the calendar never answer 500', async () => {
        const account = await t.createAccount()
        const { order } = await createOrder(account)
        for (const query of [
          '?createdFrom=0000-01-01T00:00:00Z',
          '?createdFrom=0001-01-01T00:00:00Z',
          '?createdTo=9999-12-31T23:59:59Z',
        ]) {
          const response = await list(account, query)
          assert.notEqual(response.statusCode, 500, `${query}: ${response.body}`)
          if (response.statusCode === 200) {
            assert.deepEqual(
              json(response).orders.map((listed: { id: string }) => listed.id),
              [order.id],
              query,
            )
          } else {
            assert.equal(json(response).outcome, 'ValidationFailed', query)
          }
        }
      })
    })
  })
}
