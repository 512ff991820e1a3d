import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { tier } from '../../test/support/tiers.ts'
import {
  accountEditDifference,
  applyAccountEdit,
  creditLimitMinorOf,
  type EditableAccount,
  exceedsCreditLimit,
} from './credit-limits.ts'
import { accountEditRefusalWords, OperatorRefusal } from './operator-refusal.ts'

tier('pure')

test('a charge is held only when the account has a limit and the open amount would then be above it', () => {
  assert.equal(exceedsCreditLimit(1_000_000n, null), false, 'no limit: never held (every account until one is set)')
  assert.equal(exceedsCreditLimit(50_000n, 50_000n), false, 'reaching the limit exactly is allowed')
  assert.equal(exceedsCreditLimit(50_001n, 50_000n), true)
  assert.equal(exceedsCreditLimit(1n, 0n), true, 'a limit of 0: nothing on credit')
  assert.equal(exceedsCreditLimit(-500n, 0n), false, 'a credit in the merchant’s favour is below any limit')
})

test('a credit limit is typed as an amount with at most two decimals, or none', () => {
  assert.equal(creditLimitMinorOf('500'), 50_000n)
  assert.equal(creditLimitMinorOf('500.5'), 50_050n)
  assert.equal(creditLimitMinorOf(' 0 '), 0n)
  assert.equal(creditLimitMinorOf('none'), null)
  assert.equal(creditLimitMinorOf('None'), null)
  assert.equal(creditLimitMinorOf(''), null)
  for (const bad of ['-1', '1.234', 'lots', '1e3', '12345678901', '1,00']) {
    assert.equal(creditLimitMinorOf(bad), undefined, bad)
  }
})

/**
 * The billing service's rule over a run of charges: each charge is invoiced (the open amount counts it, held or
 * not), and it is held when the open amount is then above the limit or an earlier charge is still held. What went on
 * to the labs on credit never takes the open amount above the limit.
 */
test('property: what goes on credit never takes the open amount above the limit, whatever the order totals', () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 1_000_000n }),
      fc.array(fc.bigInt({ min: 1n, max: 300_000n }), { maxLength: 40 }),
      (limit, totals) => {
        let open = 0n
        let released = 0n
        for (const total of totals) {
          open += total
          if (!exceedsCreditLimit(open, limit)) released += total
          assert.ok(released <= limit, `released ${released} above the limit ${limit}`)
        }
        // With no limit nothing is ever held (today's behaviour).
        let unlimitedOpen = 0n
        for (const total of totals) {
          unlimitedOpen += total
          assert.equal(exceedsCreditLimit(unlimitedOpen, null), false)
        }
      },
    ),
  )
})

const invoiceAccount: EditableAccount = {
  name: 'Shop',
  billingMode: 'invoice',
  billingCurrency: 'GBP',
  priceList: null,
  creditLimitMinor: null,
}
const settled = { balanceMinor: 0n, openAmountMinor: 0n, liveOrdersInProgress: 0 }

function refusalOf(work: () => unknown): OperatorRefusal {
  try {
    work()
  } catch (error) {
    if (error instanceof OperatorRefusal) return error
    throw error
  }
  assert.fail('not refused')
}

test('an edit applies the fields given; a switch to prepaid removes the limit', () => {
  const edited = applyAccountEdit('acc_1', invoiceAccount, settled, {
    name: '  New name ',
    billingCurrency: 'eur',
    creditLimitMinor: 50_000n,
  })
  assert.deepEqual(edited, { ...invoiceAccount, name: 'New name', billingCurrency: 'EUR', creditLimitMinor: 50_000n })
  const prepaid = applyAccountEdit('acc_1', { ...invoiceAccount, creditLimitMinor: 50_000n }, settled, {
    billingMode: 'prepaid',
  })
  assert.equal(prepaid.creditLimitMinor, null)
  assert.deepEqual(accountEditDifference(invoiceAccount, edited), {
    before: { name: 'Shop', billingCurrency: 'GBP', creditLimit: null },
    after: { name: 'New name', billingCurrency: 'EUR', creditLimit: '500.00' },
  })
})

test('an edit is refused, saying which money stops it: balance, open invoices, orders in progress', () => {
  const cases: [() => unknown, string, string][] = [
    [
      () =>
        applyAccountEdit('acc_1', invoiceAccount, { ...settled, openAmountMinor: 1_250n }, { billingCurrency: 'EUR' }),
      'currency:open-amount',
      'the currency of acc_1 cannot change while it owes 12.50 GBP on Live invoices',
    ],
    [
      () =>
        applyAccountEdit(
          'acc_1',
          { ...invoiceAccount, billingMode: 'prepaid' },
          { ...settled, balanceMinor: 500n },
          { billingCurrency: 'EUR' },
        ),
      'currency:balance-left',
      'the currency of acc_1 cannot change while it has a prepaid balance (5.00 GBP)',
    ],
    [
      () =>
        applyAccountEdit('acc_1', invoiceAccount, { ...settled, liveOrdersInProgress: 2 }, { billingCurrency: 'EUR' }),
      'currency:orders-in-progress',
      'the currency of acc_1 cannot change while 2 Live orders billed in the current currency are in progress',
    ],
    [
      () =>
        applyAccountEdit(
          'acc_1',
          { ...invoiceAccount, billingMode: 'prepaid' },
          { ...settled, balanceMinor: 500n },
          { billingMode: 'invoice' },
        ),
      'billingMode:balance-left',
      'acc_1 still has a prepaid balance of 5.00 GBP: it cannot be billed by invoice until the balance is used or refunded',
    ],
    [
      () => applyAccountEdit('acc_1', invoiceAccount, settled, { billingMode: 'prepaid', creditLimitMinor: 100n }),
      'creditLimit:prepaid',
      'acc_1 is prepaid: a credit limit applies to accounts billed by invoice only',
    ],
    [
      () => applyAccountEdit('acc_1', invoiceAccount, settled, { name: '  ' }),
      'name:missing',
      'the account name must not be empty',
    ],
    [
      () => applyAccountEdit('acc_1', invoiceAccount, settled, { billingCurrency: 'euro' }),
      'currency:not-a-currency',
      '"euro" is not a currency code (expected e.g. GBP)',
    ],
  ]
  for (const [work, kind, words] of cases) {
    const refusal = refusalOf(work)
    assert.equal(`${refusal.field}:${refusal.reason}`, kind)
    assert.equal(accountEditRefusalWords(refusal), words)
  }
  // The same currency again, or a balance with no change of currency or mode: allowed.
  assert.equal(
    applyAccountEdit('acc_1', invoiceAccount, { ...settled, openAmountMinor: 9n }, { billingCurrency: 'gbp' })
      .billingCurrency,
    'GBP',
  )
  assert.equal(
    applyAccountEdit('acc_1', invoiceAccount, { ...settled, openAmountMinor: 9n }, { billingMode: 'prepaid' })
      .billingMode,
    'prepaid',
    'invoice to prepaid is allowed',
  )
})
