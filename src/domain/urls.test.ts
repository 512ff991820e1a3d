import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { MAX_URL_LENGTH, unfetchableUrlReason } from './urls.ts'

tier('pure')

test('http(s) URLs with a host are fetchable as given', () => {
  for (const url of [
    'https://images.example.com/canvas.jpg',
    'HTTP://127.0.0.1:8080/a?X-Signature=a%2Fb%2Bc%3D#frag',
    'http://[::1]:9000/a',
    'http://127.0.0.1:1/',
    'http://127.0.0.1:65535',
    'http://host:/default-port',
    `https://a.test/${'x'.repeat(MAX_URL_LENGTH - 'https://a.test/'.length)}`,
  ]) {
    assert.equal(unfetchableUrlReason(url), undefined, url)
  }
})

test('URLs that can never be fetched are refused with the reason', () => {
  for (const [url, reason] of [
    ['http:///a', /no host/],
    ['http://127.0.0.1:99999/a', /port 99999 is outside 1 to 65535/],
    ['http://127.0.0.1:0/a', /port 0 is outside/],
    ['http://127.0.0.1:8o/a', /port "8o" is not a number/],
    ['http://[::1/a', /IPv6 address has no closing \]/],
    ['http://user:secret@127.0.0.1/a', /user name or password/],
    ['http://@127.0.0.1/a', /user name or password/],
    ['ftp://127.0.0.1/a', /scheme must be http or https, not ftp/],
    ['file:///etc/passwd', /not file/],
    ['javascript:alert(1)', /not javascript/],
    ['//127.0.0.1/a', /not an absolute URL/],
    ['http:127.0.0.1/a', /must be followed by \/\//],
    ['http:\\\\127.0.0.1\\a', /must be followed by \/\//],
    ['http://exa mple.com/', /space or a control character/],
    ['http://a.test/\n', /space or a control character/],
    ['http://256.1.1.1/', /not a valid URL/],
    [`https://a.test/${'x'.repeat(MAX_URL_LENGTH)}`, /longer than 2048/],
  ] as const) {
    assert.match(unfetchableUrlReason(url) ?? 'accepted', reason, url)
  }
})
