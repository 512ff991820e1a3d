import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import {
  checkFilePath,
  createFileLinks,
  type FileEnvironment,
  fileLinkToken,
  readFileLinkToken,
  signFilePath,
} from './signed-urls.ts'

tier('pure')

const SECRET = 'test-secret-0123456789'
const KEY = 'thumbnails/ord_12/ast_40.jpg'
const NOW = new Date('2026-03-01T12:00:00.000Z')
const LATER = new Date('2026-03-01T13:00:00.000Z')

function parse(path: string): { key: string; expires: string | null; signature: string | null } {
  const url = new URL(path, 'http://printroute.test')
  assert.ok(url.pathname.startsWith('/files/'))
  return {
    key: decodeURIComponent(url.pathname.slice('/files/'.length)),
    expires: url.searchParams.get('expires'),
    signature: url.searchParams.get('signature'),
  }
}

function check(path: string, at: Date, environment: FileEnvironment = 'sandbox', secret = SECRET) {
  const { key, expires, signature } = parse(path)
  return checkFilePath(secret, environment, key, expires, signature, at)
}

test('a signed path names the key, the expiry in unix seconds and a base64url signature', () => {
  const path = signFilePath(SECRET, 'sandbox', KEY, LATER)
  assert.match(path, /^\/files\/thumbnails\/ord_12\/ast_40\.jpg\?expires=1772370000&signature=[A-Za-z0-9_-]{43}$/)
})

test('a signed path is valid until its expiry and expired from the expiry on', () => {
  const path = signFilePath(SECRET, 'sandbox', KEY, LATER)
  assert.deepEqual(check(path, NOW), { status: 'valid', expiresAt: LATER })
  assert.equal(check(path, new Date(LATER.getTime() - 1)).status, 'valid')
  assert.deepEqual(check(path, LATER), { status: 'expired', expiresAt: LATER })
  assert.equal(check(path, new Date(LATER.getTime() + 86_400_000)).status, 'expired')
})

test('a link belongs to its environment: the other one recognises it as not its own', () => {
  const sandboxPath = signFilePath(SECRET, 'sandbox', KEY, LATER)
  assert.deepEqual(check(sandboxPath, NOW, 'live'), { status: 'otherEnvironment', environment: 'sandbox' })
  const livePath = signFilePath(SECRET, 'live', KEY, LATER)
  assert.deepEqual(check(livePath, NOW, 'sandbox'), { status: 'otherEnvironment', environment: 'live' })
  assert.equal(check(livePath, NOW, 'live').status, 'valid')
  assert.notEqual(parse(sandboxPath).signature, parse(livePath).signature)
})

test('the expiry is rounded down to whole seconds, never extending the link', () => {
  const path = signFilePath(SECRET, 'sandbox', KEY, new Date('2026-03-01T13:00:00.999Z'))
  assert.equal(parse(path).expires, '1772370000')
  assert.equal(check(path, new Date('2026-03-01T13:00:00.500Z')).status, 'expired')
})

test('a link without an expiry is refused: every link expires', () => {
  const { signature } = parse(signFilePath(SECRET, 'sandbox', KEY, LATER))
  for (const expires of [null, undefined, '']) {
    assert.deepEqual(checkFilePath(SECRET, 'sandbox', KEY, expires, signature, NOW), { status: 'invalid' })
  }
  // Such links were signed (v1) over the key and an empty expiry; they do not verify any more.
  const neverExpiring = createHmac('sha256', SECRET).update(`printroute-file-url-v1\n${KEY}\n`).digest('base64url')
  assert.deepEqual(checkFilePath(SECRET, 'sandbox', KEY, null, neverExpiring, NOW), { status: 'invalid' })
})

test('any change of key, expiry, signature or secret makes the link invalid', () => {
  const path = signFilePath(SECRET, 'sandbox', KEY, LATER)
  const { expires, signature } = parse(path)
  const invalid = { status: 'invalid' }
  assert.deepEqual(checkFilePath(SECRET, 'sandbox', 'thumbnails/ord_12/ast_41.jpg', expires, signature, NOW), invalid)
  assert.deepEqual(checkFilePath(SECRET, 'sandbox', `${KEY}x`, expires, signature, NOW), invalid)
  assert.deepEqual(checkFilePath(SECRET, 'sandbox', KEY, '1772370001', signature, NOW), invalid)
  assert.deepEqual(check(path, NOW, 'sandbox', 'another-secret'), invalid)
  const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`
  assert.deepEqual(checkFilePath(SECRET, 'sandbox', KEY, expires, flipped, NOW), invalid)
})

test('malformed signatures and expiries are refused without throwing', () => {
  const { expires, signature } = parse(signFilePath(SECRET, 'sandbox', KEY, LATER))
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
    assert.equal(checkFilePath(SECRET, 'sandbox', KEY, expires, bad, NOW).status, 'invalid', String(bad))
  }
  // Other spellings of the same number are not the signed text.
  for (const bad of ['01772370000', '+1772370000', '1772370000.0', ' 1772370000', '1.77237e9', '-1', 'soon']) {
    assert.equal(checkFilePath(SECRET, 'sandbox', KEY, bad, signature, NOW).status, 'invalid', bad)
  }
})

test('the last base64url character has one valid spelling', () => {
  const { expires, signature } = parse(signFilePath(SECRET, 'sandbox', KEY, LATER))
  // 43 characters carry 258 bits for 256: the last character's two low bits are spare. Changing only them
  // decodes to the same bytes, but the URL is still refused.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const last = alphabet.indexOf(signature!.at(-1)!)
  const sibling = `${signature!.slice(0, 42)}${alphabet[last ^ 1]}`
  assert.deepEqual(Buffer.from(sibling, 'base64url'), Buffer.from(signature!, 'base64url'))
  assert.equal(checkFilePath(SECRET, 'sandbox', KEY, expires, sibling, NOW).status, 'invalid')
})

test('the signature is HMAC-SHA256 over a purpose label, the environment, the key and the expiry', () => {
  const { signature } = parse(signFilePath(SECRET, 'live', KEY, LATER))
  const expected = createHmac('sha256', SECRET)
    .update(`printroute-file-url-v2\nlive\n${KEY}\n1772370000`)
    .digest('base64url')
  assert.equal(signature, expected)
})

test('key segments are percent-encoded in the path and verified in decoded form', () => {
  const key = 'assets/ord 12/ast?40#x'
  const path = signFilePath(SECRET, 'sandbox', key, LATER)
  assert.ok(path.startsWith('/files/assets/ord%2012/ast%3F40%23x?expires='))
  assert.equal(parse(path).key, key)
  assert.equal(check(path, NOW).status, 'valid')
})

test('an empty secret or an invalid expiry is a programming error', () => {
  assert.throws(() => signFilePath('', 'sandbox', KEY, LATER), /secret must not be empty/)
  assert.throws(() => signFilePath(SECRET, 'sandbox', KEY, new Date(Number.NaN)), RangeError)
  assert.throws(() => signFilePath(SECRET, 'sandbox', 'a\nb', LATER), /line feed/)
  assert.equal(checkFilePath(SECRET, 'sandbox', 'a\nb', '1', 'A'.repeat(43), NOW).status, 'invalid')
  assert.throws(() => checkFilePath('', 'sandbox', KEY, '1', 'A'.repeat(43), NOW), /secret must not be empty/)
})

test('a file token names its environment and key, and only printroute can write a valid one', () => {
  const token = fileLinkToken(SECRET, 'live', 'thumbnails/ord 1/item:1.jpg')
  assert.match(token, /^printroute-file:live:thumbnails\/ord%201\/item%3A1\.jpg:[A-Za-z0-9_-]{43}$/)
  assert.deepEqual(readFileLinkToken(SECRET, token), { environment: 'live', key: 'thumbnails/ord 1/item:1.jpg' })
  assert.equal(readFileLinkToken('another-secret', token), undefined)
  // The same token for another key, environment or with extra parts is nothing.
  assert.equal(readFileLinkToken(SECRET, token.replace(':live:', ':sandbox:')), undefined)
  assert.equal(readFileLinkToken(SECRET, token.replace('ord%201', 'ord%202')), undefined)
  assert.equal(readFileLinkToken(SECRET, `${token}:x`), undefined)
  for (const bad of ['printroute-file:', 'printroute-file:live:%:x', 'printroute-file:test:a:b', 'hello']) {
    assert.equal(readFileLinkToken(SECRET, bad), undefined, bad)
  }
})

test('refresh replaces each token in JSON text by a link valid for the lifetime from now, and nothing else', () => {
  let now = NOW
  const links = createFileLinks({
    secret: SECRET,
    baseUrl: (environment) => (environment === 'live' ? 'http://127.0.0.1:8080' : 'http://127.0.0.1:8081'),
    now: () => now,
    ttlSeconds: 3600,
  })
  const thumbnail = links.token('sandbox', KEY)
  const forged = `printroute-file:sandbox:${encodeURIComponent('print-files/ord_9/x.pdf')}:${'A'.repeat(43)}`
  const document = {
    id: 'ord_12',
    items: [{ thumbnailUrl: thumbnail, assets: [{ thumbnailUrl: thumbnail }, { thumbnailUrl: null }] }],
    metadata: { note: forged, quoted: `"${thumbnail}` },
  }
  const json = JSON.stringify(document)
  const refreshed = links.refresh(json)
  const parsed = JSON.parse(refreshed)
  const link = parsed.items[0].thumbnailUrl
  assert.match(link, /^http:\/\/127\.0\.0\.1:8081\/files\/thumbnails\/ord_12\/ast_40\.jpg\?expires=\d+&signature=/)
  assert.equal(parsed.items[0].assets[0].thumbnailUrl, link)
  assert.deepEqual(check(new URL(link).pathname + new URL(link).search, NOW), {
    status: 'valid',
    expiresAt: new Date(NOW.getTime() + 3_600_000),
  })
  // Merchant text is never rewritten: an imitation stays as sent, and so does a token inside other text.
  assert.equal(parsed.metadata.note, forged)
  assert.equal(parsed.metadata.quoted, `"${thumbnail}`)
  // The key order and everything around the links are the text as it was.
  assert.equal(refreshed.replaceAll(link, thumbnail), json)
  assert.equal(links.refresh('{"id":"ord_1","thumbnailUrl":null}'), '{"id":"ord_1","thumbnailUrl":null}')

  // A minute on, the link is made again and reaches a full lifetime from then.
  now = new Date(NOW.getTime() + 61_000)
  const later = JSON.parse(links.refresh(json)).items[0].thumbnailUrl
  assert.equal(new URL(later).searchParams.get('expires'), String((NOW.getTime() + 61_000) / 1000 + 3600))
})

test('a link lifetime must be whole seconds from 1', () => {
  for (const ttlSeconds of [0, -1, 1.5, Number.NaN]) {
    assert.throws(
      () => createFileLinks({ secret: SECRET, baseUrl: () => '', now: () => NOW, ttlSeconds }),
      /lifetime/,
      String(ttlSeconds),
    )
  }
})
