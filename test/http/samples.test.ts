// The sample images on both ports, open without a key.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadSampleImages } from '../../src/adapters/sample-images.ts'
import { startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

describe('GET /samples/', () => {
  let test_: TestApp
  const bundled = loadSampleImages()

  before(async () => {
    test_ = await startTestApp()
  })
  after(() => test_.close())

  for (const server of ['sandbox', 'live'] as const) {
    test(`${server}: the list names each sample with its URL on this server's public address (whatever the Host), and each is served as JPEG`, async () => {
      const listed = await test_[server](
        { method: 'GET', url: '/samples/', headers: { host: 'printroute.test:8081' } },
        null,
      )
      assert.equal(listed.statusCode, 200)
      const body = listed.json()
      assert.equal(body.outcome, 'Ok')
      assert.match(body.traceParent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
      assert.deepEqual(
        body.samples.map((sample: { url: string }) => sample.url),
        bundled.list().map((sample) => `${test_.app.publicUrl(server)}/samples/${sample.name}`),
      )
      for (const sample of bundled.list()) {
        const image = await test_[server]({ method: 'GET', url: `/samples/${sample.name}` }, null)
        assert.equal(image.statusCode, 200)
        assert.equal(image.headers['content-type'], 'image/jpeg')
        assert.deepEqual(image.rawPayload, sample.bytes)
      }
      const missing = await test_[server]({ method: 'GET', url: '/samples/nope.jpg' }, null)
      assert.equal(missing.statusCode, 404)
      assert.equal(missing.json().outcome, 'EntityNotFound')
    })
  }
})
