// The console's "seller details not set" banner asks the invoices service on every page (sellerConfigured): answered
// from memory, over a database that counts its reads of the setting. Set once, it stays set without a read; unset, it
// is read again only after SELLER_UNSET_RECHECK_MS, which is how a seller set by another process shows; a seller set
// through this service is known at once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { ManualClock } from '../adapters/clock.ts'
import type { Database, Queryable } from '../adapters/database.ts'
import { createInvoicesService, SELLER_UNSET_RECHECK_MS } from './invoices.service.ts'

tier('pure')

/** A database holding only the settings table, in memory; `reads` counts the seller's reads. */
function settingsDatabase() {
  const settings = new Map<string, string>()
  const counts = { reads: 0 }
  const query: Queryable['query'] = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    if (sql.startsWith('SELECT value FROM settings')) {
      counts.reads += 1
      const value = settings.get(params[0] as string)
      return (value === undefined ? [] : [{ value }]) as T[]
    }
    if (sql.includes('INSERT INTO settings')) {
      const before = settings.get(params[0] as string) ?? null
      settings.set(params[0] as string, params[1] as string)
      return [{ before }] as T[]
    }
    if (sql.includes('INSERT INTO audit_events')) return [{ id: 1 }] as T[]
    throw new Error(`unexpected query: ${sql}`)
  }
  const tx = { query } as unknown as Queryable
  const db = { kind: 'pglite', query, transaction: (work) => work(tx), close: async () => {} } as Database
  return { db, settings, counts }
}

function serviceOver(db: Database, clock: ManualClock) {
  const unused = () => {
    throw new Error('not used here')
  }
  return createInvoicesService({
    db,
    clock,
    taxRateOf: unused,
    instanceName: () => 'https://live.example.com',
    pdfLink: unused,
    renderInvoicePdf: unused,
    renderStatementPdf: unused,
  })
}

const SELLER = { name: 'Print Co', address: ['1 High Street', 'London'], taxNumber: null, email: null }

test('set by another process: the banner goes within the recheck; once set, no read at all', async () => {
  const { db, settings, counts } = settingsDatabase()
  const clock = new ManualClock()
  const invoices = serviceOver(db, clock)

  assert.equal(await invoices.sellerConfigured(), false)
  assert.equal(await invoices.sellerConfigured(), false)
  assert.equal(counts.reads, 1, 'unset: read once, then trusted for the recheck interval')

  // Another process (a command against the same PostgreSQL) sets the seller: this process has not read it yet.
  await serviceOver(db, clock).setSeller(SELLER, { kind: 'cli', host: 'h', user: 'u' })
  assert.equal(await invoices.sellerConfigured(), false)
  clock.advanceSeconds(SELLER_UNSET_RECHECK_MS / 1000)
  assert.equal(await invoices.sellerConfigured(), true, 'read again after the recheck interval: set')
  const readsWhenSet = counts.reads

  // Set is for good: no more reads, however long it runs (the row is never removed; gone here, still set).
  settings.clear()
  clock.advanceSeconds(3600)
  for (let page = 0; page < 5; page += 1) assert.equal(await invoices.sellerConfigured(), true)
  assert.equal(counts.reads, readsWhenSet)
})

test('set through this service (the console, or a command over the admin channel): known at once', async () => {
  const { db, counts } = settingsDatabase()
  const clock = new ManualClock()
  const invoices = serviceOver(db, clock)
  assert.equal(await invoices.sellerConfigured(), false)
  const refused = await invoices.setSeller({ ...SELLER, name: ' ' }, { kind: 'system' })
  assert.ok('problems' in refused)
  assert.equal(await invoices.sellerConfigured(), false, 'a refused seller sets nothing')
  await invoices.setSeller(SELLER, { kind: 'system' })
  const reads = counts.reads
  assert.equal(await invoices.sellerConfigured(), true, 'without waiting for the recheck')
  assert.equal(counts.reads, reads, 'and without reading')
})
