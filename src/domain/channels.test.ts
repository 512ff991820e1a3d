// Storefront channels' pure rules (domain/channels.ts): secrets sealed and opened only under their own key, the
// shop domain check, and what a store order's line items make of it through the links.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  type ChannelLink,
  CorruptSealedSecretError,
  channelKeyFingerprint,
  mapOrder,
  mappingOutcome,
  newChannelSecretsKey,
  openSecret,
  parseChannelSecretsKey,
  SealedUnderAnotherKeyError,
  sealSecret,
  secretsUnreadableReason,
  shopDomainFailure,
} from './channels.ts'
import type { StorefrontOrder } from './storefronts.ts'

tier('pure')

test('a sealed secret opens under its key only, and is not the secret in clear', () => {
  const key = parseChannelSecretsKey(newChannelSecretsKey()) as Buffer
  const other = parseChannelSecretsKey(newChannelSecretsKey()) as Buffer
  const sealed = sealSecret(key, 'shpat_secret')
  assert.ok(!sealed.includes('shpat_secret'))
  assert.notEqual(sealSecret(key, 'shpat_secret'), sealed, 'a fresh IV each time')
  assert.equal(openSecret(key, sealed), 'shpat_secret')
  assert.throws(() => openSecret(other, sealed), /another channel secrets key/)
  const tampered = `${sealed.slice(0, -4)}AAAA`
  assert.throws(() => openSecret(key, tampered), CorruptSealedSecretError)
  assert.equal(parseChannelSecretsKey('not a key'), undefined)
  assert.equal(parseChannelSecretsKey(Buffer.alloc(32, 7).toString('base64'))?.length, 32)
})

test('a value sealed under another key is told apart from a corrupt one, with both fingerprints', () => {
  const key = parseChannelSecretsKey(newChannelSecretsKey()) as Buffer
  const other = parseChannelSecretsKey(newChannelSecretsKey()) as Buffer
  const sealed = sealSecret(other, 'shpat_secret')
  assert.throws(
    () => openSecret(key, sealed),
    (error: unknown) =>
      error instanceof SealedUnderAnotherKeyError &&
      error.sealedFingerprint === channelKeyFingerprint(other) &&
      error.currentFingerprint === channelKeyFingerprint(key) &&
      !error.message.includes('shpat_secret'),
  )
  // Corrupt: not the sealed form, cut short, or altered under the right fingerprint.
  const [, fingerprint, payload] = sealSecret(key, 'shpat_secret').split('.')
  for (const bad of [
    'plain text',
    `v1.${fingerprint}.AAAA`,
    `v1.${fingerprint}.${payload?.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
  ]) {
    assert.throws(() => openSecret(key, bad), CorruptSealedSecretError, bad)
  }
  assert.match(secretsUnreadableReason('shopify'), /enter them again \(adminAccessToken, webhookSecret\)/)
  assert.match(secretsUnreadableReason('woocommerce'), /\(consumerKey, consumerSecret, webhookSecret\)/)
})

test('only name.myshopify.com is a shop domain', () => {
  assert.equal(shopDomainFailure('my-shop.myshopify.com'), undefined)
  assert.equal(shopDomainFailure('My-Shop.MyShopify.com'), undefined)
  for (const bad of ['shop.example.com', 'myshopify.com', 'a.b.myshopify.com', 'https://a.myshopify.com']) {
    assert.equal(shopDomainFailure(bad)?.code, 'InvalidFormat', bad)
  }
})

test('line items map by variant first, then SKU; linked, unlinked and ignored decide the outcome', () => {
  const link = (id: number, by: { variant?: string; sku?: string }, ignore = false): ChannelLink => ({
    id,
    externalVariantId: by.variant ?? null,
    externalSku: by.sku ?? null,
    sku: ignore ? null : 'GLOBAL-CAN-10x10',
    attributes: {},
    assets: [],
    sizing: null,
    ignore,
    createdAt: new Date(0),
  })
  const line = (id: string, variant: string | null, sku: string | null) => ({
    externalLineItemId: id,
    externalVariantId: variant,
    externalSku: sku,
    title: id,
    quantity: 1,
  })
  const order: StorefrontOrder = {
    externalOrderId: '1',
    name: '#1',
    lineItems: [line('a', '10', 'X'), line('b', null, 'MUG'), line('c', '30', null)],
    recipient: null,
  }
  const links = [link(1, { sku: 'X' }), link(2, { variant: '10' }), link(3, { sku: 'MUG' }, true)]
  const mapping = mapOrder(order, links)
  assert.equal(mapping.linked[0]?.link.id, 2, 'the variant link wins over the SKU link')
  assert.deepEqual(
    mapping.ignored.map((item) => item.externalLineItemId),
    ['b'],
  )
  assert.deepEqual(
    mapping.unlinked.map((item) => item.externalLineItemId),
    ['c'],
  )
  assert.equal(mappingOutcome(mapping), 'notConnected')
  assert.equal(mappingOutcome(mapOrder(order, [...links, link(4, { variant: '30' })])), 'create')
  assert.equal(mappingOutcome(mapOrder(order, [link(3, { sku: 'MUG' }, true)])), 'ignored')
})
