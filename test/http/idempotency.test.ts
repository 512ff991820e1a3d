// Idempotent POSTs (docs/api.md#idempotent-requests) on both databases: a retry with the same Idempotency-Key and
// request gets the stored answer with `Idempotent-Replayed: true` (a quote, an action, a new API key, a test
// callback), another request with the key gets 422, a request still in flight 409; an abandoned claim is taken over
// after 120 s; keys last 24 h; 255 characters at most; create-order shares the key with its idempotencyKey field.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { idempotentRequestHash, idempotentRequestTarget } from '../../src/services/idempotency.service.ts'
import { type CallbackReceiver, startCallbackReceiver } from '../support/callback-receiver.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const QUOTE = {
  shippingMethod: 'Standard',
  destinationCountryCode: 'GB',
  items: [{ sku: 'GLOBAL-CAN-10x10', copies: 2, attributes: { wrap: 'ImageWrap' }, assets: [{}] }],
}

function assertReplayOf(replay: LightMyRequestResponse, first: LightMyRequestResponse): void {
  assert.equal(replay.statusCode, first.statusCode, replay.body)
  assert.equal(replay.body, first.body)
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.match(String(replay.headers['content-type']), /^application\/json/)
}

function assertError(response: LightMyRequestResponse, status: number, outcome: string): Record<string, any> {
  assert.equal(response.statusCode, status, response.body)
  const body = json(response)
  assert.equal(body.outcome, outcome)
  assert.equal(response.headers['idempotent-replayed'], undefined)
  return body
}

for (const kind of databaseKinds) {
  describe(`idempotent POSTs (${kind})`, () => {
    let t: TestApp
    let receiver: CallbackReceiver

    before(async () => {
      t = await startTestApp({ kind, maxConnections: kind === 'postgres' ? 12 : undefined })
      receiver = await startCallbackReceiver()
    })
    after(async () => {
      await receiver.close()
      await t.close()
    })

    const quote = (key: string, idempotencyKey: string, payload: Record<string, unknown> = QUOTE) =>
      t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload, headers: { 'idempotency-key': idempotencyKey } }, key)

    test('a quote: replayed with the same key and body, 422 with another body, its own per account and environment', async () => {
      const account = await t.createAccount()
      const first = await quote(account.sandboxKey, 'quote-1')
      assert.equal(first.statusCode, 200, first.body)
      assert.equal(first.headers['idempotent-replayed'], undefined)
      t.clock.advanceSeconds(60)
      assertReplayOf(await quote(account.sandboxKey, 'quote-1'), first)
      // The same route however its path is spelt (routes match case-insensitively, with or without a final slash).
      assertReplayOf(
        await t.sandbox(
          { method: 'POST', url: '/v4.0/Quotes/', payload: QUOTE, headers: { 'idempotency-key': 'quote-1' } },
          account.sandboxKey,
        ),
        first,
      )

      const other = await quote(account.sandboxKey, 'quote-1', { ...QUOTE, destinationCountryCode: 'US' })
      const body = assertError(other, 422, 'IdempotencyKeyReused')
      assert.equal(body.data.idempotencyKey, 'quote-1')
      // The stored answer is untouched by the refused request.
      assertReplayOf(await quote(account.sandboxKey, 'quote-1'), first)

      // Another account, and the other environment, have keys of their own.
      const stranger = await t.createAccount()
      const theirs = await quote(stranger.sandboxKey, 'quote-1', { ...QUOTE, destinationCountryCode: 'US' })
      assert.equal(theirs.statusCode, 200, theirs.body)
      assert.equal(theirs.headers['idempotent-replayed'], undefined)
      const live = await t.live(
        { method: 'POST', url: '/v4.0/quotes', payload: QUOTE, headers: { 'idempotency-key': 'quote-1' } },
        account.liveKey,
      )
      assert.equal(live.statusCode, 200, live.body)
      assert.equal(live.headers['idempotent-replayed'], undefined)
      assert.notEqual(json(live).quotes[0].id, json(first).quotes[0].id)
    })

    test('an answer refusing the request (400) is replayed too; without the header nothing is stored', async () => {
      const account = await t.createAccount()
      const bad = { ...QUOTE, destinationCountryCode: 'XX' }
      const first = await quote(account.sandboxKey, 'bad-quote', bad)
      assert.equal(first.statusCode, 400, first.body)
      assertReplayOf(await quote(account.sandboxKey, 'bad-quote', bad), first)
      const plain = () => t.sandbox({ method: 'POST', url: '/v4.0/quotes', payload: QUOTE }, account.sandboxKey)
      const [a, b] = [await plain(), await plain()]
      assert.equal(b.headers['idempotent-replayed'], undefined)
      assert.notEqual(json(a).quotes[0].id, json(b).quotes[0].id)
    })

    test('an action: the retry answers what the first cancel answered, not what a second cancel would', async () => {
      const account = await t.createAccount()
      const created = await t.sandbox(
        { method: 'POST', url: '/v4.0/orders', payload: sampleOrder() },
        account.sandboxKey,
      )
      assert.equal(created.statusCode, 200, created.body)
      const url = `/v4.0/orders/${json(created).order.id}/actions/cancel`
      const cancel = (headers: Record<string, string>) =>
        t.sandbox({ method: 'POST', url, headers }, account.sandboxKey)
      const first = await cancel({ 'idempotency-key': 'cancel-1' })
      assert.equal(first.statusCode, 200, first.body)
      const again = await cancel({})
      assert.notEqual(again.body, first.body, 'a fresh cancel of a cancelled order answers differently')
      assertReplayOf(await cancel({ 'idempotency-key': 'cancel-1' }), first)
      assertError(
        await t.sandbox(
          {
            method: 'POST',
            url: `${url.replace('cancel', 'updateShippingMethod')}`,
            headers: { 'idempotency-key': 'cancel-1' },
          },
          account.sandboxKey,
        ),
        422,
        'IdempotencyKeyReused',
      )
    })

    test('a new API key: the retry gets the same key, and only one is made', async () => {
      const account = await t.createAccount()
      const issue = () =>
        t.sandbox(
          { method: 'POST', url: '/v4.0/account/keys', headers: { 'idempotency-key': 'new-key' } },
          account.sandboxKey,
        )
      const first = await issue()
      assert.equal(first.statusCode, 200, first.body)
      assertReplayOf(await issue(), first)
      const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' }, account.sandboxKey)).keys
      assert.equal(listed.filter((key: any) => key.environment === 'sandbox').length, 2, 'the first key and one new')
      // The stored answer holds the new key's secret: the table keeps neither it nor the Idempotency-Key readable.
      const newKey = json(first).key.key as string
      assert.match(newKey, /^pr_sandbox_/)
      const stored = await t.database.db.query<{ row: string }>(
        'SELECT row_to_json(r)::text AS row FROM idempotent_requests r',
      )
      assert.ok(stored.length > 0)
      for (const { row } of stored) {
        assert.ok(!row.includes(newKey.slice('pr_sandbox_'.length)), 'no new key in the table')
        assert.ok(!row.includes('"new-key"'), 'no Idempotency-Key in the table')
      }
    })

    test("another API key of the account never gets a key's answer: 422 naming the reason, audited; the key and its sessions still get it", async () => {
      const account = await t.createAccount()
      const unscoped = account.sandboxKey
      const managerAnswer = await t.sandbox(
        { method: 'POST', url: '/v4.0/account/keys', payload: { scopes: ['keys:manage'] } },
        unscoped,
      )
      assert.equal(managerAnswer.statusCode, 200, managerAnswer.body)
      const manager = json(managerAnswer).key as { key: string; prefix: string }
      const issue = (key: string) =>
        t.sandbox({ method: 'POST', url: '/v4.0/account/keys', headers: { 'idempotency-key': 'all-powerful' } }, key)
      const first = await issue(unscoped)
      assert.equal(first.statusCode, 200, first.body)
      const secret = json(first).key.key as string
      // The same scopes are not the same key: the manager may not issue an unscoped key (403) nor replay one.
      const direct = await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' }, manager.key)
      assertError(direct, 403, 'Forbidden')
      const stolen = await issue(manager.key)
      const refused = assertError(stolen, 422, 'IdempotencyKeyReused')
      assert.deepEqual(refused.data, { idempotencyKey: 'all-powerful', reason: 'AnotherApiKey' })
      assert.match(refused.statusText, /another API key/)
      assert.ok(!stolen.body.includes(secret), 'the stored key never reaches another key')
      // Nothing was made: the first key, the manager and the one key issued with the Idempotency-Key.
      const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' }, unscoped)).keys
      assert.equal(listed.filter((key: any) => key.environment === 'sandbox').length, 3)
      // The key that made the request still gets its answer, and so does a dashboard session made from it.
      assertReplayOf(await issue(unscoped), first)
      const signIn = await t.app.sandbox.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ apiKey: unscoped, next: '/dashboard/orders' }).toString(),
      })
      const cookie = signIn.cookies.find((candidate) => candidate.name === 'printroute_sandbox_session')
      assert.ok(cookie)
      const session = `${cookie.name}=${cookie.value}`
      const page = await t.app.sandbox.inject({ method: 'GET', url: '/dashboard/orders', headers: { cookie: session } })
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1]
      assert.ok(csrf)
      const viaSession = await t.app.sandbox.inject({
        method: 'POST',
        url: '/v4.0/account/keys',
        headers: { cookie: session, 'x-csrf-token': csrf, 'idempotency-key': 'all-powerful' },
      })
      assertReplayOf(viaSession, first)

      // The refusal is a security event in the audit trail: who asked, for what, whose key; never the secrets.
      const audit = await t.sandbox(
        { method: 'GET', url: '/v4.0/account/audit?action=idempotencyKey.refused' },
        unscoped,
      )
      assert.equal(audit.statusCode, 200, audit.body)
      const entries = json(audit).entries
      assert.equal(entries.length, 1, audit.body)
      const [entry] = entries
      assert.equal(entry.actor.kind, 'key')
      assert.equal(entry.actor.description, `key ${manager.prefix} of ${account.id}`)
      assert.equal(entry.environment, 'sandbox')
      assert.match(entry.target, /^pr_sandbox_/)
      assert.deepEqual(entry.after, {
        request: 'POST /v4.0/account/keys',
        reason: 'AnotherApiKey',
        heldBy: entry.target,
        answered: true,
      })
      assert.ok(unscoped.startsWith(entry.target), 'the entry names the key holding the Idempotency-Key')
      assert.ok(!audit.body.includes(secret) && !audit.body.includes('all-powerful'))
    })

    test('another API key of the account is refused a key held in flight too, and never takes it over', async () => {
      const account = await t.createAccount()
      const other = json(await t.sandbox({ method: 'POST', url: '/v4.0/account/keys' }, account.sandboxKey)).key
      const caller = await t.app.services.accounts.identify(account.sandboxKey)
      assert.ok(caller)
      const of = { accountId: caller.accountId, environment: 'sandbox' as const, key: 'held' }
      const claim = await t.app.services.idempotency.claim(
        of,
        idempotentRequestHash('POST', idempotentRequestTarget('/v4.0/quotes'), QUOTE),
        {
          actor: { kind: 'key', accountId: caller.accountId, keyPrefix: caller.keyPrefix },
          request: 'POST /v4.0/quotes',
        },
      )
      assert.equal(claim.kind, 'claimed')
      const refused = assertError(await quote(other.key, 'held'), 422, 'IdempotencyKeyReused')
      assert.equal(refused.data.reason, 'AnotherApiKey')
      assertError(await quote(account.sandboxKey, 'held'), 409, 'IdempotencyKeyInUse')
      // Abandoned, the claim is its own key's to take over; another key is still refused until it expires.
      t.clock.advanceSeconds(120)
      assertError(await quote(other.key, 'held'), 422, 'IdempotencyKeyReused')
      const taken = await quote(account.sandboxKey, 'held')
      assert.equal(taken.statusCode, 200, taken.body)
      t.clock.advanceSeconds(24 * 60 * 60)
      const free = await quote(other.key, 'held')
      assert.equal(free.statusCode, 200, free.body)
      assert.equal(free.headers['idempotent-replayed'], undefined)
      const entries = json(
        await t.sandbox(
          { method: 'GET', url: '/v4.0/account/audit?action=idempotencyKey.refused' },
          account.sandboxKey,
        ),
      ).entries
      assert.deepEqual(
        entries.map((entry: any) => entry.after.answered),
        [false, false],
      )
    })

    test('a key claimed before keys were recorded (no owner) is replayed to no key until it expires', async () => {
      const account = await t.createAccount()
      const first = await quote(account.sandboxKey, 'legacy')
      assert.equal(first.statusCode, 200, first.body)
      const caller = await t.app.services.accounts.identify(account.sandboxKey)
      assert.ok(caller)
      await t.database.db.query('UPDATE idempotent_requests SET api_key_prefix = NULL WHERE account_id = $1', [
        caller.accountId,
      ])
      const refused = assertError(await quote(account.sandboxKey, 'legacy'), 422, 'IdempotencyKeyReused')
      assert.equal(refused.data.reason, 'AnotherApiKey')
      t.clock.advanceSeconds(24 * 60 * 60)
      const fresh = await quote(account.sandboxKey, 'legacy')
      assert.equal(fresh.statusCode, 200, fresh.body)
      assert.equal(fresh.headers['idempotent-replayed'], undefined)
    })

    test('a test callback: sent once, the retry replays its answer', async () => {
      const account = await t.createAccount()
      const url = receiver.url(`/idempotent-${account.id}`)
      const send = () =>
        t.sandbox(
          {
            method: 'POST',
            url: '/v4.0/callbacks/test',
            payload: { url },
            headers: { 'content-type': 'application/json', 'idempotency-key': 'ping' },
          },
          account.sandboxKey,
        )
      const first = await send()
      assert.equal(first.statusCode, 200, first.body)
      assertReplayOf(await send(), first)
      assert.equal(receiver.received.filter((one) => one.url === `/idempotent-${account.id}`).length, 1)
    })

    test('simultaneous requests with one key make one API key: the others are replayed or told 409', async () => {
      const account = await t.createAccount()
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.sandbox(
            { method: 'POST', url: '/v4.0/account/keys', headers: { 'idempotency-key': 'burst' } },
            account.sandboxKey,
          ),
        ),
      )
      const made = answers.filter((one) => one.statusCode === 200 && one.headers['idempotent-replayed'] === undefined)
      assert.equal(made.length, 1, answers.map((one) => `${one.statusCode} ${one.body}`).join('\n'))
      for (const other of answers) {
        if (other === made[0]) continue
        if (other.statusCode === 409) assertError(other, 409, 'IdempotencyKeyInUse')
        else assertReplayOf(other, made[0] as LightMyRequestResponse)
      }
      const listed = json(await t.sandbox({ method: 'GET', url: '/v4.0/account/keys' }, account.sandboxKey)).keys
      assert.equal(listed.filter((key: any) => key.environment === 'sandbox').length, 2)
    })

    test('in flight: 409 while the claim holds; an abandoned claim is taken over after 120 s', async () => {
      const account = await t.createAccount()
      const caller = await t.app.services.accounts.identify(account.sandboxKey)
      assert.ok(caller)
      const of = { accountId: caller.accountId, environment: 'sandbox' as const, key: 'crashed' }
      // A request that claimed the key and never answered (its process died).
      const claim = await t.app.services.idempotency.claim(
        of,
        idempotentRequestHash('POST', idempotentRequestTarget('/v4.0/quotes'), QUOTE),
        {
          actor: { kind: 'key', accountId: caller.accountId, keyPrefix: caller.keyPrefix },
          request: 'POST /v4.0/quotes',
        },
      )
      assert.equal(claim.kind, 'claimed')
      const busy = assertError(await quote(account.sandboxKey, 'crashed'), 409, 'IdempotencyKeyInUse')
      assert.equal(busy.data.idempotencyKey, 'crashed')
      // Another body with a key in flight is still a different request.
      assertError(
        await quote(account.sandboxKey, 'crashed', { ...QUOTE, destinationCountryCode: 'US' }),
        422,
        'IdempotencyKeyReused',
      )
      t.clock.advanceSeconds(119)
      assertError(await quote(account.sandboxKey, 'crashed'), 409, 'IdempotencyKeyInUse')
      t.clock.advanceSeconds(1)
      const taken = await quote(account.sandboxKey, 'crashed')
      assert.equal(taken.statusCode, 200, taken.body)
      assert.equal(taken.headers['idempotent-replayed'], undefined)
      // The dead request's late answer does not replace the answer of the one that took over.
      await t.app.services.idempotency.complete(of, (claim as { claimToken: string }).claimToken, {
        statusCode: 500,
        contentType: 'application/json',
        body: '{}',
      })
      assertReplayOf(await quote(account.sandboxKey, 'crashed'), taken)
    })

    test('keys last 24 hours, then the key is free and the expiry job deletes it', async () => {
      const account = await t.createAccount()
      const first = await quote(account.sandboxKey, 'day-old')
      assert.equal(first.statusCode, 200, first.body)
      t.clock.advanceSeconds(24 * 3600 - 1)
      // The job deletes only keys past their 24 hours (earlier tests' keys are), not this one.
      await t.app.services.idempotency.expireIdempotentRequests()
      assertReplayOf(await quote(account.sandboxKey, 'day-old'), first)
      t.clock.advanceSeconds(1)
      const other = await quote(account.sandboxKey, 'day-old', { ...QUOTE, destinationCountryCode: 'US' })
      assert.equal(other.statusCode, 200, other.body)
      assert.equal(other.headers['idempotent-replayed'], undefined)
      const old = await quote(account.sandboxKey, 'day-old-2')
      assert.equal(old.statusCode, 200, old.body)
      t.clock.advanceSeconds(24 * 3600)
      assert.ok((await t.app.services.idempotency.expireIdempotentRequests()) >= 1)
      const fresh = await quote(account.sandboxKey, 'day-old-2')
      assert.equal(fresh.headers['idempotent-replayed'], undefined)
      assert.notEqual(json(fresh).quotes[0].id, json(old).quotes[0].id)
    })

    test('the key is 1 to 255 characters: longer or empty is refused naming the header', async () => {
      const account = await t.createAccount()
      const longest = 'k'.repeat(255)
      const first = await quote(account.sandboxKey, longest)
      assert.equal(first.statusCode, 200, first.body)
      assertReplayOf(await quote(account.sandboxKey, longest), first)
      const tooLong = assertError(await quote(account.sandboxKey, 'k'.repeat(256)), 400, 'ValidationFailed')
      assert.deepEqual(tooLong.failures['Idempotency-Key'], [
        { code: 'TooLong', providedValue: 256, comparisonValue: 255 },
      ])
      const empty = assertError(await quote(account.sandboxKey, ''), 400, 'ValidationFailed')
      assert.equal(empty.failures['Idempotency-Key'][0].code, 'TooShort')
    })

    test('create-order: the header and the idempotencyKey field are one key', async () => {
      const account = await t.createAccount()
      const create = (payload: Record<string, unknown>, headers: Record<string, string>) =>
        t.sandbox({ method: 'POST', url: '/v4.0/orders', payload, headers }, account.sandboxKey)
      const byHeader = await create(sampleOrder(), { 'idempotency-key': 'checkout-1' })
      assert.equal(json(byHeader).outcome, 'Created', byHeader.body)
      assert.equal(json(byHeader).order.idempotencyKey, 'checkout-1')
      const byField = await create(sampleOrder({ idempotencyKey: 'checkout-1' }), {})
      assert.equal(json(byField).outcome, 'AlreadyExists', byField.body)
      assert.equal(json(byField).order.id, json(byHeader).order.id)
      const both = await create(sampleOrder({ idempotencyKey: 'checkout-1' }), { 'idempotency-key': 'checkout-1' })
      assert.equal(json(both).outcome, 'AlreadyExists')
      const clash = assertError(
        await create(sampleOrder({ idempotencyKey: 'checkout-2' }), { 'idempotency-key': 'checkout-1' }),
        400,
        'ValidationFailed',
      )
      assert.equal(clash.failures['Idempotency-Key'][0].code, 'InvalidValue')
      const orders = json(await t.sandbox({ method: 'GET', url: '/v4.0/orders' }, account.sandboxKey)).orders
      assert.equal(orders.length, 1)
    })
  })
}
