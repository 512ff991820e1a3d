// Answers that never reach a route, on the real listening servers (both ports, every database backend): paths
// Fastify's router cannot decode, what Node's HTTP parser refuses, bodies over the limit while the client is
// still sending, and requests arriving while the server shuts down. Each must carry the documented error body
// and the traceparent header (docs/errors.md, "Transport errors"). Raw sockets send what fetch cannot.
import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { answerClientError, DRAIN_LIMITS } from '../../src/http/errors.ts'
import { BODY_LIMIT_BYTES } from '../../src/http/server.ts'
import { assertErrorBody, openSocket, parseRawResponse, rawGet, rawRequest } from '../support/raw-http.ts'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

const MiB = 1_048_576

/** Writes `bytes` of filler in 64 KiB pieces, each write acknowledged; rejects on the first socket error. */
async function writeFiller(socket: import('node:net').Socket, bytes: number): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, 'x')
  for (let written = 0; written < bytes; written += piece.length) {
    const chunk = piece.subarray(0, Math.min(piece.length, bytes - written))
    await new Promise<void>((resolve, reject) => socket.write(chunk, (error) => (error ? reject(error) : resolve())))
  }
}

for (const kind of databaseKinds) {
  describe(`transport errors on the listening servers (${kind})`, () => {
    let t: TestApp
    let addresses: { live: string; sandbox: string }

    before(async () => {
      t = await startTestApp({ kind })
      addresses = await listenOnLoopback(t)
    })
    after(async () => {
      await t.close()
    })

    for (const environment of ['live', 'sandbox'] as const) {
      describe(environment, () => {
        const port = () => Number(new URL(addresses[environment]).port)
        const key = () => (environment === 'live' ? t.account.liveKey : t.account.sandboxKey)

        test('a path escape that is not UTF-8 is 400 ValidationFailed naming the path parameter', async () => {
          for (const [path, name, value] of [
            ['/v4.0/orders/%FF', 'orderId', '%FF'],
            ['/v4.0/orders/%', 'orderId', '%'],
            ['/V4.0/Orders/ord_%E0%A4%A', 'orderId', 'ord_%E0%A4%A'],
            ['/v4.0/orders/%C3%28/actions', 'orderId', '%C3%28'],
            ['/v4.0/products/%', 'sku', '%'],
            ['/files/thumbnails/%FF.jpg', 'path', 'thumbnails/%FF.jpg'],
            ['/v4.0/no-such-endpoint/%', 'path', '/v4.0/no-such-endpoint/%'],
          ] as const) {
            const response = await rawRequest(port(), rawGet(path, { 'X-API-Key': key() }))
            const body = assertErrorBody(response, 'ValidationFailed', 400)
            assert.deepEqual(
              body.failures,
              { [name]: [{ code: 'InvalidFormat', providedValue: value, comparisonValue: 'percent-encoded UTF-8' }] },
              path,
            )
          }
        })

        test('an order ID longer than its limit is 400 TooLong naming it, however long', async () => {
          for (const length of [101, 5_000]) {
            const id = 'a'.repeat(length)
            const response = await rawRequest(port(), rawGet(`/v4.0/orders/${id}`, { 'X-API-Key': key() }))
            const body = assertErrorBody(response, 'ValidationFailed', 400)
            assert.deepEqual(body.failures, { orderId: [{ code: 'TooLong', providedValue: id, comparisonValue: 40 }] })
          }
        })

        test('a 20 kB path or 20 kB of headers is 431 RequestHeadersTooLarge with the error body', async () => {
          for (const request of [
            rawGet(`/v4.0/orders/${'a'.repeat(20_000)}`, { 'X-API-Key': key() }),
            rawGet('/v4.0/orders', { 'X-API-Key': key(), 'X-Padding': 'p'.repeat(20_000) }),
          ]) {
            const body = assertErrorBody(await rawRequest(port(), request), 'RequestHeadersTooLarge', 431)
            assert.deepEqual(body.data, { maxHeaderBytes: 16_384 })
          }
        })

        test('a request Node cannot parse is 400 MalformedRequest with the parser reason', async () => {
          for (const [request, reason] of [
            ['BREW /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'HPE_INVALID_METHOD'],
            [`GET /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: a\u0000b\r\n\r\n`, 'HPE_INVALID_HEADER_TOKEN'],
            [
              'POST /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n',
              'HPE_INVALID_CONTENT_LENGTH',
            ],
          ] as const) {
            const body = assertErrorBody(await rawRequest(port(), request), 'MalformedRequest', 400)
            assert.deepEqual(body.data, { reason }, request)
          }
        })

        test('an Expect header other than 100-continue is ignored, not answered with a bare 417', async () => {
          const response = await rawRequest(port(), rawGet('/v4.0/orders', { 'X-API-Key': key(), Expect: 'tea' }))
          assert.equal(response.status, 200)
          assert.equal(JSON.parse(response.body).outcome, 'Ok')
          const unauthorised = await rawRequest(port(), rawGet('/v4.0/orders', { Expect: 'tea' }))
          assertErrorBody(unauthorised, 'Unauthorized', 401)
        })

        test('an oversized body sent by fetch gets the 413 answer every time, with or without a length', async () => {
          for (let attempt = 0; attempt < 25; attempt++) {
            const size = BODY_LIMIT_BYTES + 1 + attempt * 97_003
            const piece = new Uint8Array(64 * 1024).fill(120)
            let sent = 0
            const chunked = new ReadableStream<Uint8Array>({
              pull(controller) {
                if (sent >= size) return controller.close()
                sent += piece.length
                controller.enqueue(piece)
              },
            })
            for (const body of [new Uint8Array(size).fill(120), chunked]) {
              const response = await fetch(`${addresses[environment]}/v4.0/orders`, {
                method: 'POST',
                headers: { 'x-api-key': key(), 'content-type': 'application/json' },
                body,
                duplex: 'half',
              } as RequestInit)
              const answer = {
                status: response.status,
                headers: Object.fromEntries(response.headers),
                body: await response.text(),
              }
              const parsed = assertErrorBody(answer, 'PayloadTooLarge', 413)
              assert.deepEqual(parsed.data, { maxBodyBytes: BODY_LIMIT_BYTES })
            }
          }
        })

        test('after a 413 the rest of the body is read, then the connection is closed', async () => {
          const socket = await openSocket(port())
          const errors: Error[] = []
          socket.on('error', (error) => errors.push(error))
          const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
          let received = ''
          const answered = new Promise<void>((resolve) =>
            socket.on('data', (chunk: Buffer) => {
              received += chunk.toString('latin1')
              if (parseRawResponse(received)) resolve()
            }),
          )
          const size = 3 * MiB
          socket.write(
            `POST /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key()}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
          )
          // The declared length is over the limit: the answer comes before any of the body is sent.
          await answered
          const response = parseRawResponse(received)
          assert.ok(response)
          assertErrorBody(response, 'PayloadTooLarge', 413)
          assert.equal(response.headers.connection, 'close')
          // Closing at once would make these writes fail (EPIPE or ECONNRESET); the server reads them all.
          await writeFiller(socket, size)
          await closed
          assert.deepEqual(errors, [])
        })

        test('a GET with a body just under the limit is answered whole, after its body, and the connection goes on', async () => {
          // openapi.json's answer is larger than the socket buffers: an answer sent while the body still came,
          // on a connection then closed, was cut short by the reset of the unread bytes.
          for (const connection of ['keep-alive', 'close'] as const) {
            const socket = await openSocket(port())
            const errors: Error[] = []
            socket.on('error', (error) => errors.push(error))
            const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
            let received = ''
            socket.on('data', (chunk: Buffer) => {
              received += chunk.toString('latin1')
            })
            const size = BODY_LIMIT_BYTES - 100
            socket.write(
              `GET /v4.0/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key()}\r\nConnection: ${connection}\r\n` +
                `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
            )
            // Sent in pieces, each acknowledged: the server reads them all (a write after a close would fail).
            for (let sent = 0; sent < size; sent += 64 * 1024) {
              await writeFiller(socket, Math.min(64 * 1024, size - sent))
              if (sent + 64 * 1024 < size) assert.equal(received, '', 'no answer before the body has arrived')
            }
            if (connection === 'keep-alive') {
              socket.write(rawGet('/v4.0/orders', { 'X-API-Key': key(), Connection: 'close' }))
            }
            await closed
            assert.deepEqual(errors, [], connection)
            const first = parseRawResponse(received)
            assert.ok(first, `a whole answer (${connection}): ${received.length} bytes`)
            assert.equal(first.status, 200)
            assert.equal(Buffer.byteLength(first.body), Number(first.headers['content-length']))
            assert.equal(JSON.parse(first.body).openapi.slice(0, 2), '3.')
            if (connection === 'keep-alive') {
              const rest = received.slice(received.indexOf('\r\n\r\n') + 4 + Number(first.headers['content-length']))
              const second = parseRawResponse(rest)
              assert.ok(second, 'the next request on the connection is answered')
              assert.equal(second.status, 200, second.body)
            }
          }
        })

        test('a GET with a chunked body past the limit is 413, as any body', async () => {
          const piece = 'x'.repeat(64 * 1024)
          const chunks = Array.from(
            { length: Math.ceil(BODY_LIMIT_BYTES / piece.length) + 1 },
            () => `${piece.length.toString(16)}\r\n${piece}\r\n`,
          )
          const response = await rawRequest(
            port(),
            `GET /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key()}\r\nTransfer-Encoding: chunked\r\n\r\n` +
              `${chunks.join('')}0\r\n\r\n`,
          )
          const body = assertErrorBody(response, 'PayloadTooLarge', 413)
          assert.deepEqual(body.data, { maxBodyBytes: BODY_LIMIT_BYTES })
        })

        test('a body going on far past the drain limit is cut off after its 413', async () => {
          const socket = await openSocket(port())
          socket.on('error', () => {})
          let received = ''
          const answered = new Promise<void>((resolve) =>
            socket.on('data', (chunk: Buffer) => {
              received += chunk.toString('latin1')
              if (parseRawResponse(received)) resolve()
            }),
          )
          const size = 16 * DRAIN_LIMITS.bytes
          socket.write(
            `POST /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key()}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
          )
          await answered
          await assert.rejects(writeFiller(socket, size), 'the server stops reading and closes the connection')
          socket.destroy()
        })
      })
    }
  })

  describe(`a request arriving while the server shuts down (${kind})`, () => {
    let t: TestApp

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    test('is 503 ServiceUnavailable with the error body', async () => {
      const { sandbox } = await listenOnLoopback(t)
      const socket = await openSocket(Number(new URL(sandbox).port))
      let received = ''
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
      })
      const continued = new Promise<void>((resolve) => {
        const check = () => (received.startsWith('HTTP/1.1 100 Continue') ? resolve() : setTimeout(check, 10))
        check()
      })
      // A first request in flight keeps the connection open while the server closes; the second, sent on it
      // once closing has begun, must be refused.
      socket.write(
        'POST /v4.0/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          `X-API-Key: ${t.account.sandboxKey}\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n`,
      )
      await continued
      const closing = t.app.sandbox.close()
      socket.write(`{}${rawGet('/v4.0/orders', { 'X-API-Key': t.account.sandboxKey })}`)
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
      await closed
      await closing
      const responses = received.split(/(?=HTTP\/1\.1 )/).slice(1)
      assert.equal(responses.length, 2, received)
      const last = parseRawResponse(responses[1] ?? '')
      assert.ok(last)
      assertErrorBody(last, 'ServiceUnavailable', 503)
    })
  })
}

describe('a request the client does not finish in time', () => {
  test('is answered 408 RequestTimeout with the error body on the socket', async () => {
    // Node raises ERR_HTTP_REQUEST_TIMEOUT after its 60 s headers timeout, checked every 30 s: too slow for a
    // test, so the handler gets that error on a real connection directly.
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve))
    const clientSide = await openSocket((server.address() as { port: number }).port)
    const serverSide = await accepted
    server.close()
    let received = ''
    clientSide.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
    })
    const closed = new Promise<void>((resolve) => clientSide.once('end', () => resolve()))
    const fastify = { log: { debug() {} }, server: {} } as unknown as FastifyInstance
    const timeout = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })
    answerClientError.call(fastify, timeout, serverSide)
    await closed
    const response = parseRawResponse(received)
    assert.ok(response, received)
    assertErrorBody(response, 'RequestTimeout', 408)
    assert.equal(response.headers.connection, 'close')
    clientSide.destroy()
    serverSide.destroy()
  })
})
