// What the merchant's claims tests share: evidence photos (a real JPEG, an image bomb, one uploaded), and a claim made
// Resolved straight in the tables (migrations/0036_claims.sql, domain/claims.ts's ClaimView) where a test needs one
// without the resolution's own work. Orders shipped for a claim: test/support/shipped-order.ts.
import assert from 'node:assert/strict'
import sharp from 'sharp'
import type { ClaimView } from '../../src/domain/claims.ts'
import { parseId } from '../../src/domain/ids.ts'
import { json, type TestApp } from './test-app.ts'

/** A small real JPEG photo. */
export async function photoJpeg(colour = '#aa3322'): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: colour } })
    .jpeg()
    .toBuffer()
}

/** A tiny PNG whose header claims 100,000 x 100,000 pixels. */
export async function imageBomb(): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .png()
    .toBuffer()
  const bomb = Buffer.from(png)
  bomb.writeUInt32BE(100_000, 16)
  bomb.writeUInt32BE(100_000, 20)
  return bomb
}

/** Uploads a photo as the key's account (Live); its evd_ id. */
export async function uploadPhoto(t: TestApp, key?: string): Promise<string> {
  const response = await t.live(
    {
      method: 'POST',
      url: '/v4.0/claims/evidence',
      payload: await photoJpeg(),
      headers: { 'content-type': 'image/jpeg' },
    },
    key,
  )
  assert.equal(response.statusCode, 201, response.body)
  return json(response).evidence.id
}

/** Makes the claim Resolved (a Credit) as the resolution would, straight in the tables. */
export async function resolveClaimInTables(t: TestApp, claimId: string, at: Date): Promise<void> {
  const id = parseId('clm', claimId) as number
  const rows = await t.database.db.query<{ document: string }>('SELECT document FROM claims WHERE id = $1', [id])
  const view = JSON.parse(rows[0]?.document ?? 'null') as ClaimView
  const resolved: ClaimView = {
    ...view,
    status: 'Resolved',
    resolution: {
      type: 'Credit',
      note: 'Sorry',
      resolvedAt: at.toISOString(),
      reprintShipmentId: null,
      creditNote: null,
      amount: null,
    },
    lastUpdated: at.toISOString(),
  }
  await t.database.db.query(
    `UPDATE claims SET status = 'Resolved', resolution = 'Credit', resolved_by = 'operator', resolved_at = $2,
       updated_at = $2, version = version + 1, document = $3 WHERE id = $1`,
    [id, at, JSON.stringify(resolved)],
  )
  await t.database.db.query('UPDATE claim_items SET open = false WHERE claim_id = $1', [id])
}
