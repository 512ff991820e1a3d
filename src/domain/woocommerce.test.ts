// Which store URLs a WooCommerce channel takes: https in Live, http only for a store on this machine or in the
// Sandbox, and never a URL carrying a password, a query or a fragment.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { checkWooCommerceStoreUrl, wooCommerceApiUrl } from './woocommerce.ts'

tier('pure')

test('a store URL is accepted when it is https, or http on this machine, or http in the Sandbox', () => {
  for (const url of [
    'https://shop.example.com',
    'https://shop.example.com/',
    'https://example.com/shop',
    'http://127.0.0.1:8080',
    'http://localhost/wordpress',
    'http://[::1]:9000',
  ]) {
    assert.equal(checkWooCommerceStoreUrl(url), null, url)
  }
  assert.equal(checkWooCommerceStoreUrl('http://shop.example.com', 'sandbox'), null)
})

test('a store URL is refused with the reason', () => {
  const cases: [unknown, RegExp][] = [
    [undefined, /must be the store.s address/],
    ['  ', /must be the store.s address/],
    ['shop.example.com', /not an absolute URL/],
    ['ftp://shop.example.com', /must be an https:\/\/ URL, not ftp:/],
    ['http://shop.example.com', /must be an https:\/\/ URL in Live/],
    ['http://127.0.0.1.example.com', /in Live/],
    ['https://admin:pw@shop.example.com', /must not contain a user name or password/],
    ['https://shop.example.com/?consumer_key=ck_1', /must not have a query or fragment/],
    ['https://shop.example.com/#x', /must not have a query or fragment/],
    [`https://shop.example.com/${'a'.repeat(2048)}`, /longer than 2048 characters/],
  ]
  for (const [url, reason] of cases) assert.match(checkWooCommerceStoreUrl(url) ?? 'accepted', reason, String(url))
})

test('the REST URL keeps a store in a subfolder and drops a trailing slash', () => {
  assert.equal(
    wooCommerceApiUrl('https://example.com/shop/', '/orders/7'),
    'https://example.com/shop/wp-json/wc/v3/orders/7',
  )
  assert.equal(
    wooCommerceApiUrl('http://127.0.0.1:81', '/orders/7/notes'),
    'http://127.0.0.1:81/wp-json/wc/v3/orders/7/notes',
  )
})
