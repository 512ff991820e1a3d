// The safe fetcher's POST (callbacks): the answer's status and the start of its body whatever the status, no
// redirects followed, the same address rules as downloads, and a timeout.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { callbackRefusalMessage, refusal } from './address-policy.ts'
import { createSafeFetcher, DownloadError } from './safe-fetcher.ts'

tier('pure')

let server: Server
let base: string
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = []

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      })
      if (request.url?.startsWith('/slow')) return // never answers
      if (request.url?.startsWith('/redirect')) {
        response.writeHead(302, { location: '/elsewhere' }).end()
        return
      }
      if (request.url?.startsWith('/big')) {
        response.writeHead(200).end('x'.repeat(100_000))
        return
      }
      response
        .writeHead(request.url?.startsWith('/fail') ? 500 : 204)
        .end(request.url?.startsWith('/fail') ? 'boom' : '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
after(() => {
  server.closeAllConnections()
  server.close()
})

test('posts the body and headers to the URL exactly as given, and returns any status with its body', async () => {
  const fetcher = createSafeFetcher({ allowPrivateAddresses: true, userAgent: 'test-agent' })
  try {
    const ok = await fetcher.post(`${base}/hook?token=a%2Fb+c`, '{"a":1}', {
      headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
      timeoutMs: 5000,
    })
    assert.deepEqual({ status: ok.status, body: ok.body }, { status: 204, body: '' })
    const request = seen.at(-1)
    assert.equal(request?.method, 'POST')
    assert.equal(request?.url, '/hook?token=a%2Fb+c')
    assert.equal(request?.body, '{"a":1}')
    assert.equal(request?.headers['webhook-id'], 'evt_1')
    assert.equal(request?.headers['user-agent'], 'test-agent')
    const failed = await fetcher.post(`${base}/fail`, '{}', { headers: {}, timeoutMs: 5000 })
    assert.deepEqual({ status: failed.status, body: failed.body }, { status: 500, body: 'boom' })
    assert.equal(typeof failed.headers.date, 'string', "the answer's headers come back too")
    await fetcher.post(`${base}/put`, '{}', { method: 'PUT', headers: {}, timeoutMs: 5000 })
    assert.equal(seen.at(-1)?.method, 'PUT', 'the method asked for is the one sent')
    const redirect = await fetcher.post(`${base}/redirect`, '{}', { headers: {}, timeoutMs: 5000 })
    assert.equal(redirect.status, 302, 'a redirect is an answer, not followed')
    assert.equal(seen.filter((entry) => entry.url === '/elsewhere').length, 0)
    const big = await fetcher.post(`${base}/big`, '{}', { headers: {}, timeoutMs: 5000, maxResponseBytes: 600 })
    assert.equal(big.body.length, 600)
  } finally {
    await fetcher.close()
  }
})

test('private addresses are refused unless allowed; no answer in time is a Timeout', async () => {
  const strict = createSafeFetcher()
  const lenient = createSafeFetcher({ allowPrivateAddresses: true })
  try {
    const before = seen.length
    await assert.rejects(
      strict.post(`${base}/hook`, '{}', { headers: {}, timeoutMs: 5000 }),
      (error: unknown) =>
        error instanceof DownloadError &&
        error.code === 'ForbiddenAddress' &&
        error.message ===
          '127.0.0.1 is a loopback address; printroute does not call such addresses unless started with ' +
            '--allow-private-urls (meant for local testing); or let printroute listen --forward-to <your URL> ' +
            'deliver the events to your machine',
    )
    assert.equal(seen.length, before, 'nothing reached the server')
    await assert.rejects(
      lenient.post(`${base}/slow`, '{}', { headers: {}, timeoutMs: 300 }),
      (error: unknown) =>
        error instanceof DownloadError && error.code === 'Timeout' && /within 0\.3 s/.test(error.message),
    )
    await assert.rejects(
      lenient.post('ftp://example.com/x', '{}', { headers: {}, timeoutMs: 300 }),
      (error: unknown) => error instanceof DownloadError && error.code === 'InvalidUrl',
    )
  } finally {
    await strict.close()
    await lenient.close()
  }
})

test('a callback refused for an address the flag would not open points at neither the flag nor listen', () => {
  const metadata = refusal('hooks.test', '169.254.169.254', 'a cloud metadata address')
  assert.equal(metadata.allowedByFlag, false)
  assert.equal(
    callbackRefusalMessage(metadata),
    'hooks.test resolves to 169.254.169.254, which is a cloud metadata address; printroute does not call such addresses',
  )
  const privateAddress = refusal('10.0.0.5', '10.0.0.5', 'a private address (RFC 1918)')
  assert.equal(privateAddress.allowedByFlag, true)
  assert.match(callbackRefusalMessage(privateAddress), /--allow-private-urls .*printroute listen --forward-to/)
})
