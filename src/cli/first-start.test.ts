// The start's line about the seller printed on invoices (docs/billing.md#the-seller): said until it is set, naming
// the command and the console page that set it; nothing once it is.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { sellerUnsetLine } from './first-start.ts'

tier('pure')

test('until the seller is set the start names the command and the console page; once it is, nothing', () => {
  const line = sellerUnsetLine(false, 'http://127.0.0.1:8080')
  assert.ok(line)
  assert.match(line, /^no seller is set for invoices/)
  assert.match(line, /printroute invoices seller --name NAME --address LINE/)
  assert.match(line, /http:\/\/127\.0\.0\.1:8080\/admin\/invoices\/seller$/)
  assert.equal(sellerUnsetLine(true, 'http://127.0.0.1:8080'), undefined)
})
