// The Host header fuzzed over every answer that carries an absolute URL (the orders' and products' nextUrl,
// sample image URLs, preview file links, the OpenAPI document's servers, the reference page's document, the
// dashboard's redirects): an empty, malformed, oversized or forged Host gets neither a 500 nor itself back in
// the answer; each URL starts with the environment's public URL (here its listening address).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { PHONE_CASE } from '../support/pipeline-driver.ts'
import { rawRequest } from '../support/raw-http.ts'
import { json, listenOnLoopback, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const LONG_HOST = `h${'o'.repeat(3000)}st.example`
/** Host header lines as a client may send them; null: no Host line at all. */
const HOSTS: (string | null)[] = [
  '',
  ' ',
  'a b',
  'zqx zqx',
  '[::1',
  '[::zqx',
  '[evil.example]',
  'evil.example',
  'evil.example:8080',
  'evil.example:99999x',
  'evil.example:-1',
  'EVIL.example.:0',
  '127.0.0.1:abc',
  'evil.example/path?x=1',
  'evil.example\t',
  'user@evil.example',
  '%65vil.example',
  LONG_HOST,
  null,
]
/** What would show a Host came back (spellings that appear nowhere in any answer otherwise). */
const FORGED_MARKS = ['evil', 'EVIL', '%65vil', 'zqx', LONG_HOST.slice(0, 40), '127.0.0.1:abc']

for (const kind of databaseKinds) {
  describe(`absolute URLs never come from the Host header (${kind})`, () => {
    let t: TestApp
    let urls: { live: string; sandbox: string }

    before(async () => {
      t = await startTestApp({ kind })
      urls = await listenOnLoopback(t)
      // Two orders on each side, so both lists have a next page.
      for (const server of ['sandbox', 'live'] as const) {
        for (const reference of ['host-1', 'host-2']) {
          const created = await t[server]({
            method: 'POST',
            url: '/v4.0/orders',
            payload: sampleOrder({ merchantReference: reference }),
          })
          assert.equal(created.statusCode, 200, created.body)
        }
      }
    })
    after(() => t.close())

    /** `method path` on `server` with `host` as its Host line (or none), the account's key and extra headers. */
    const send = (
      server: 'sandbox' | 'live',
      method: string,
      path: string,
      host: string | null,
      options: { body?: string; headers?: Record<string, string>; key?: boolean } = {},
    ) => {
      const key = server === 'sandbox' ? t.account.sandboxKey : t.account.liveKey
      const headers: Record<string, string> = {
        ...(options.key === false ? {} : { 'X-API-Key': key }),
        ...(options.body === undefined
          ? {}
          : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(options.body)) }),
        ...options.headers,
      }
      const lines = [
        `${method} ${path} HTTP/1.1`,
        ...(host === null ? [] : [`Host: ${host}`]),
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        'Connection: close',
      ]
      const port = Number(new URL(urls[server]).port)
      return rawRequest(port, `${lines.join('\r\n')}\r\n\r\n${options.body ?? ''}`)
    }

    const previewBody = (server: 'sandbox' | 'live') =>
      JSON.stringify({
        sku: PHONE_CASE,
        sizing: 'fillPrintArea',
        assets: [{ url: `${urls[server]}/samples/portrait.jpg` }],
      })

    test('every answer that builds a URL, for every Host: no 500, no reflected host, the public URL', async () => {
      let checked = 0
      for (const server of ['sandbox', 'live'] as const) {
        const publicUrl = urls[server]
        const endpoints: {
          method: string
          path: string
          body?: string
          key?: boolean
          urls: (body: any) => string[]
        }[] = [
          { method: 'GET', path: '/v4.0/orders?top=1', urls: (body) => [body.nextUrl] },
          { method: 'GET', path: '//elsewhere.test/v4.0/orders?top=1', urls: () => [] },
          { method: 'GET', path: '/v4.0/products?top=1&search=GLOBAL', urls: (body) => [body.nextUrl] },
          {
            method: 'GET',
            path: '/samples/',
            key: false,
            urls: (body) => body.samples.map((sample: { url: string }) => sample.url),
          },
          {
            method: 'POST',
            path: '/v4.0/previews',
            body: previewBody(server),
            urls: (body) => body.previews.flatMap((made: any) => [made.previewUrl, made.mockupUrl]),
          },
          {
            method: 'GET',
            path: '/v4.0/openapi.json',
            key: false,
            urls: (body) => body.servers.map((entry: { url: string }) => entry.url),
          },
          { method: 'GET', path: '/v4.0/openapi.yaml', key: false, urls: () => [] },
          { method: 'GET', path: '/docs/json', key: false, urls: () => [] },
          { method: 'GET', path: '/docs/', key: false, urls: () => [] },
          { method: 'GET', path: '/dashboard/', key: false, urls: () => [] },
          { method: 'GET', path: '/dashboard/orders?top=1', key: false, urls: () => [] },
          { method: 'GET', path: '/dashboard/sign-in', key: false, urls: () => [] },
          { method: 'GET', path: '/v4.0/orders/ord_999999', urls: () => [] },
        ]
        for (const endpoint of endpoints) {
          for (const host of HOSTS) {
            const where = `${server} ${endpoint.method} ${endpoint.path} with Host ${JSON.stringify(host?.slice(0, 40))}`
            const response = await send(server, endpoint.method, endpoint.path, host, {
              ...(endpoint.body === undefined ? {} : { body: endpoint.body }),
              ...(endpoint.key === undefined ? {} : { key: endpoint.key }),
            })
            assert.ok(response.status < 500, `${where}: ${response.status} ${response.body.slice(0, 300)}`)
            const answer = `${JSON.stringify(response.headers)}\n${response.body}`
            if (host !== null && host.trim() !== '' && !host.startsWith('127.0.0.1:')) {
              for (const mark of FORGED_MARKS) {
                if (host.includes(mark))
                  assert.ok(!answer.includes(mark), `${where}: the host comes back: ${answer.slice(0, 500)}`)
              }
            }
            const location = response.headers.location
            if (location !== undefined) assert.ok(location.startsWith('/'), `${where}: redirects to ${location}`)
            // A missing or unusable Host may be refused (400, with the error body); any other answer is whole.
            if (response.status === 200 && response.headers['content-type']?.startsWith('application/json')) {
              for (const url of endpoint.urls(JSON.parse(response.body))) {
                if (url === null) continue
                assert.ok(
                  url === publicUrl || url.startsWith(`${publicUrl}/`),
                  `${where}: ${url} is not on ${publicUrl}`,
                )
              }
            }
            checked++
          }
        }
      }
      assert.ok(checked > 400, `${checked} answers checked`)
    })

    test('the next page given with a forged Host is the public URL, and it answers', async () => {
      const response = await send(
        'sandbox',
        'GET',
        '/v4.0/orders?top=1&merchantReferences=host-1,host-2',
        'evil.example',
      )
      assert.equal(response.status, 200, response.body)
      const { nextUrl } = JSON.parse(response.body)
      const next = new URL(nextUrl)
      assert.equal(next.origin, urls.sandbox)
      assert.equal(next.searchParams.get('skip'), '1')
      const second = await fetch(nextUrl, { headers: { 'x-api-key': t.account.sandboxKey } })
      assert.equal(second.status, 200)
      assert.equal(((await second.json()) as any).orders.length, 1)
    })

    test('the OpenAPI document opened on another name of the address offers it relatively, never by name', async () => {
      const response = await send('live', 'GET', '/docs/json', 'evil.example', { key: false })
      assert.equal(response.status, 200, response.body)
      const servers = JSON.parse(response.body).servers.map((entry: { url: string }) => entry.url)
      assert.deepEqual(servers, ['/', urls.live])
      const own = await send('live', 'GET', '/docs/json', new URL(urls.live).host, { key: false })
      assert.deepEqual(
        JSON.parse(own.body).servers.map((entry: { url: string }) => entry.url),
        [urls.live],
      )
      const order = json(await t.live({ method: 'GET', url: '/v4.0/orders?top=1' }))
      assert.ok(order.nextUrl.startsWith(urls.live))
    })
  })
}
