// The claims' SQL on every configured backend (migrations/0036_claims.sql): one open claim per item (the partial
// unique index, freed when the claim leaves Pending), a change naming a stale version refused, the caller's list
// filtered and paged newest first, the operator's queue paged by its cursor, and only unused, old evidence listed for
// the expiry.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AccountScope } from '../../src/domain/account-scope.ts'
import { parseId } from '../../src/domain/ids.ts'
import { listClaimQueue } from '../../src/repositories/claim-resolution.repository.ts'
import {
  changeClaimStatus,
  deleteUnusedEvidence,
  insertClaim,
  insertMerchantEvidence,
  listClaimsForCaller,
  listUnusedEvidence,
  nextClaimNumber,
  nextEvidenceNumber,
  openClaimsOfItems,
} from '../../src/repositories/claims.repository.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

for (const kind of databaseKinds) {
  describe(`claims repository (${kind})`, () => {
    let t: TestApp
    let scope: AccountScope
    let orderNumber: number

    before(async () => {
      t = await startTestApp({ kind })
      scope = { accountId: parseId('acc', t.account.id) as number, environment: 'sandbox' }
      const created = await t.sandbox({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder(),
        headers: { 'content-type': 'application/json' },
      })
      orderNumber = parseId('ord', json(created).order.id) as number
    })
    after(() => t.close())

    async function claim(itemNumber: number, createdAt: Date): Promise<number> {
      const db = t.database.db
      const id = await nextClaimNumber(db)
      await insertClaim(db, scope, {
        id,
        orderNumber,
        shipmentNumber: null,
        labCode: 'uk6',
        preferredResolution: null,
        createdAt,
        document: JSON.stringify({ id: `clm_${id}` }),
        items: [{ itemNumber, shipmentNumber: 1, category: 'Other', description: 'x' }],
        evidenceNumbers: [],
      })
      return id
    }

    test('one open claim per item until it leaves Pending; a stale version changes nothing', async () => {
      const first = await claim(900, new Date('2026-03-01T00:00:00Z'))
      await assert.rejects(claim(900, new Date('2026-03-01T00:00:01Z')), 'the partial unique index refuses a second')
      assert.deepEqual([...(await openClaimsOfItems(t.database.db, [900, 901]))], [[900, first]])
      const at = new Date('2026-03-02T00:00:00Z')
      const change = { id: first, status: 'Retracted' as const, document: '{}', at }
      assert.equal(await changeClaimStatus(t.database.db, { ...change, version: 2 }), false, 'version 2 was not read')
      assert.equal(await changeClaimStatus(t.database.db, { ...change, version: 1 }), true)
      assert.equal(await changeClaimStatus(t.database.db, { ...change, version: 1 }), false, 'now at version 2')
      assert.equal((await openClaimsOfItems(t.database.db, [900])).size, 0)
      await claim(900, new Date('2026-03-03T00:00:00Z'))
    })

    test("the caller's claims, filtered and paged newest first", async () => {
      const ids = [
        await claim(910, new Date('2026-04-01T00:00:00Z')),
        await claim(911, new Date('2026-04-02T00:00:00Z')),
        await claim(912, new Date('2026-04-03T00:00:00Z')),
      ]
      const query = {
        status: 'Pending' as const,
        orderNumber,
        createdFrom: new Date('2026-04-01T00:00:00Z'),
        createdTo: new Date('2026-04-03T00:00:00Z'),
        before: null,
        top: 1,
      }
      const page = await listClaimsForCaller(t.database.db, scope, query)
      assert.deepEqual(page.documents, [JSON.stringify({ id: `clm_${ids[1]}` })])
      assert.equal(page.hasMore, true)
      const next = await listClaimsForCaller(t.database.db, scope, { ...query, before: page.lastId })
      assert.deepEqual(next.documents, [JSON.stringify({ id: `clm_${ids[0]}` })])
      assert.equal(next.hasMore, false)
      const other = await listClaimsForCaller(t.database.db, { ...scope, environment: 'live' }, { ...query, top: 10 })
      assert.deepEqual(other.documents, [])
    })

    test("the operator's queue: Pending first, paged by a cursor that holds while claims are decided; by category", async () => {
      const db = t.database.db
      async function queued(itemNumber: number, category: 'Damaged' | 'Other', day: number): Promise<number> {
        const id = await nextClaimNumber(db)
        await insertClaim(db, scope, {
          id,
          orderNumber,
          shipmentNumber: null,
          labCode: 'queue-lab',
          preferredResolution: null,
          createdAt: new Date(Date.UTC(2026, 4, day)),
          document: JSON.stringify({ id: `clm_${id}` }),
          items: [{ itemNumber, shipmentNumber: 1, category, description: 'x' }],
          evidenceNumbers: [],
        })
        return id
      }
      const [a, b, c, d] = [
        await queued(920, 'Damaged', 1),
        await queued(921, 'Other', 2),
        await queued(922, 'Damaged', 3),
        await queued(923, 'Damaged', 4),
      ] as [number, number, number, number]
      const numbers = (rows: { number: number }[]) => rows.map((row) => row.number)
      const first = await listClaimQueue(db, { labCode: 'queue-lab' }, 2)
      assert.deepEqual(numbers(first), [a, b])
      // Decided after the first page was read: one shown already, one not yet.
      for (const id of [a, c]) {
        const change = { id, version: 1, status: 'Retracted' as const, document: '{}', at: new Date() }
        assert.equal(await changeClaimStatus(db, change), true)
      }
      const rest = await listClaimQueue(db, { labCode: 'queue-lab', after: { claimNumber: b, pending: true } }, 10)
      assert.deepEqual(numbers(rest), [d, a, c], 'the rest of the Pending ones, then the decided: none skipped')
      const decided = await listClaimQueue(db, { labCode: 'queue-lab', after: { claimNumber: a, pending: false } }, 10)
      assert.deepEqual(numbers(decided), [c])
      const damaged = await listClaimQueue(db, { labCode: 'queue-lab', category: 'Damaged' }, 10)
      assert.deepEqual(numbers(damaged), [d, a, c])
    })

    test('only unused evidence older than the cutoff is listed, and deleted only while unused', async () => {
      const db = t.database.db
      const photo = async (createdAt: Date) => {
        const id = await nextEvidenceNumber(db)
        const row = { id, blobKey: `claim-evidence/${id}`, contentType: 'image/jpeg' as const, bytes: 10 }
        await insertMerchantEvidence(db, scope, { ...row, width: 1, height: 1, createdAt })
        return id
      }
      const old = await photo(new Date('2026-05-01T00:00:00Z'))
      const fresh = await photo(new Date('2026-05-03T00:00:00Z'))
      const used = await photo(new Date('2026-05-01T00:00:00Z'))
      await db.query('UPDATE claim_evidence SET claim_id = 1 WHERE id = $1', [used])
      const listed = await listUnusedEvidence(db, new Date('2026-05-02T00:00:00Z'), 10)
      assert.deepEqual(
        listed.map((row) => row.id),
        [old],
      )
      assert.equal(await deleteUnusedEvidence(db, used), false)
      assert.equal(await deleteUnusedEvidence(db, old), true)
      assert.ok(fresh > old)
    })
  })
}
