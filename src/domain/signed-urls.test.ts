import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { signFilePath, verifyFilePath } from './signed-urls.ts'

const SECRET = 'test-secret-0123456789'
const KEY = 'thumbnails/ord_12/ast_40.jpg'
const NOW = new Date('2026-03-01T12:00:00.000Z')

function parse(path: string): { key: string; expires: string | null; signature: string | null } {
  const url = new URL(path, 'http://printroute.test')
  assert.ok(url.pathname.startsWith('/files/'))
  return {
    key: decodeURIComponent(url.pathname.slice('/files/'.length)),
    expires: url.searchParams.get('expires'),
    signature: url.searchParams.get('signature'),
  }
}

test('a signed path names the key, the expiry in unix seconds and a base64url signature', () => {
  const path = signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00.000Z'))
  assert.match(path, /^\/files\/thumbnails\/ord_12\/ast_40\.jpg\?expires=1772370000&signature=[A-Za-z0-9_-]{43}$/)
})

test('a signed path verifies until its expiry and not from the expiry on', () => {
  const expiresAt = new Date('2026-03-01T13:00:00.000Z')
  const { key, expires, signature } = parse(signFilePath(SECRET, KEY, expiresAt))
  assert.equal(verifyFilePath(SECRET, key, expires, signature, NOW), true)
  assert.equal(verifyFilePath(SECRET, key, expires, signature, new Date(expiresAt.getTime() - 1)), true)
  assert.equal(verifyFilePath(SECRET, key, expires, signature, expiresAt), false)
  assert.equal(verifyFilePath(SECRET, key, expires, signature, new Date(expiresAt.getTime() + 86_400_000)), false)
})

test('the expiry is rounded down to whole seconds, never extending the link', () => {
  const { expires, signature } = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00.999Z')))
  assert.equal(expires, '1772370000')
  assert.equal(verifyFilePath(SECRET, KEY, expires, signature, new Date('2026-03-01T13:00:00.500Z')), false)
})

test('a path signed without expiry carries no expires and verifies at any time', () => {
  const path = signFilePath(SECRET, KEY, null)
  assert.doesNotMatch(path, /expires=/)
  const { expires, signature } = parse(path)
  assert.equal(expires, null)
  assert.equal(verifyFilePath(SECRET, KEY, null, signature, NOW), true)
  assert.equal(verifyFilePath(SECRET, KEY, undefined, signature, new Date('2100-01-01T00:00:00Z')), true)
  // An expiry added to a never-expiring URL (or removed from an expiring one) breaks the signature.
  assert.equal(verifyFilePath(SECRET, KEY, '4102444800', signature, NOW), false)
  const expiring = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00Z')))
  assert.equal(verifyFilePath(SECRET, KEY, null, expiring.signature, NOW), false)
})

test('any change of key, expiry, signature or secret fails verification', () => {
  const { expires, signature } = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00Z')))
  assert.equal(verifyFilePath(SECRET, 'thumbnails/ord_12/ast_41.jpg', expires, signature, NOW), false)
  assert.equal(verifyFilePath(SECRET, `${KEY}x`, expires, signature, NOW), false)
  assert.equal(verifyFilePath(SECRET, KEY, '1772370001', signature, NOW), false)
  assert.equal(verifyFilePath('another-secret', KEY, expires, signature, NOW), false)
  const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`
  assert.equal(verifyFilePath(SECRET, KEY, expires, flipped, NOW), false)
})

test('malformed signatures and expiries are refused without throwing', () => {
  const { expires, signature } = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00Z')))
  for (const bad of [
    null,
    undefined,
    '',
    'abc',
    `${signature}=`,
    `${signature}A`,
    signature!.slice(0, 42),
    `${signature!.slice(0, 42)}+`,
  ]) {
    assert.equal(verifyFilePath(SECRET, KEY, expires, bad, NOW), false, String(bad))
  }
  // Other spellings of the same number are not the signed text.
  for (const bad of ['01772370000', '+1772370000', '1772370000.0', ' 1772370000', '1.77237e9', '-1', 'soon']) {
    assert.equal(verifyFilePath(SECRET, KEY, bad, signature, NOW), false, bad)
  }
})

test('the last base64url character has one valid spelling', () => {
  const { expires, signature } = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00Z')))
  // 43 characters carry 258 bits for 256: the last character's two low bits are spare. Changing only them
  // decodes to the same bytes, but the URL is still refused.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const last = alphabet.indexOf(signature!.at(-1)!)
  const sibling = `${signature!.slice(0, 42)}${alphabet[last ^ 1]}`
  assert.deepEqual(Buffer.from(sibling, 'base64url'), Buffer.from(signature!, 'base64url'))
  assert.equal(verifyFilePath(SECRET, KEY, expires, sibling, NOW), false)
})

test('the signature is HMAC-SHA256 over a purpose label, the key and the expiry', () => {
  const { signature } = parse(signFilePath(SECRET, KEY, new Date('2026-03-01T13:00:00Z')))
  const expected = createHmac('sha256', SECRET).update(`printroute-file-url-v1\n${KEY}\n1772370000`).digest('base64url')
  assert.equal(signature, expected)
})

test('key segments are percent-encoded in the path and verified in decoded form', () => {
  const key = 'assets/ord 12/ast?40#x'
  const path = signFilePath(SECRET, key, null)
  assert.ok(path.startsWith('/files/assets/ord%2012/ast%3F40%23x?signature='))
  const parsed = parse(path)
  assert.equal(parsed.key, key)
  assert.equal(verifyFilePath(SECRET, parsed.key, parsed.expires, parsed.signature, NOW), true)
})

test('an empty secret or an invalid expiry is a programming error', () => {
  assert.throws(() => signFilePath('', KEY, null), /secret must not be empty/)
  assert.throws(() => signFilePath(SECRET, KEY, new Date(Number.NaN)), RangeError)
  assert.throws(() => signFilePath(SECRET, 'a\nb', null), /line feed/)
  assert.equal(verifyFilePath(SECRET, 'a\nb', null, 'A'.repeat(43), NOW), false)
  assert.throws(() => verifyFilePath('', KEY, null, 'A'.repeat(43), NOW), /secret must not be empty/)
})
