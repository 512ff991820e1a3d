// Every server here listens on 127.0.0.1 and every other address is refused before a socket exists: the
// literal-IP check runs before connecting, and host names go through a test `lookup` that never asks DNS.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { LookupAddress } from 'node:dns'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { addressRefusalReason, forbiddenAddressReason } from './address-policy.ts'
import { parseDownloadUrl, resolveRedirect } from './download-url.ts'
import {
  createSafeFetcher,
  DownloadError,
  type DownloadErrorCode,
  type SafeFetcher,
  type SafeFetcherOptions,
} from './safe-fetcher.ts'

tier('pure')

const scratch = await mkdtemp(join(tmpdir(), 'printroute-safe-fetcher-'))
const cleanups: (() => Promise<void>)[] = []
// A tripwire beside the checks under test: every connection the fetcher made must have gone to 127.0.0.1.
const connectedTo = new Set<string>()
const onConnected = (message: unknown) => {
  connectedTo.add(String((message as { socket: Socket }).socket.remoteAddress))
}
diagnosticsChannel.subscribe('undici:client:connected', onConnected)
after(async () => {
  diagnosticsChannel.unsubscribe('undici:client:connected', onConnected)
  for (const cleanup of cleanups.reverse()) await cleanup()
  await rm(scratch, { recursive: true, force: true })
  assert.deepEqual([...connectedTo], ['127.0.0.1'])
})

let fileCounter = 0
function destination(): string {
  return join(scratch, `download-${++fileCounter}`)
}

function fetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const created = createSafeFetcher({ allowPrivateAddresses: true, ...options })
  cleanups.push(() => created.close())
  return created
}

interface TestServer {
  origin: string
  port: number
  /** Request targets exactly as they arrived on the wire. */
  requests: string[]
  connections: number
}

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const state: TestServer = { origin: '', port: 0, requests: [], connections: 0 }
  const server = createServer((request, response) => {
    state.requests.push(request.url ?? '')
    handler(request, response)
  })
  server.on('connection', () => {
    state.connections++
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.port = (server.address() as AddressInfo).port
  state.origin = `http://127.0.0.1:${state.port}`
  cleanups.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return state
}

// Minimal files of each supported type: the signature, then filler.
const FILLER = Buffer.from(Array.from({ length: 4000 }, (_, index) => (index * 31) % 256))
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), FILLER])
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), FILLER])
const TIFF_LE = Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0, 0, 0]), FILLER])
const TIFF_BE = Buffer.concat([Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 0x08]), FILLER])
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0xa8, 0x0f, 0, 0]), Buffer.from('WEBPVP8 '), FILLER])
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), FILLER])
const HTML = Buffer.from(`<!DOCTYPE html><html><body>${'Sign in to continue. '.repeat(200)}</body></html>`)

function md5(buffer: Buffer): string {
  return createHash('md5').update(buffer).digest('hex')
}

async function assertFails(
  promise: Promise<unknown>,
  code: DownloadErrorCode,
  message?: RegExp,
): Promise<DownloadError> {
  let caught: unknown
  await promise.then(
    () => assert.fail(`expected a ${code} failure, got success`),
    (error: unknown) => {
      caught = error
    },
  )
  assert.ok(caught instanceof DownloadError, `expected a DownloadError, got ${String(caught)}`)
  assert.equal(caught.code, code, caught.message)
  if (message) assert.match(caught.message, message)
  return caught
}

/** A lookup standing in for DNS: names map to fixed answers, anything else is not found. */
function fakeDns(answers: Record<string, LookupAddress[]>, calls: string[] = []) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname)
    const answer = answers[hostname]
    if (answer) return answer
    const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
    error.code = 'ENOTFOUND'
    throw error
  }
}

// ---------------------------------------------------------------------------------------------------------
// Address ranges (pure)

test('loopback, private, link-local, metadata, reserved and special addresses are refused', () => {
  const refused: Record<string, RegExp> = {
    '127.0.0.1': /loopback/,
    '127.255.255.254': /loopback/,
    '10.0.0.5': /private/,
    '172.16.0.1': /private/,
    '172.31.255.255': /private/,
    '192.168.1.1': /private/,
    '100.64.0.1': /carrier-grade NAT/,
    '100.127.255.255': /carrier-grade NAT/,
    '100.100.100.200': /carrier-grade NAT/, // Alibaba Cloud metadata
    '169.254.169.254': /cloud metadata/,
    '169.254.0.1': /link-local/,
    '0.0.0.0': /unspecified/,
    '0.1.2.3': /unspecified/,
    '224.0.0.1': /multicast/,
    '239.255.255.250': /multicast/,
    '255.255.255.255': /broadcast/,
    '240.0.0.1': /reserved/,
    '192.0.0.170': /reserved/,
    '192.0.2.1': /documentation/,
    '198.51.100.7': /documentation/,
    '203.0.113.9': /documentation/,
    '198.18.0.1': /benchmarking/,
    '192.88.99.1': /6to4 relay/,
    '::': /unspecified/,
    '::1': /loopback/,
    '0:0:0:0:0:0:0:1': /loopback/,
    'fc00::1': /unique local/,
    'fd12:3456::1': /unique local/,
    'fd00:ec2::254': /cloud metadata/,
    'fe80::1': /link-local/,
    'fe80::1%eth0': /link-local/,
    'febf::1': /link-local/,
    'fec0::1': /site-local/,
    'ff02::1': /multicast/,
    '::ffff:127.0.0.1': /loopback address, as an IPv4-mapped/,
    '::ffff:7f00:1': /loopback address, as an IPv4-mapped/,
    '::ffff:10.1.2.3': /private.*IPv4-mapped/,
    '::ffff:169.254.169.254': /cloud metadata.*IPv4-mapped/,
    '64:ff9b::a9fe:a9fe': /cloud metadata address, through NAT64/,
    '64:ff9b::192.168.0.1': /private.*NAT64/,
    '64:ff9b:1::1': /local-use NAT64/,
    '2002:7f00:1::1': /loopback address, through 6to4/,
    '2002:a9fe:a9fe::': /cloud metadata address, through 6to4/,
    '::127.0.0.1': /reserved/, // IPv4-compatible (deprecated)
    '::2': /reserved/,
    '100::1': /reserved/,
    '2001:db8::1': /documentation/,
    '3fff::1': /documentation/,
    '2001::1': /Teredo/,
    '2001:2::1': /IETF protocol assignments/,
    '4000::1': /reserved/,
    'not-an-ip': /not an IP address/,
    '': /not an IP address/,
  }
  for (const [address, reason] of Object.entries(refused)) {
    assert.match(forbiddenAddressReason(address) ?? 'allowed', reason, address)
  }
})

test('public addresses are allowed, also in their IPv4-mapped, NAT64 and 6to4 forms', () => {
  for (const address of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255', // just below 100.64/10
    '100.128.0.0', // just above
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '192.0.1.1',
    '198.17.255.255',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '2001:200::1', // just above 2001::/23
    '2001:db9::1',
    '3fff:1000::1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]) {
    assert.equal(forbiddenAddressReason(address), null, address)
  }
})

test('with private addresses allowed, cloud metadata addresses stay refused in every spelling', () => {
  for (const address of [
    '169.254.169.254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    'fd00:ec2::254',
    'fd00:ec2:0:0:0:0:0:254',
    'FD00:EC2::254',
  ]) {
    assert.match(addressRefusalReason(address, true) ?? 'allowed', /^a cloud metadata address/, address)
    assert.match(addressRefusalReason(address, false) ?? 'allowed', /^a cloud metadata address/, address)
  }
  for (const address of ['127.0.0.1', '::1', '10.0.0.5', '::ffff:127.0.0.1', '169.254.1.1', 'fd00::1', '8.8.8.8']) {
    assert.equal(addressRefusalReason(address, true), null, address)
  }
  assert.match(addressRefusalReason('127.0.0.1', false) ?? 'allowed', /loopback/)
  assert.match(addressRefusalReason('not-an-ip', true) ?? 'allowed', /not an IP address/)
})

// ---------------------------------------------------------------------------------------------------------
// URLs (pure)

test('URLs are split into origin and request target without re-encoding anything', () => {
  const signed =
    "https://bucket.s3.example.com/a%2Fb/c+d=e;v=1/%7e~'x'?X-Amz-Credential=AKIA%2F20260101%2Fus-east-1" +
    "&X-Amz-Signature=ab%2Bcd%3D%3D&sig=a+b==&q='q'&pipe=|&back=\\x#fragment"
  assert.deepEqual(parseDownloadUrl(signed), {
    origin: 'https://bucket.s3.example.com',
    path:
      "/a%2Fb/c+d=e;v=1/%7e~'x'?X-Amz-Credential=AKIA%2F20260101%2Fus-east-1" +
      "&X-Amz-Signature=ab%2Bcd%3D%3D&sig=a+b==&q='q'&pipe=|&back=\\x",
    host: 'bucket.s3.example.com',
  })
  assert.deepEqual(parseDownloadUrl('HTTP://Images.Example.COM:80'), {
    origin: 'http://images.example.com',
    path: '/',
    host: 'images.example.com',
  })
  assert.equal(parseDownloadUrl('https://h.example:8443?x=1').path, '/?x=1')
  assert.equal(parseDownloadUrl('https://h.example:8443?x=1').host, 'h.example:8443')
  assert.equal(parseDownloadUrl('  https://h.example/x.jpg \n').path, '/x.jpg')
  assert.equal(parseDownloadUrl('http://[::1]:8080/a').origin, 'http://[::1]:8080')
  assert.equal(parseDownloadUrl('http://0x7f.1/a').origin, 'http://127.0.0.1')
})

test('only what an HTTP request line cannot carry is percent-encoded, and path backslashes are slashes', () => {
  assert.equal(
    parseDownloadUrl('https://h.example/caf\u00e9 1.jpg?name=\u00fc ber').path,
    '/caf%C3%A9%201.jpg?name=%C3%BC%20ber',
  )
  assert.equal(parseDownloadUrl('https://h.example\\a\\b.jpg?x=\\').path, '/a/b.jpg?x=\\')
})

test('redirect Locations are resolved against the URL requested, keeping their bytes', () => {
  const from = parseDownloadUrl('https://cdn.example/a/b/c.jpg?sig=x%2Fy')
  const resolve = (location: string) => {
    const target = resolveRedirect(location, from)
    return `${target.origin}${target.path}`
  }
  assert.equal(resolve("d.jpg?X-Sig=ab%2B%3D&q='q'"), "https://cdn.example/a/b/d.jpg?X-Sig=ab%2B%3D&q='q'")
  assert.equal(resolve('./d.jpg'), 'https://cdn.example/a/b/d.jpg')
  assert.equal(resolve('../d.jpg'), 'https://cdn.example/a/d.jpg')
  assert.equal(resolve('../../../../d.jpg'), 'https://cdn.example/d.jpg')
  assert.equal(resolve('..'), 'https://cdn.example/a/')
  assert.equal(resolve('.'), 'https://cdn.example/a/b/')
  assert.equal(resolve('/x%2Fy/z+1.jpg?a=b=='), 'https://cdn.example/x%2Fy/z+1.jpg?a=b==')
  assert.equal(resolve('/x/../y'), 'https://cdn.example/x/../y') // an absolute path is taken as given
  assert.equal(resolve('?sig=new%3D'), 'https://cdn.example/a/b/c.jpg?sig=new%3D')
  assert.equal(resolve(''), 'https://cdn.example/a/b/c.jpg?sig=x%2Fy')
  assert.equal(resolve('#top'), 'https://cdn.example/a/b/c.jpg?sig=x%2Fy')
  assert.equal(resolve('//other.example/p?q=%2F'), 'https://other.example/p?q=%2F')
  assert.equal(resolve('\\\\other.example\\p'), 'https://other.example/p')
  assert.equal(resolve('http://plain.example/p?q=+'), 'http://plain.example/p?q=+')
  assert.equal(resolve('  /spaced.jpg \r\n'), 'https://cdn.example/spaced.jpg')
  assert.throws(
    () => resolve('ftp://files.example/x'),
    (error: unknown) => (error as DownloadError).code === 'InvalidUrl',
  )
  assert.throws(
    () => resolve('//'),
    (error: unknown) => (error as DownloadError).code === 'InvalidUrl',
  )
})

test('URLs that are not absolute http(s) URLs are refused as InvalidUrl', () => {
  const bad: Record<string, RegExp> = {
    '': /empty/,
    '   ': /empty/,
    'images/cat.jpg': /not an absolute URL/,
    '//images.example.com/cat.jpg': /not an absolute URL/,
    'ftp://images.example.com/cat.jpg': /only http and https URLs are downloaded, not ftp:/,
    'file:///etc/passwd': /not file:/,
    'javascript:alert(1)': /not javascript:/,
    'data:image/png;base64,iVBORw0KGgo=': /not data:/,
    'http:/images.example.com/x': /must be followed by \/\//,
    'http:images.example.com/x': /must be followed by \/\//,
    'https://': /not a valid URL/,
    'https://exa mple.com/x': /not a valid URL/,
    'https://[::1/x': /not a valid URL/,
    'https://user:secret@images.example.com/x': /user name or password/,
    'https://images.example.com/a\tb': /control characters/,
    'https://images.example.com/a\nb': /control characters/,
    'https://images.example.com/a\u0000b': /control characters/,
  }
  for (const [url, message] of Object.entries(bad)) {
    assert.throws(
      () => parseDownloadUrl(url),
      (error: unknown) => error instanceof DownloadError && error.code === 'InvalidUrl' && message.test(error.message),
      JSON.stringify(url),
    )
  }
})

// ---------------------------------------------------------------------------------------------------------
// Downloads

test('a download streams the body to the file and reports size, md5, sniffed type and final URL', async () => {
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream' })
    response.end(JPEG)
  })
  const path = destination()
  const result = await fetcher().download(`${server.origin}/cat.jpg#ignored`, path)
  assert.deepEqual(result, {
    bytes: JPEG.length,
    md5: md5(JPEG),
    contentType: 'image/jpeg',
    finalUrl: `${server.origin}/cat.jpg`,
  })
  assert.deepEqual(await readFile(path), JPEG)
  assert.deepEqual(server.requests, ['/cat.jpg'])
})

test('the request target reaches the server byte for byte (signed URLs keep %2F, +, = and quotes)', async () => {
  const server = await serve((_request, response) => response.end(PNG))
  const target =
    "/bucket/a%2Fb/c+d=e;v=1/%7e~'x'?X-Amz-Credential=AKIA%2F20260101%2Fus-east-1&X-Amz-Date=20260101T000000Z" +
    "&X-Amz-Signature=ab%2Bcd%3D%3D&sig=a+b==&empty=&q='q'&dup=1&dup=2&tilde=%7E"
  await fetcher().download(`${server.origin}${target}#frag`, destination())
  await fetcher().download(`${server.origin}/caf\u00e9 1.png?name=\u00fc`, destination())
  assert.deepEqual(server.requests, [target, '/caf%C3%A9%201.png?name=%C3%BC'])
})

test('every supported type is accepted by its bytes, whatever Content-Type the server claims', async () => {
  const files: Record<string, [Buffer, string]> = {
    '/jpeg': [JPEG, 'image/jpeg'],
    '/png': [PNG, 'image/png'],
    '/tiff-le': [TIFF_LE, 'image/tiff'],
    '/tiff-be': [TIFF_BE, 'image/tiff'],
    '/webp': [WEBP, 'image/webp'],
    '/pdf': [PDF, 'application/pdf'],
  }
  const server = await serve((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }) // a lie the sniffing ignores
    response.end(files[request.url ?? '']?.[0])
  })
  const safe = fetcher()
  for (const [path, [content, type]] of Object.entries(files)) {
    const file = destination()
    const result = await safe.download(`${server.origin}${path}`, file)
    assert.equal(result.contentType, type, path)
    assert.deepEqual(await readFile(file), content)
  }
})

test('a body that is not a supported type is refused as UnsupportedContent and its file removed', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/empty') {
      response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '0' })
      response.end()
    } else if (request.url === '/short') {
      response.end(Buffer.from('GIF'))
    } else if (request.url === '/gif') {
      response.writeHead(200, { 'content-type': 'image/gif' })
      response.end(Buffer.concat([Buffer.from('GIF89a'), FILLER]))
    } else {
      response.writeHead(200, { 'content-type': 'image/jpeg' })
      response.end(HTML)
    }
  })
  const safe = fetcher()
  const html = destination()
  await assertFails(
    safe.download(`${server.origin}/login`, html),
    'UnsupportedContent',
    /^the file from 127\.0\.0\.1:\d+ is not a JPEG, PNG, TIFF, WebP or PDF file \(the server called it image\/jpeg\)$/,
  )
  assert.equal(existsSync(html), false)
  await assertFails(safe.download(`${server.origin}/gif`, destination()), 'UnsupportedContent', /called it image\/gif/)
  await assertFails(safe.download(`${server.origin}/short`, destination()), 'UnsupportedContent', /no Content-Type/)
  const empty = destination()
  await assertFails(safe.download(`${server.origin}/empty`, empty), 'UnsupportedContent', /sent an empty body$/)
  assert.equal(existsSync(empty), false)
})

test('an unsupported body is refused from its first bytes, without downloading the rest', async () => {
  let finished = false
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.write('<!DOCTYPE html>')
    const timer = setInterval(() => response.write(HTML), 20) // would go on for a long time
    const stop = setTimeout(() => {
      clearInterval(timer)
      finished = true
      response.end()
    }, 5000)
    response.on('close', () => {
      clearInterval(timer)
      clearTimeout(stop)
    })
  })
  const started = Date.now()
  await assertFails(fetcher().download(`${server.origin}/page`, destination()), 'UnsupportedContent')
  assert.ok(Date.now() - started < 2000)
  assert.equal(finished, false)
})

test('a non-2xx status fails as HttpStatus with the status in the message', async () => {
  const server = await serve((request, response) => {
    const status = Number(request.url?.slice(1))
    response.writeHead(status, { 'content-type': 'text/plain' })
    response.end('nope')
  })
  const safe = fetcher()
  const host = `127.0.0.1:${server.port}`
  for (const status of [404, 403, 500, 503, 304, 300]) {
    const path = destination()
    const error = await assertFails(safe.download(`${server.origin}/${status}`, path), 'HttpStatus')
    assert.equal(error.message, `HTTP ${status} from ${host}`)
    assert.equal(error.status, status)
    assert.equal(existsSync(path), false)
  }
})

test('redirects are followed up to 3, with relative Locations resolved and the target kept byte for byte', async () => {
  // /r/<n> redirects n times before the file: absolute URL, relative path, absolute path, then the file.
  const server = await serve((request, response) => {
    const url = request.url ?? ''
    if (url.startsWith('/r/4')) response.writeHead(302, { location: `http://127.0.0.1:${server.port}/r/3` })
    else if (url.startsWith('/r/3')) response.writeHead(301, { location: `http://127.0.0.1:${server.port}/r/2` })
    else if (url.startsWith('/r/2')) response.writeHead(307, { location: './sub/../1?sig=a%2Fb+c==' })
    else if (url.startsWith('/r/1')) response.writeHead(308, { location: "/files/x%2Fy.jpg?X-Sig=ab%2B%3D&q='q'" })
    else if (url.startsWith('/files/')) response.writeHead(200, { 'content-type': 'image/jpeg' })
    else response.writeHead(404)
    response.end(url.startsWith('/files/') ? JPEG : undefined)
  })
  const result = await fetcher().download(`${server.origin}/r/3`, destination())
  assert.equal(result.finalUrl, `${server.origin}/files/x%2Fy.jpg?X-Sig=ab%2B%3D&q='q'`)
  assert.equal(result.contentType, 'image/jpeg')
  assert.deepEqual(server.requests, ['/r/3', '/r/2', '/r/1?sig=a%2Fb+c==', "/files/x%2Fy.jpg?X-Sig=ab%2B%3D&q='q'"])

  const path = destination()
  await assertFails(
    fetcher().download(`${server.origin}/r/4`, path),
    'TooManyRedirects',
    /^more than 3 redirects \(the last from 127\.0\.0\.1:\d+\)$/,
  )
  assert.equal(existsSync(path), false)
  assert.equal(server.requests.length, 4 + 4) // the fourth redirect is not followed
})

test('303 redirects are followed too, and a redirect without Location is an HttpStatus failure', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/see-other') response.writeHead(303, { location: '/file' })
    else if (request.url === '/nowhere') response.writeHead(302)
    else response.writeHead(200)
    response.end(request.url === '/file' ? PDF : undefined)
  })
  assert.equal((await fetcher().download(`${server.origin}/see-other`, destination())).contentType, 'application/pdf')
  await assertFails(
    fetcher().download(`${server.origin}/nowhere`, destination()),
    'HttpStatus',
    /^HTTP 302 without a Location from 127\.0\.0\.1:\d+$/,
  )
})

test('a redirect to a scheme other than http(s) is refused as InvalidUrl', async () => {
  const server = await serve((request, response) => {
    response.writeHead(302, { location: request.url === '/ftp' ? 'ftp://files.example/x.jpg' : 'file:///etc/passwd' })
    response.end()
  })
  await assertFails(fetcher().download(`${server.origin}/ftp`, destination()), 'InvalidUrl', /not ftp:/)
  await assertFails(fetcher().download(`${server.origin}/file`, destination()), 'InvalidUrl', /not file:/)
})

test('invalid URLs fail as InvalidUrl before any connection', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  for (const url of [`ftp://127.0.0.1:${server.port}/x`, 'not a url', `http://u:p@127.0.0.1:${server.port}/x`]) {
    await assertFails(fetcher().download(url, destination()), 'InvalidUrl')
  }
  assert.equal(server.connections, 0)
})

// ---------------------------------------------------------------------------------------------------------
// Address checks at connect time

test('with the address check on, a literal loopback address is refused before connecting', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  const path = destination()
  await assertFails(
    fetcher({ allowPrivateAddresses: false }).download(`${server.origin}/x.jpg`, path),
    'ForbiddenAddress',
    /^127\.0\.0\.1 is a loopback address; printroute does not download from such addresses unless started with --allow-private-urls \(meant for local testing\)$/,
  )
  for (const url of [
    `http://[::1]:${server.port}/x.jpg`,
    `http://[::ffff:127.0.0.1]:${server.port}/x.jpg`,
    `http://0x7f.1:${server.port}/x.jpg`,
    `http://2130706433:${server.port}/x.jpg`,
    `http://0.0.0.0:${server.port}/x.jpg`,
  ]) {
    await assertFails(fetcher({ allowPrivateAddresses: false }).download(url, destination()), 'ForbiddenAddress')
  }
  assert.equal(server.connections, 0)
  assert.equal(existsSync(path), false)
})

test('with the address check on, a host name resolving to a forbidden address is refused at connect time', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  const calls: string[] = []
  const safe = fetcher({
    allowPrivateAddresses: false,
    lookup: fakeDns(
      {
        'images.test': [{ address: '127.0.0.1', family: 4 }],
        'intranet.test': [{ address: '10.0.0.5', family: 4 }],
        'v6.test': [{ address: 'fd00::5', family: 6 }],
      },
      calls,
    ),
  })
  await assertFails(
    safe.download(`http://images.test:${server.port}/x.jpg`, destination()),
    'ForbiddenAddress',
    /^images\.test resolves to 127\.0\.0\.1, which is a loopback address; printroute does not download from such addresses unless started with --allow-private-urls/,
  )
  await assertFails(
    safe.download(`http://intranet.test:${server.port}/x.jpg`, destination()),
    'ForbiddenAddress',
    /^intranet\.test resolves to 10\.0\.0\.5, which is a private address \(RFC 1918\)/,
  )
  await assertFails(
    safe.download(`https://v6.test/x.jpg`, destination()),
    'ForbiddenAddress',
    /v6\.test resolves to fd00::5, which is a private address \(IPv6 unique local/,
  )
  assert.deepEqual(calls, ['images.test', 'intranet.test', 'v6.test'])
  assert.equal(server.connections, 0)
})

test('the system resolver is checked as well: localhost is refused', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  await assertFails(
    fetcher({ allowPrivateAddresses: false }).download(`http://localhost:${server.port}/x.jpg`, destination()),
    'ForbiddenAddress',
    /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
  )
  assert.equal(server.connections, 0)
})

test('one forbidden address among several refuses the host, even the allowed ones are not tried', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  const safe = fetcher({
    allowPrivateAddresses: true,
    lookup: fakeDns({
      'mixed.test': [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    }),
  })
  await assertFails(
    safe.download(`http://mixed.test:${server.port}/x.jpg`, destination()),
    'ForbiddenAddress',
    /mixed\.test resolves to 169\.254\.169\.254, which is a cloud metadata address/,
  )
  assert.equal(server.connections, 0)
})

test('allowPrivateAddresses lets a host name reach 127.0.0.1, looked up on each connection', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  const calls: string[] = []
  const safe = fetcher({
    allowPrivateAddresses: true,
    lookup: fakeDns({ 'assets.test': [{ address: '127.0.0.1', family: 4 }] }, calls),
  })
  const result = await safe.download(`http://assets.test:${server.port}/x.jpg`, destination())
  assert.equal(result.finalUrl, `http://assets.test:${server.port}/x.jpg`)
  assert.deepEqual(calls, ['assets.test'])
})

test('every redirect hop is checked: a redirect to a metadata address is refused, by name or literal', async () => {
  const server = await serve((request, response) => {
    const locations: Record<string, string> = {
      '/by-name': 'http://metadata.test/latest/meta-data/iam/security-credentials/',
      '/literal-v4': 'http://169.254.169.254/latest/meta-data/',
      '/literal-v6': 'http://[fd00:ec2::254]/latest/meta-data/',
      '/mapped': 'http://[::ffff:169.254.169.254]/latest/meta-data/',
      '/nat64': 'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      '/gcp': 'http://metadata.google.internal.test/computeMetadata/v1/',
    }
    response.writeHead(302, { location: locations[request.url ?? ''] ?? '/' })
    response.end()
  })
  const calls: string[] = []
  // Even with private addresses allowed (local testing), cloud metadata addresses stay refused.
  const safe = fetcher({
    allowPrivateAddresses: true,
    lookup: fakeDns(
      {
        'metadata.test': [{ address: '169.254.169.254', family: 4 }],
        'metadata.google.internal.test': [{ address: '169.254.169.254', family: 4 }],
      },
      calls,
    ),
  })
  await assertFails(
    safe.download(`${server.origin}/by-name`, destination()),
    'ForbiddenAddress',
    /^metadata\.test resolves to 169\.254\.169\.254, which is a cloud metadata address/,
  )
  await assertFails(
    safe.download(`${server.origin}/literal-v4`, destination()),
    'ForbiddenAddress',
    // The flag would not open it, so the refusal does not point at the flag.
    /^169\.254\.169\.254 is a cloud metadata address; printroute does not download from such addresses$/,
  )
  await assertFails(
    safe.download(`${server.origin}/literal-v6`, destination()),
    'ForbiddenAddress',
    /^fd00:ec2::254 is a cloud metadata address/,
  )
  await assertFails(safe.download(`${server.origin}/mapped`, destination()), 'ForbiddenAddress', /IPv4-mapped/)
  await assertFails(safe.download(`${server.origin}/nat64`, destination()), 'ForbiddenAddress', /NAT64/)
  await assertFails(safe.download(`${server.origin}/gcp`, destination()), 'ForbiddenAddress', /cloud metadata/)
  assert.deepEqual(calls, ['metadata.test', 'metadata.google.internal.test'])
})

// ---------------------------------------------------------------------------------------------------------
// Timeouts, size, md5, network

test('a server that never answers fails as Timeout after the total timeout, and the file is removed', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/trickle') {
      response.writeHead(200, { 'content-type': 'image/jpeg' })
      response.write(JPEG.subarray(0, 100)) // then nothing more
    }
    // '/silent': no answer at all
  })
  const safe = fetcher({ totalTimeoutMs: 300 })
  const started = Date.now()
  await assertFails(
    safe.download(`${server.origin}/silent`, destination()),
    'Timeout',
    /^the download from 127\.0\.0\.1:\d+ did not finish within 0\.3 s$/,
  )
  const path = destination()
  await assertFails(safe.download(`${server.origin}/trickle`, path), 'Timeout', /did not finish within 0\.3 s/)
  assert.ok(Date.now() - started < 3000)
  assert.equal(existsSync(path), false)
})

test('the total timeout covers redirects and slow bodies together', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/slow-redirect') {
      setTimeout(() => {
        response.writeHead(302, { location: '/slow-body' })
        response.end()
      }, 200)
    } else {
      response.writeHead(200, { 'content-type': 'image/png' })
      response.write(PNG.subarray(0, 100))
      setTimeout(() => response.end(PNG.subarray(100)), 200)
    }
  })
  await assertFails(
    fetcher({ totalTimeoutMs: 300 }).download(`${server.origin}/slow-redirect`, destination()),
    'Timeout',
  )
  assert.equal(
    (await fetcher({ totalTimeoutMs: 2000 }).download(`${server.origin}/slow-redirect`, destination())).bytes,
    PNG.length,
  )
})

test('a connection that does not complete (TLS handshake never answered) fails as Timeout after the connect timeout', async () => {
  const sockets = new Set<Socket>()
  const silent = createTcpServer((socket) => {
    sockets.add(socket) // accepts the TCP connection, then never speaks TLS
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  })
  const port = (silent.address() as AddressInfo).port
  const started = Date.now()
  await assertFails(
    fetcher({ connectTimeoutMs: 200, totalTimeoutMs: 5000 }).download(`https://127.0.0.1:${port}/x.jpg`, destination()),
    'Timeout',
    new RegExp(`^no connection to 127\\.0\\.0\\.1:${port} within 0\\.2 s$`),
  )
  assert.ok(Date.now() - started < 2000)
})

test('a Content-Length above the cap is refused before reading the body', async () => {
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(300 * 1024 * 1024) })
    response.write(JPEG) // and then never more: the fetcher must not wait for it
  })
  const path = destination()
  await assertFails(
    fetcher({ totalTimeoutMs: 5000 }).download(`${server.origin}/huge.jpg`, path),
    'TooLarge',
    /^127\.0\.0\.1:\d+ announced 300 MiB, more than the 200 MiB limit$/,
  )
  assert.equal(existsSync(path), false)
})

test('a chunked body growing past the cap is refused as it arrives, and its file removed', async () => {
  let sent = 0
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/jpeg' }) // no Content-Length: chunked
    response.write(JPEG.subarray(0, 1000))
    sent = 1000
    const timer = setInterval(() => {
      response.write(FILLER.subarray(0, 1000))
      sent += 1000
      if (sent >= 100_000) {
        clearInterval(timer)
        response.end()
      }
    }, 2)
    response.on('close', () => clearInterval(timer))
  })
  const path = destination()
  await assertFails(
    fetcher({ maxBytes: 5000 }).download(`${server.origin}/endless.jpg`, path),
    'TooLarge',
    /^127\.0\.0\.1:\d+ sent more than the 4\.9 KiB limit$/,
  )
  assert.equal(existsSync(path), false)
  assert.ok(sent < 100_000, 'the download stopped early')
})

test('a body exactly at the cap is accepted', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/chunked') response.write(JPEG)
    response.end(request.url === '/chunked' ? undefined : JPEG)
  })
  const safe = fetcher({ maxBytes: JPEG.length })
  assert.equal((await safe.download(`${server.origin}/sized`, destination())).bytes, JPEG.length)
  assert.equal((await safe.download(`${server.origin}/chunked`, destination())).bytes, JPEG.length)
  await assertFails(
    fetcher({ maxBytes: JPEG.length - 1 }).download(`${server.origin}/sized`, destination()),
    'TooLarge',
  )
})

test('the md5 is checked when expected, in any case, and a mismatch removes the file', async () => {
  const server = await serve((_request, response) => response.end(TIFF_BE))
  const safe = fetcher()
  const good = await safe.download(`${server.origin}/a.tif`, destination(), { expectedMd5: md5(TIFF_BE).toUpperCase() })
  assert.equal(good.md5, md5(TIFF_BE))
  assert.equal((await safe.download(`${server.origin}/a.tif`, destination(), { expectedMd5: null })).md5, md5(TIFF_BE))

  const path = destination()
  const wrong = 'D41D8CD98F00B204E9800998ECF8427E'
  await assertFails(
    safe.download(`${server.origin}/a.tif`, path, { expectedMd5: wrong }),
    'Md5Mismatch',
    new RegExp(`^md5 mismatch: expected d41d8cd98f00b204e9800998ecf8427e, got ${md5(TIFF_BE)}$`),
  )
  assert.equal(existsSync(path), false)
})

test('an expected md5 that is not 32 hex digits fails before downloading', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  for (const bad of ['', 'abc', `${md5(JPEG)}0`, 'g'.repeat(32)]) {
    await assertFails(
      fetcher().download(`${server.origin}/x`, destination(), { expectedMd5: bad }),
      'Md5Mismatch',
      /is not 32 hexadecimal digits/,
    )
  }
  assert.equal(server.connections, 0)
})

test('refused connections, lost connections and unknown hosts fail as Network', async () => {
  const closed = createTcpServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const closedPort = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  await assertFails(
    fetcher().download(`http://127.0.0.1:${closedPort}/x.jpg`, destination()),
    'Network',
    new RegExp(`^could not download from 127\\.0\\.0\\.1:${closedPort}: connection refused \\(ECONNREFUSED\\)$`),
  )

  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(JPEG.length) })
    response.write(JPEG.subarray(0, 2000), () => response.socket?.destroy())
  })
  const path = destination()
  await assertFails(fetcher().download(`${server.origin}/cut.jpg`, path), 'Network', /^could not download from/)
  assert.equal(existsSync(path), false)

  await assertFails(
    fetcher({ lookup: fakeDns({}) }).download('https://no-such-host.test/x.jpg', destination()),
    'Network',
    /^could not download from no-such-host\.test: host not found \(ENOTFOUND\)$/,
  )
})

test('a destination that cannot be written is an ordinary error, not a download failure', async () => {
  const server = await serve((_request, response) => response.end(JPEG))
  await assert.rejects(
    fetcher().download(`${server.origin}/x.jpg`, join(scratch, 'missing-dir', 'file')),
    (error: unknown) => !(error instanceof DownloadError) && (error as NodeJS.ErrnoException).code === 'ENOENT',
  )
})

test('an existing file at the destination is replaced on success and removed on failure', async () => {
  const server = await serve((request, response) => {
    if (request.url === '/bad') response.writeHead(500)
    response.end(request.url === '/bad' ? undefined : PNG)
  })
  const path = destination()
  await writeFile(path, 'old content that is longer than nothing')
  await fetcher().download(`${server.origin}/good`, path)
  assert.deepEqual(await readFile(path), PNG)
  await writeFile(path, 'stale')
  const html = await serve((_request, response) => response.end(HTML))
  await assertFails(fetcher().download(`${html.origin}/x`, path), 'UnsupportedContent')
  assert.equal(existsSync(path), false)
})

test('options are validated when the fetcher is created', () => {
  assert.throws(() => createSafeFetcher({ maxBytes: 0 }), /maxBytes must be a positive integer/)
  assert.throws(() => createSafeFetcher({ connectTimeoutMs: -1 }), /connectTimeoutMs/)
  assert.throws(() => createSafeFetcher({ totalTimeoutMs: 1.5 }), /totalTimeoutMs/)
})
