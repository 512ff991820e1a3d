import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { createSafeFetcher, DownloadError } from './safe-fetcher.ts'
import { loadSampleImages, sampleNameOf, unknownSampleUrl, withSampleImages } from './sample-images.ts'

tier('pure')

describe('sample images', () => {
  const samples = loadSampleImages()
  let listener: Server
  let connections = 0
  let port: number
  let workDir: string

  before(async () => {
    // Stands where printroute's own address would be: a download that reached the network would show here.
    listener = createServer((_request, response) => response.end('from the network'))
    listener.on('connection', () => connections++)
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    port = (listener.address() as AddressInfo).port
    workDir = mkdtempSync(join(tmpdir(), 'printroute-samples-'))
  })
  after(() => {
    listener.close()
    rmSync(workDir, { recursive: true, force: true })
  })

  test('the bundled samples are JPEG images with their md5', () => {
    const names = samples.list().map((sample) => sample.name)
    assert.deepEqual(names, ['landscape.jpg', 'portrait.jpg', 'square.jpg'])
    for (const sample of samples.list()) {
      assert.deepEqual([...sample.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff])
      assert.equal(sample.md5, createHash('md5').update(sample.bytes).digest('hex'))
    }
  })

  test("only a sample's exact path on printroute's own base URLs is recognised", () => {
    const own = [`http://127.0.0.1:${port}`, 'https://printroute.test']
    assert.equal(sampleNameOf(`http://127.0.0.1:${port}/samples/portrait.jpg`, own), 'portrait.jpg')
    assert.equal(sampleNameOf(`http://localhost:${port}/samples/square.jpg`, own), 'square.jpg')
    assert.equal(sampleNameOf(`http://[::1]:${port}/samples/square.jpg`, own), 'square.jpg')
    assert.equal(sampleNameOf('https://printroute.test/samples/landscape.jpg', own), 'landscape.jpg')
    for (const other of [
      `http://127.0.0.1:${port + 1}/samples/portrait.jpg`, // another port: someone else's server
      `http://127.0.0.1:${port}/samples/portrait.jpg?x=1`,
      `http://127.0.0.1:${port}/samples/../files/portrait.jpg`,
      `http://127.0.0.1:${port}/samples/sub/portrait.jpg`,
      `http://user:pw@127.0.0.1:${port}/samples/portrait.jpg`,
      `https://127.0.0.1:${port}/samples/portrait.jpg`,
      'https://printroute.test.evil/samples/portrait.jpg',
      'not a url',
    ]) {
      assert.equal(sampleNameOf(other, own), null, other)
    }
  })

  test('a sample URL is answered from the bundle without opening a connection; other URLs keep every rule', async () => {
    const fetcher = withSampleImages(createSafeFetcher({ allowPrivateAddresses: false }), samples, () => [
      `http://127.0.0.1:${port}`,
    ])
    try {
      const destination = join(workDir, 'portrait')
      const result = await fetcher.download(`http://127.0.0.1:${port}/samples/portrait.jpg`, destination)
      const expected = samples.get('portrait.jpg')!
      assert.deepEqual(readFileSync(destination), expected.bytes)
      assert.deepEqual(
        { bytes: result.bytes, md5: result.md5, type: result.contentType },
        { bytes: expected.bytes.length, md5: expected.md5, type: 'image/jpeg' },
      )
      await assert.rejects(
        fetcher.download(`http://127.0.0.1:${port}/samples/portrait.jpg`, destination, { expectedMd5: '0'.repeat(32) }),
        (error: unknown) => error instanceof DownloadError && error.code === 'Md5Mismatch',
      )
      // A sample printroute does not have fails at once, naming the samples, and is not looked for on the network.
      await assert.rejects(
        fetcher.download(`http://localhost:${port}/samples/nope.jpg`, destination),
        (error: unknown) =>
          error instanceof DownloadError &&
          error.code === 'UnknownSample' &&
          error.message ===
            'printroute has no sample nope.jpg; its samples are landscape.jpg, portrait.jpg, square.jpg ' +
              '(GET /samples/ lists them)',
      )
      // Anything else on that address is still a private address, refused before connecting.
      await assert.rejects(
        fetcher.download(`http://127.0.0.1:${port}/files/x.jpg`, destination),
        (error: unknown) => error instanceof DownloadError && error.code === 'ForbiddenAddress',
      )
      assert.equal(connections, 0)
    } finally {
      await fetcher.close()
    }
  })

  test('a URL under /samples/ on an own address naming no sample is recognised, with the sample URLs on its origin', () => {
    const own = [`http://127.0.0.1:${port}`, 'https://printroute.test']
    const names = 'landscape.jpg, portrait.jpg, square.jpg'
    assert.deepEqual(unknownSampleUrl(`http://[::1]:${port}/samples/nope.jpg`, samples, own), {
      reason: `printroute has no sample nope.jpg; its samples are ${names} (GET /samples/ lists them)`,
      sampleUrls: ['landscape.jpg', 'portrait.jpg', 'square.jpg'].map((name) => `http://[::1]:${port}/samples/${name}`),
    })
    assert.match(
      unknownSampleUrl('https://printroute.test/samples/Portrait.JPG', samples, own)?.reason ?? '',
      /^printroute has no sample Portrait\.JPG;/,
    )
    assert.match(unknownSampleUrl('https://printroute.test/samples/', samples, own)?.reason ?? '', /no sample \(none\)/)
    assert.match(
      unknownSampleUrl('https://printroute.test/samples/portrait.jpg?w=100', samples, own)?.reason ?? '',
      /^a sample URL takes no query string or user name \(portrait\.jpg\)/,
    )
    for (const notOurs of [
      `http://127.0.0.1:${port}/samples/portrait.jpg`, // a sample: served
      `http://127.0.0.1:${port + 1}/samples/nope.jpg`, // someone else's server
      'https://images.test/samples/nope.jpg',
      `http://127.0.0.1:${port}/files/nope.jpg`,
      'not a url',
    ]) {
      assert.equal(unknownSampleUrl(notOurs, samples, own), null, notOurs)
    }
  })
})
