// The rules the command line and the console both apply to an operator's top-up and statement, without a database:
// which amounts a top-up takes, and the statement's file name in each environment and format.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { onlyPrepaidAccountsHaveABalance } from '../../domain/operator-refusal.ts'
import { statementFileName, topUpAmountMinor } from './operator-rules.ts'

tier('pure')

test('a top-up takes a positive amount with at most 10 whole digits and two decimals', () => {
  assert.equal(topUpAmountMinor('50'), 5000n)
  assert.equal(topUpAmountMinor('50.5'), 5050n)
  assert.equal(topUpAmountMinor('0.01'), 1n)
  assert.equal(topUpAmountMinor('9999999999.99'), 999999999999n)
  for (const refused of ['0', '0.00', '-1', '+1', '1.234', '12345678901', '1,00', ' 5', '5 ', '.5', '5.', 'abc', '']) {
    assert.equal(topUpAmountMinor(refused), undefined, refused)
  }
})

test('only prepaid accounts have a balance: the refusal names the account', () => {
  assert.equal(
    onlyPrepaidAccountsHaveABalance('acc_7'),
    'acc_7 is billed by invoice; only prepaid accounts have a balance',
  )
})

test("a statement's file name: the account, the month, Sandbox marked, the format", () => {
  assert.equal(statementFileName('acc_7', 'live', '2026-11', 'csv'), 'statement-acc_7-2026-11.csv')
  assert.equal(statementFileName('acc_7', 'sandbox', '2026-11', 'pdf'), 'statement-acc_7-2026-11-sandbox.pdf')
})
