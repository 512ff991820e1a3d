// The catalogue diff's "Price lists" section (docs/catalogue.md#comparing-versions): lists added and removed, each
// list's product, category and shipping rules added, removed or changed (old -> new), and the accounts whose own
// list a version takes away, with what prices them there instead (domain/price-lists.ts priceListFallbacks).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testCatalogueJson } from '../../test/support/test-catalogue.fixture.ts'
import { tier } from '../../test/support/tiers.ts'
import { parseCatalogue } from '../catalogue/catalogue.loader.ts'
import type { Catalogue } from './catalogue.ts'
import { diffCatalogues } from './catalogue-diff.ts'
import { priceListFallbacks, priceListFallbackWarnings } from './price-lists.ts'

tier('pure')

type Json = Record<string, any>

function withLists(lists: Json | undefined): Catalogue {
  const file = testCatalogueJson()
  if (lists !== undefined) file.priceLists = lists
  return parseCatalogue(file, 'lists.json')
}

const BEFORE = {
  retail: {
    default: true,
    products: { '*': { markupPercent: '40', roundUpTo: '0.99' }, canvas: { prices: { GBP: '25.00' } } },
    shipping: { '*': {} },
  },
  gold: { base: 'retail', percentOff: '10' },
}

const AFTER = {
  retail: {
    default: true,
    products: {
      '*': { markupPercent: '45', roundUpTo: '0.99' },
      'TEST-CASE': { prices: { GBP: '9.00', USD: '11.00' } },
    },
    shipping: { '*': {}, Express: { markupPercent: '10', plus: '1.00' } },
  },
  silver: { base: 'retail', percentOff: '5' },
}

test('the price lists section: lists and rules added, removed and changed, old -> new', () => {
  const diff = diffCatalogues(1, withLists(BEFORE), 2, withLists(AFTER))
  const section = diff.sections.find((entry) => entry.section === 'priceLists')
  assert.deepEqual(section?.changes, [
    { change: 'removed', key: 'gold', before: 'default: no; base: retail; percentOff: 10%' },
    { change: 'changed', key: 'retail products *', before: 'cost + 40%, up to .99', after: 'cost + 45%, up to .99' },
    { change: 'added', key: 'retail products TEST-CASE', after: 'fixed GBP 9.00, USD 11.00' },
    { change: 'removed', key: 'retail products canvas', before: 'fixed GBP 25.00' },
    { change: 'added', key: 'retail shipping Express', after: 'cost + 10% + 1.00' },
    { change: 'added', key: 'silver', after: 'default: no; base: retail; percentOff: 5%' },
  ])
  assert.equal(diff.total, 6)
  assert.deepEqual(diff.priceListAccounts, [], 'accounts are the caller to look up')
  // A list's own fields changing show only what changed.
  const promoted = diffCatalogues(
    1,
    withLists(BEFORE),
    2,
    withLists({ ...BEFORE, gold: { base: 'retail', percentOff: '12.5' } }),
  )
  assert.deepEqual(promoted.sections.find((entry) => entry.section === 'priceLists')?.changes, [
    { change: 'changed', key: 'gold', before: 'percentOff: 10%', after: 'percentOff: 12.5%' },
  ])
  // Catalogues without lists: an empty section, as before.
  const none = diffCatalogues(1, withLists(undefined), 2, withLists(undefined))
  assert.deepEqual(none.sections.find((entry) => entry.section === 'priceLists')?.changes, [])
  assert.equal(none.total, 0)
})

test("the accounts whose own list a version lacks fall back to its default list, or to the labs' costs", () => {
  const accounts = [
    { accountId: 'acc_1', priceList: 'gold' },
    { accountId: 'acc_2', priceList: null },
    { accountId: 'acc_3', priceList: 'retail' },
    { accountId: 'acc_4', priceList: 'gold' },
    { accountId: 'acc_5', priceList: 'default' },
    { accountId: 'acc_6', priceList: 'bronze' },
  ]
  const after = withLists(AFTER)
  const fallbacks = priceListFallbacks(after.priceLists, accounts)
  assert.deepEqual(fallbacks, [
    { accountId: 'acc_1', priceList: 'gold', fallsBackTo: 'retail' },
    { accountId: 'acc_4', priceList: 'gold', fallsBackTo: 'retail' },
    { accountId: 'acc_6', priceList: 'bronze', fallsBackTo: 'retail' },
  ])
  // Only the lists a change takes away (the diff's view).
  assert.deepEqual(
    priceListFallbacks(after.priceLists, accounts, new Set(['gold'])).map((entry) => entry.accountId),
    ['acc_1', 'acc_4'],
  )
  assert.deepEqual(priceListFallbackWarnings(fallbacks, 'catalogue version 2'), [
    'accounts acc_1, acc_4 buy on price list "gold", which catalogue version 2 does not have: they fall back to the default list "retail"',
    'account acc_6 buys on price list "bronze", which catalogue version 2 does not have: it falls back to the default list "retail"',
  ])
  // Without a default list: the labs' costs.
  const costs = priceListFallbacks(withLists(undefined).priceLists, [{ accountId: 'acc_9', priceList: 'gold' }])
  assert.deepEqual(costs, [{ accountId: 'acc_9', priceList: 'gold', fallsBackTo: null }])
  assert.deepEqual(priceListFallbackWarnings(costs, 'catalogue version 3'), [
    'account acc_9 buys on price list "gold", which catalogue version 3 does not have: nor a default list, so it pays the labs\' costs',
  ])
})
