// HTTP/1.1 over a plain TCP socket (node:net), for requests fetch and inject cannot send: a bare `%` in a path,
// a 20 kB request line, an unknown method, a NUL in a header, a body that goes on after the answer.
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'

export interface RawResponse {
  status: number
  /** Header names in lower case. */
  headers: Record<string, string>
  body: string
}

/** Parses one whole response (Content-Length framed, as every printroute answer is) from the bytes received. */
export function parseRawResponse(text: string): RawResponse | undefined {
  const headerEnd = text.indexOf('\r\n\r\n')
  if (headerEnd === -1) return undefined
  const [statusLine = '', ...headerLines] = text.slice(0, headerEnd).split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1])
  const headers: Record<string, string> = {}
  for (const line of headerLines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers['content-length'] ?? 0)
  const body = Buffer.from(text.slice(headerEnd + 4), 'latin1')
  if (body.length < length) return undefined
  return { status, headers, body: body.subarray(0, length).toString('utf8') }
}

export async function openSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return socket
}

/**
 * Sends `request` (the exact bytes: request line, headers, body) and reads the first whole response; the
 * socket is closed afterwards.
 */
export async function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  const socket = await openSocket(port)
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      let received = ''
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1')
        const response = parseRawResponse(received)
        if (response) resolve(response)
      })
      socket.once('error', reject)
      socket.once('close', () => reject(new Error(`closed before a whole answer: ${JSON.stringify(received)}`)))
      socket.write(request)
    })
  } finally {
    socket.destroy()
  }
}

/** A GET with the given path (sent as is) and extra header lines. */
export function rawGet(path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ Host: '127.0.0.1', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`)
  return `GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/

/**
 * The documented error body (docs/errors.md) with `outcome` and `statusCode`, its keys in order, and a
 * `traceparent` header equal to the body's `traceParent`. Returns the parsed body.
 */
export function assertErrorBody(
  response: { status: number; headers: Record<string, unknown>; body: string },
  outcome: string,
  statusCode: number,
): Record<string, any> {
  assert.equal(response.status, statusCode, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8$/)
  const body = JSON.parse(response.body)
  const keys = ['outcome', 'statusText', 'statusCode', ...(body.failures ? ['failures'] : []), 'data', 'traceParent']
  assert.deepEqual(Object.keys(body), keys)
  assert.equal(body.outcome, outcome)
  assert.equal(body.statusCode, statusCode)
  assert.equal(typeof body.statusText, 'string')
  assert.ok(body.statusText.length > 0)
  assert.equal(typeof body.data, 'object')
  assert.match(body.traceParent, TRACEPARENT)
  assert.equal(response.headers.traceparent, body.traceParent)
  return body
}
