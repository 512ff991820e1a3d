// GET /v4.0/orders?search=: an order by its id (ord_123 or 123) or by part of its merchant reference, in any
// letter case, with LIKE's wildcards taken literally, combined with the other filters and paged as the list is.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { json, sampleOrder, startTestApp, type TestAccount, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const REFERENCES = ['Shop-100%_a', 'shop-100xxa', 'ABC-7', 'abc\\def', null, 'under_score'] as const

for (const kind of databaseKinds) {
  describe(`orders search (${kind})`, () => {
    let t: TestApp
    let account: TestAccount
    /** Order id by merchant reference (null: the order without one). */
    const ids = new Map<string | null, string>()

    before(async () => {
      t = await startTestApp({ kind })
      account = await t.createAccount()
      const other = await t.createAccount()
      for (const reference of REFERENCES) {
        const response = await t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder({ merchantReference: reference }),
            headers: { 'content-type': 'application/json' },
          },
          account.sandboxKey,
        )
        assert.equal(response.statusCode, 200, response.body)
        ids.set(reference, json(response).order.id)
      }
      // Another account's order with a matching reference.
      await t.sandbox(
        {
          method: 'POST',
          url: '/v4.0/orders',
          payload: sampleOrder({ merchantReference: 'ABC-7' }),
          headers: { 'content-type': 'application/json' },
        },
        other.sandboxKey,
      )
    })
    after(() => t.close())

    async function search(query: string): Promise<Record<string, any>> {
      const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders?${query}` }, account.sandboxKey)
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`)
      return json(response)
    }
    const found = async (query: string) => (await search(query)).orders.map((order: any) => order.merchantReference)
    /** Newest first, as the list answers. */
    const newestFirst = (...references: (string | null)[]) =>
      REFERENCES.filter((reference) => references.includes(reference)).reverse()

    test('part of a merchant reference, in any letter case, newest first', async () => {
      assert.deepEqual(await found('search=abc'), newestFirst('ABC-7', 'abc\\def'))
      assert.deepEqual(await found('search=SHOP-100'), newestFirst('Shop-100%_a', 'shop-100xxa'))
      assert.deepEqual(await found('Search=%20%20abc-7%20'), ['ABC-7'], 'surrounding spaces ignored')
      assert.deepEqual(await found('search=nothing-like-it'), [])
      assert.equal((await found('search=%20')).length, REFERENCES.length, 'blank: no filter')
    })

    test('LIKE wildcards and the escape character match only themselves', async () => {
      assert.deepEqual(await found('search=100%25'), ['Shop-100%_a'])
      assert.deepEqual(await found('search=0%25_'), ['Shop-100%_a'])
      assert.deepEqual(await found('search=_'), newestFirst('Shop-100%_a', 'under_score'))
      assert.deepEqual(await found('search=%25'), ['Shop-100%_a'])
      assert.deepEqual(await found('search=%5C'), ['abc\\def'])
      assert.deepEqual(await found('search=c%5Cd'), ['abc\\def'])
    })

    test('an order id, with or without its prefix, finds that order exactly', async () => {
      const id = ids.get(null) as string
      const byId = await search(`search=${id}`)
      assert.deepEqual(
        byId.orders.map((order: any) => order.id),
        [id],
      )
      assert.deepEqual(
        (await search(`search=${id.toUpperCase()}`)).orders.map((order: any) => order.id),
        [id],
      )
      // The bare number is the id too, and still a reference text: here no reference contains it.
      const number = id.slice('ord_'.length)
      assert.ok(!REFERENCES.some((reference) => reference?.includes(number)))
      assert.deepEqual(
        (await search(`search=${number}`)).orders.map((order: any) => order.id),
        [id],
      )
      // An id only matches exactly: a longer number is another order.
      assert.deepEqual((await search(`search=${id}9999`)).orders, [])
    })

    test("combined with the other filters, paged with the search kept; another account's orders never match", async () => {
      const abc7 = ids.get('ABC-7') as string
      assert.deepEqual(await found(`search=abc&orderIds=${abc7}`), ['ABC-7'])
      assert.deepEqual(await found('search=abc&merchantReferences=abc%5Cdef'), ['abc\\def'])
      assert.deepEqual(await found('search=abc&status=complete'), [])
      assert.deepEqual(await found('search=abc&createdTo=2000-01-01T00:00:00Z'), [])
      const first = await search('search=SHOP&top=1')
      assert.deepEqual(
        first.orders.map((order: any) => order.merchantReference),
        ['shop-100xxa'],
      )
      assert.equal(first.hasMore, true)
      assert.equal(first.nextUrl, `${t.app.publicUrl('sandbox')}/v4.0/orders?search=SHOP&top=1&skip=1`)
      const second = await search('search=SHOP&top=1&skip=1')
      assert.deepEqual(
        second.orders.map((order: any) => order.merchantReference),
        ['Shop-100%_a'],
      )
      assert.equal(second.hasMore, false)
      assert.equal((await found('search=ABC-7')).length, 1, "the other account's ABC-7 is not listed")
    })

    test('a search over 200 characters or with a control character is ValidationFailed', async () => {
      for (const [query, code] of [
        [`search=${'a'.repeat(201)}`, 'TooLong'],
        ['search=a%0Ab', 'InvalidCharacter'],
      ] as const) {
        const response = await t.sandbox({ method: 'GET', url: `/v4.0/orders?${query}` }, account.sandboxKey)
        assert.equal(response.statusCode, 400, response.body)
        assert.equal(json(response).failures.search?.[0]?.code, code, response.body)
      }
    })
  })
}
