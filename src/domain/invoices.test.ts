import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { parseStatementMonth } from './invoices.ts'

tier('pure')

test('a statement month is its first instant to the next month, in years 0001 to 9999 as written', () => {
  assert.deepEqual(parseStatementMonth('2026-03'), {
    from: new Date('2026-03-01T00:00:00Z'),
    to: new Date('2026-04-01T00:00:00Z'),
  })
  assert.deepEqual(parseStatementMonth('2026-12')?.to, new Date('2027-01-01T00:00:00Z'))
  // Not 1950: a two-digit year is not taken for the 1900s.
  assert.deepEqual(parseStatementMonth('0050-03')?.from, new Date('0050-03-01T00:00:00Z'))
  // The last month ends at the range's last instant, not in year 10000.
  assert.deepEqual(parseStatementMonth('9999-12')?.to, new Date('9999-12-31T23:59:59.999Z'))
  for (const refused of ['0000-01', '2026-13', '2026-3', '26-03', '+10000-01']) {
    assert.equal(parseStatementMonth(refused), undefined, refused)
  }
})
