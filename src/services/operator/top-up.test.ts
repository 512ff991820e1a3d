// A top-up's one function (accounts.ts), shared by the command line and the console, without a database: its checks
// in their one order (the account ID's form, the amount, the account, its billing mode), each refusal an
// OperatorRefusal that the command line and the console word their own way, as each printed it before.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../../test/support/tiers.ts'
import { refusalInCommandWords } from '../../cli/operator-refusal-words.ts'
import type { Account } from '../../domain/accounts.ts'
import type { AuditActor } from '../../domain/audit.ts'
import { OperatorRefusal } from '../../domain/operator-refusal.ts'
import { refusalInConsoleWords } from '../../web/operator/refusal-words.ts'
import { AccountError, type AccountsService } from '../accounts.service.ts'
import { topUp } from './accounts.ts'

tier('pure')

const ACTOR: AuditActor = { kind: 'system' }

function account(id: string, billingMode: Account['billingMode']): Account {
  return {
    id,
    name: id,
    billingCurrency: 'GBP',
    billingMode,
    balance: '0.00',
    pauseWindowSeconds: 0,
    callbackUrls: { sandbox: null, live: null },
    created: '2026-11-01T00:00:00.000Z',
    suspended: null,
    suspendedReason: null,
  }
}

/** acc_1 is prepaid, acc_2 billed by invoice, any other account is not there (as the accounts service says). */
function deps() {
  const toppedUp: { accountNumber: number; amountMinor: bigint }[] = []
  const known = new Map([
    ['acc_1', account('acc_1', 'prepaid')],
    ['acc_2', account('acc_2', 'invoice')],
  ])
  const accounts = {
    async getAccount(accountId: string): Promise<Account> {
      const found = known.get(accountId)
      if (!found) throw new AccountError(`No account ${accountId}`)
      return found
    },
  } as unknown as AccountsService
  const payments = {
    async topUp(accountNumber: number, amountMinor: bigint) {
      toppedUp.push({ accountNumber, amountMinor })
      return { balanceMinor: amountMinor, currency: 'GBP', releasedOrderIds: [] }
    },
  }
  return { accounts, payments: async () => payments, actor: ACTOR, toppedUp }
}

async function refusalOf(account: string, amount: string): Promise<OperatorRefusal> {
  const d = deps()
  const error = await topUp(d, { account, amount, reference: null }).then(
    () => assert.fail(`${account} ${amount} was taken`),
    (thrown: unknown) => thrown,
  )
  assert.ok(error instanceof OperatorRefusal, String(error))
  assert.deepEqual(d.toppedUp, [])
  return error
}

test('a top-up is taken for a prepaid account and a positive amount', async () => {
  const d = deps()
  const result = await topUp(d, { account: 'acc_1', amount: '25.5', reference: 'BACS 991' })
  assert.deepEqual(result, { account: 'acc_1', balance: '25.50', currency: 'GBP', releasedOrderIds: [] })
  assert.deepEqual(d.toppedUp, [{ accountNumber: 1, amountMinor: 2550n }])
})

test("one order of checks: the account ID's form, the amount, the account, its billing mode", async () => {
  const cases: [string, string, string, string][] = [
    // [account, amount, field, reason]
    ['shop', 'x', 'account', 'not-an-id'],
    ['acc_9', 'x', 'amount', 'not-a-positive-amount'],
    ['acc_2', '0', 'amount', 'not-a-positive-amount'],
    ['acc_9', '5', 'account', 'unknown'],
    ['acc_2', '5', 'account', 'not-prepaid'],
    ['acc_1', '1.234', 'amount', 'not-a-positive-amount'],
  ]
  for (const [accountId, amount, field, reason] of cases) {
    const refusal = await refusalOf(accountId, amount)
    assert.deepEqual(
      { field: refusal.field, reason: refusal.reason },
      { field, reason },
      `${accountId} ${amount}: ${refusal.message}`,
    )
  }
})

test('each refusal in the words of the command line and of the console', async () => {
  const cases: [string, string, string, string][] = [
    // [account, amount, the command line's words, the console's words]
    ['shop', '5', '"shop" is not an account ID (expected acc_<number>)', 'No account shop'],
    [
      'acc_1',
      'x',
      '--amount must be a positive amount such as 50.00, got "x"',
      'Amount: a positive amount such as 50.00 is needed, not "x"',
    ],
    ['acc_9', '5', 'No account acc_9', 'No account acc_9'],
    [
      'acc_2',
      '5',
      'acc_2 is billed by invoice; only prepaid accounts have a balance',
      'acc_2 is billed by invoice; only prepaid accounts have a balance',
    ],
  ]
  for (const [accountId, amount, command, console] of cases) {
    const refusal = await refusalOf(accountId, amount)
    assert.equal(refusalInCommandWords(refusal), command)
    assert.equal(refusalInConsoleWords(refusal), console)
  }
})
