import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { tier } from '../../test/support/tiers.ts'
import { isSigningSecret, newSigningSecret, webhookHeaders } from './webhook-signature.ts'

tier('pure')

const body = JSON.stringify({ specversion: '1.0', id: 'evt_1', data: { order: { id: 'ord_1' } } })

test('a new secret is whsec_ and 32 random bytes, different every time', () => {
  const secret = newSigningSecret()
  assert.ok(isSigningSecret(secret))
  assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32)
  assert.notEqual(newSigningSecret(), secret)
})

test('the headers verify with the standardwebhooks package, and not with another secret or body', () => {
  const secret = newSigningSecret()
  const headers = webhookHeaders([secret], 'evt_1', new Date(), body)
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body))
  assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers))
  assert.throws(() => new Webhook(secret).verify(`${body} `, headers))
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_2' }))
})

test('during a rotation both secrets sign: a receiver with either one verifies', () => {
  const previous = newSigningSecret()
  const current = newSigningSecret()
  const headers = webhookHeaders([current, previous], 'evt_9', new Date(), body)
  assert.equal(headers['webhook-signature'].split(' ').length, 2)
  assert.ok(new Webhook(previous).verify(body, headers))
  assert.ok(new Webhook(current).verify(body, headers))
})

test('an old timestamp is refused by the verifier (replay protection is the receiver-side check)', () => {
  const secret = newSigningSecret()
  const headers = webhookHeaders([secret], 'evt_1', new Date(Date.now() - 3600_000), body)
  assert.equal(headers['webhook-timestamp'], String(Math.floor((Date.now() - 3600_000) / 1000)))
  assert.throws(() => new Webhook(secret).verify(body, headers), /timestamp/i)
})
