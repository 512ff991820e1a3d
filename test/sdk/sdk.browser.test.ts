// The SDK in a real browser (headless Chromium): the built modules are served beside a same-origin proxy to a
// Sandbox server (printroute sends no CORS headers, so a web page reaches it through its own origin), and a page
// imports them to quote, to read a refusal as a PrintrouteError, and to verify a signed callback with Web Crypto.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, normalize } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import type { Browser } from 'playwright-core'
import { Webhook } from 'standardwebhooks'
import { acquireBrowser } from '../support/browser.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('browser')

const repository = join(import.meta.dirname, '..', '..')

describe('printroute-client in a browser', () => {
  let t: TestApp
  let browser: Browser
  let releaseBrowser: (() => Promise<void>) | undefined
  let site: Server
  let origin: string
  let built: string

  before(async () => {
    built = mkdtempSync(join(tmpdir(), 'printroute-sdk-browser-'))
    const tsc = join(repository, 'node_modules', 'typescript', 'bin', 'tsc')
    await promisify(execFile)(process.execPath, [tsc, '-p', join(repository, 'sdk'), '--outDir', built])
    t = await startTestApp()
    const sandbox = (await listenOnLoopback(t)).sandbox
    // The merchant's site: a page, the SDK's modules under /sdk/, and /v4.0/ passed on to printroute.
    site = createServer((request, response) => {
      const url = request.url ?? '/'
      if (url === '/') {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>shop</title>')
      } else if (url.startsWith('/sdk/')) {
        const file = normalize(join(built, url.slice('/sdk/'.length)))
        if (!file.startsWith(built)) return void response.writeHead(404).end()
        try {
          response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file))
        } catch {
          response.writeHead(404).end()
        }
      } else if (url.startsWith('/v4.0/')) {
        const chunks: Buffer[] = []
        request.on('data', (chunk: Buffer) => chunks.push(chunk))
        request.on('end', async () => {
          const headers: Record<string, string> = {}
          for (const name of ['x-api-key', 'content-type', 'accept', 'traceparent']) {
            const value = request.headers[name]
            if (typeof value === 'string') headers[name] = value
          }
          const answer = await fetch(`${sandbox}${url}`, {
            method: request.method ?? 'GET',
            headers,
            body: chunks.length > 0 ? Buffer.concat(chunks) : null,
          })
          response
            .writeHead(answer.status, {
              'content-type': answer.headers.get('content-type') ?? 'application/json',
              traceparent: answer.headers.get('traceparent') ?? '',
            })
            .end(Buffer.from(await answer.arrayBuffer()))
        })
      } else {
        response.writeHead(404).end()
      }
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    ;({ browser, release: releaseBrowser } = await acquireBrowser())
  })
  after(async () => {
    await releaseBrowser?.()
    await new Promise((resolve) => site?.close(resolve))
    await t?.close()
    rmSync(built, { recursive: true, force: true })
  })

  test('a page quotes, gets a typed refusal, and verifies a signed callback', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const body = JSON.stringify({ specversion: '1.0', id: 'evt_1', type: 'com.printroute.order.x', data: {} })
    const at = new Date()
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_1', at, body),
    }
    const page = await browser.newPage()
    try {
      await page.goto(`${origin}/`)
      const result = await page.evaluate(
        async ({ apiKey, body, headers, secret }) => {
          const sdk = await import('/sdk/index.js' as string)
          const client = new sdk.PrintrouteClient({ apiKey, baseUrl: (globalThis as any).location.origin })
          const quote = await client.quotes.create({
            destinationCountryCode: 'GB',
            items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'ImageWrap' }, assets: [{}] }],
          })
          const refusal = await client.orders.get('ord_999999').catch((error: any) => error)
          const event = await sdk.verifyCallback(body, new Headers(headers), secret)
          const tampered = await sdk.verifyCallback(`${body} `, headers, secret).then(
            () => 'verified',
            (error: any) => error.name,
          )
          return {
            quote: quote.outcome,
            refusal: [refusal instanceof sdk.PrintrouteError, refusal.outcome, refusal.statusCode],
            event: event.id,
            tampered,
          }
        },
        { apiKey: t.account.sandboxKey, body, headers, secret },
      )
      assert.deepEqual(result, {
        quote: 'Created',
        refusal: [true, 'EntityNotFound', 404],
        event: 'evt_1',
        tampered: 'CallbackVerificationError',
      })
    } finally {
      await page.close()
    }
  })
})
