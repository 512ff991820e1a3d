// The labs' side of claims in SQL on every configured backend (src/repositories/lab-claims.repository.ts over
// migrations/0036_claims.sql and 0039_lab_quality.sql): a lab's Live claims listed newest first, by status and by
// cursor, another lab's and Sandbox's never; a claim found and locked for its own lab only; an answer saved once, at
// the version read, tying only the lab's free photos; the photos a lab may see; and the quality counts (upheld
// claimed items of Resolved at-fault claims, items of shipped hand-offs, Live only, since the window's start).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { parseId } from '../../src/domain/ids.ts'
import {
  drawEvidenceNumber,
  findEvidenceForLab,
  findLabClaim,
  insertLabEvidence,
  labEvidenceOfClaims,
  listLabClaims,
  lockFreeLabEvidence,
  lockLabClaim,
  readLabQualityCounts,
  saveLabAnswer,
} from '../../src/repositories/lab-claims.repository.ts'
import {
  type FixtureClaimItem,
  insertClaim,
  insertMerchantEvidence,
  insertShippedHandoff,
  setClaimStatus,
} from '../support/claims-lab.fixture.ts'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')
const AT_FAULT = ['Damaged', 'PrintDefect', 'WrongItem', 'MissingItem']

for (const kind of databaseKinds) {
  describe(`lab claims repository (${kind})`, () => {
    let t: TestApp
    let liveOrder = ''
    let sandboxOrder = ''
    // Item numbers are drawn per test: an item may have one open claim at a time (claim_items_one_open_idx).
    let nextItem = 1000

    const order = async (send: TestApp['live']) => {
      const created = await send({
        method: 'POST',
        url: '/v4.0/orders',
        payload: sampleOrder(),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(created.statusCode, 200, created.body)
      return json(created).order.id as string
    }

    before(async () => {
      t = await startTestApp({ kind })
      liveOrder = await order((request, key) => t.live(request, key))
      sandboxOrder = await order((request, key) => t.sandbox(request, key))
    })
    after(() => t.close())

    const item = (category: FixtureClaimItem['category'], extra: Partial<FixtureClaimItem> = {}) => ({
      itemId: `ori_${nextItem++}`,
      shipmentId: 'shp_501',
      category,
      description: `${category} item`,
      ...extra,
    })
    const claimAgainst = (
      labCode: string,
      at: string,
      options: { orderId?: string; items?: FixtureClaimItem[] } = {},
    ) =>
      insertClaim(t.database.db, {
        orderId: options.orderId ?? liveOrder,
        labCode,
        items: options.items ?? [item('Damaged')],
        at: new Date(at),
      })
    /** A photo the lab uploads (not yet tied to a claim); its evd_ number. */
    const labPhoto = async (labCode: string, at: Date) => {
      const evidenceNumber = await drawEvidenceNumber(t.database.db)
      const blobKey = `claim-evidence/${evidenceNumber}`
      const image = { contentType: 'image/jpeg', bytes: 120, width: 8, height: 8 }
      await insertLabEvidence(t.database.db, { evidenceNumber, labCode, blobKey, ...image, at })
      return evidenceNumber
    }
    const numberOf = (claimId: string) => parseId('clm', claimId) as number
    const idsOf = (rows: { claimNumber: number }[]) => rows.map((row) => `clm_${row.claimNumber}`)

    test("a lab's Live claims newest first, by status and by cursor; another lab's and Sandbox's are not listed", async () => {
      const older = await claimAgainst('lq1', '2026-03-01T00:00:00Z')
      const newer = await claimAgainst('lq1', '2026-03-02T00:00:00Z')
      const newest = await claimAgainst('lq1', '2026-03-03T00:00:00Z')
      await setClaimStatus(t.database.db, newer.id, 'Rejected', new Date('2026-03-04T00:00:00Z'))
      const otherLab = await claimAgainst('lq2', '2026-03-03T00:00:00Z')
      const sandbox = await claimAgainst('lq1', '2026-03-03T00:00:00Z', { orderId: sandboxOrder })

      const all = await listLabClaims(t.database.db, { labCode: 'lq1', before: null, limit: 10, status: null })
      assert.deepEqual(idsOf(all), [newest.id, newer.id, older.id])
      assert.ok(!idsOf(all).includes(otherLab.id) && !idsOf(all).includes(sandbox.id))
      const firstPage = await listLabClaims(t.database.db, { labCode: 'lq1', before: null, limit: 2, status: null })
      assert.deepEqual(idsOf(firstPage), [newest.id, newer.id])
      const cursor = firstPage.at(-1)?.claimNumber ?? null
      const secondPage = await listLabClaims(t.database.db, { labCode: 'lq1', before: cursor, limit: 2, status: null })
      assert.deepEqual(idsOf(secondPage), [older.id])
      const pending = await listLabClaims(t.database.db, { labCode: 'lq1', before: null, limit: 10, status: 'Pending' })
      assert.deepEqual(idsOf(pending), [newest.id, older.id])
      const [row] = all
      assert.equal(typeof row?.claimNumber, 'number')
      assert.equal(typeof row?.orderNumber, 'number')
      assert.equal(row?.version, 1)
      assert.deepEqual(JSON.parse(row?.document ?? '{}'), newest)
    })

    test('a claim is found and locked for its own lab only; an answer is saved once, at the version read', async () => {
      const claim = await claimAgainst('lr1', '2026-03-05T00:00:00Z')
      const number = numberOf(claim.id)
      assert.equal(await findLabClaim(t.database.db, 'lr2', number), undefined, "another lab's claim")
      assert.equal((await findLabClaim(t.database.db, 'lr1', number))?.labAnswer, null)

      const at = new Date('2026-03-06T00:00:00Z')
      const evidence = await labPhoto('lr1', at)
      const saved = await t.database.db.transaction(async (tx) => {
        const locked = await lockLabClaim(tx, 'lr1', number)
        assert.ok(locked, 'locked for its lab')
        assert.equal(await lockLabClaim(tx, 'lr2', number), undefined)
        assert.deepEqual(
          (await lockFreeLabEvidence(tx, 'lr1', [evidence])).map((row) => row.evidenceNumber),
          [evidence],
        )
        assert.deepEqual(await lockFreeLabEvidence(tx, 'lr2', [evidence]), [], "another lab's photo is not free to it")
        const answer = { answer: 'Disputed' as const, comment: 'left us whole', at, document: '{"answered":true}' }
        const stale = await saveLabAnswer(tx, { ...answer, claimNumber: number, version: 2, evidenceNumbers: [] })
        assert.equal(stale, false, 'version 2 was not read')
        return saveLabAnswer(tx, {
          ...answer,
          claimNumber: number,
          version: locked.version,
          evidenceNumbers: [evidence],
        })
      })
      assert.equal(saved, true)
      const answered = await findLabClaim(t.database.db, 'lr1', number)
      assert.equal(answered?.labAnswer, 'Disputed')
      assert.equal(answered?.version, 2)
      assert.equal(answered?.document, '{"answered":true}')
      const again = await saveLabAnswer(t.database.db, {
        claimNumber: number,
        version: 2,
        answer: 'Accepted',
        comment: null,
        at,
        document: '{}',
        evidenceNumbers: [],
      })
      assert.equal(again, false, 'a lab answers once')
      // The photo now names the claim (the service checks that before taking a photo again).
      assert.equal((await lockFreeLabEvidence(t.database.db, 'lr1', [evidence]))[0]?.claimNumber, number)
      assert.deepEqual([...(await labEvidenceOfClaims(t.database.db, [number, 999_999]))], [[number, [evidence]]])
    })

    test('a lab sees its own photos and those of Live claims against it, no other', async () => {
      const merchantPhoto = await insertMerchantEvidence(
        t.database.db,
        liveOrder,
        'claim-evidence/merchant',
        new Date('2026-03-07T00:00:00Z'),
      )
      await claimAgainst('ls1', '2026-03-07T00:00:00Z', { items: [item('Damaged', { evidence: [merchantPhoto] })] })
      const merchantNumber = parseId('evd', merchantPhoto) as number
      const shown = await findEvidenceForLab(t.database.db, 'ls1', merchantNumber)
      assert.deepEqual(shown && { ...shown, claimNumber: typeof shown.claimNumber }, {
        evidenceNumber: merchantNumber,
        uploadedBy: 'merchant',
        labCode: null,
        claimNumber: 'number',
        blobKey: 'claim-evidence/merchant',
        contentType: 'image/jpeg',
        bytes: 100,
      })
      assert.equal(await findEvidenceForLab(t.database.db, 'ls2', merchantNumber), undefined, "another lab's claim")
      const own = await labPhoto('ls2', new Date('2026-03-07T00:00:00Z'))
      assert.equal((await findEvidenceForLab(t.database.db, 'ls2', own))?.uploadedBy, 'lab', 'its own, still free')
      assert.equal(await findEvidenceForLab(t.database.db, 'ls1', own), undefined, "another lab's own photo")
    })

    test('quality counts: upheld items of Resolved at-fault claims and items shipped, Live only, since the start', async () => {
      // The Live order's document lists shipment shp_601 with two items: its hand-off counts them.
      const liveNumber = parseId('ord', liveOrder) as number
      const [stored] = await t.database.db.query<{ document: string }>('SELECT document FROM orders WHERE id = $1', [
        liveNumber,
      ])
      const document = JSON.parse(stored?.document ?? '{}')
      document.shipments = [{ id: 'shp_601', items: [{ itemId: 'ori_1' }, { itemId: 'ori_2' }] }]
      await t.database.db.query('UPDATE orders SET document = $2 WHERE id = $1', [liveNumber, JSON.stringify(document)])
      const since = new Date('2026-03-10T00:00:00Z')
      const inWindow = new Date('2026-03-12T00:00:00Z')
      await insertShippedHandoff(t.database.db, {
        orderId: liveOrder,
        shipmentId: 'shp_601',
        labCode: 'lt1',
        at: inWindow,
      })
      await insertShippedHandoff(t.database.db, {
        orderId: liveOrder,
        shipmentId: 'shp_602',
        labCode: 'lt1',
        at: new Date('2026-03-01T00:00:00Z'),
      })

      const upheld = await claimAgainst('lt1', '2026-03-11T00:00:00Z', { items: [item('Damaged'), item('Other')] })
      await setClaimStatus(t.database.db, upheld.id, 'Resolved', inWindow)
      const beforeWindow = await claimAgainst('lt1', '2026-03-01T00:00:00Z')
      await setClaimStatus(t.database.db, beforeWindow.id, 'Resolved', new Date('2026-03-02T00:00:00Z'))
      const rejected = await claimAgainst('lt1', '2026-03-11T00:00:00Z')
      await setClaimStatus(t.database.db, rejected.id, 'Rejected', inWindow)
      await claimAgainst('lt1', '2026-03-11T00:00:00Z')
      const sandbox = await claimAgainst('lt1', '2026-03-11T00:00:00Z', { orderId: sandboxOrder })
      await setClaimStatus(t.database.db, sandbox.id, 'Resolved', inWindow)
      const claimOnly = await claimAgainst('lt2', '2026-03-11T00:00:00Z', { items: [item('PrintDefect')] })
      await setClaimStatus(t.database.db, claimOnly.id, 'Resolved', inWindow)

      const counts = (await readLabQualityCounts(t.database.db, since, AT_FAULT)).filter((row) =>
        row.labCode.startsWith('lt'),
      )
      assert.deepEqual(counts, [
        { labCode: 'lt1', upheldItems: 1, itemsShipped: 2 },
        { labCode: 'lt2', upheldItems: 1, itemsShipped: 0 },
      ])
    })
  })
}
