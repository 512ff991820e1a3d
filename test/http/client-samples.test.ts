// The sample orders of four public Prodigi client libraries (test/http/client-samples/*.json, each naming the
// library it mimics and what it changed), created in the default address mode: each answers Created, what those
// clients take for success (prodigi.rb returns nil and effect-prodigi fails on anything else, so a merchant would
// believe an order made had failed, and a retry without an idempotency key would make a second one). Problems that
// do not stop delivery (the phone an Overnight courier asks for) are advisories on the order, never the outcome.
// Two samples as published have an address no carrier can deliver to; those still answer CreatedWithIssues.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { type ImageServer, startImageServer } from '../support/image-server.ts'
import { json, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('http')

interface ClientSample {
  mimics: string
  changed?: string
  /** The address field the library's own sample has wrong, its value there, and the problem it is. */
  blockingWhenPublished?: { field: string; value: string | null; code: string }
  order: Record<string, any>
}

const SAMPLES_DIR = new URL('./client-samples/', import.meta.url)
const samples = readdirSync(SAMPLES_DIR)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name, sample: JSON.parse(readFileSync(new URL(name, SAMPLES_DIR), 'utf8')) as ClientSample }))

/** The sample's order with its asset URLs on the loopback image server. */
function orderOf(sample: ClientSample, imagesUrl: (name: string) => string): Record<string, any> {
  return JSON.parse(JSON.stringify(sample.order).replaceAll('{{images}}/', imagesUrl('')))
}

test('the four client samples are there, each naming the library it mimics', () => {
  assert.deepEqual(
    samples.map(({ name }) => name),
    ['effect-prodigi.json', 'prodigi-java-sdk.json', 'prodigi-print-api.json', 'prodigi-rb.json'],
  )
  for (const { sample } of samples) assert.match(sample.mimics, /github\.com\//)
})

for (const kind of databaseKinds) {
  describe(`Prodigi client samples (${kind})`, () => {
    let t: TestApp
    let images: ImageServer
    before(async () => {
      t = await startTestApp({ kind })
      images = await startImageServer()
    })
    after(async () => {
      await t.close()
      await images.close()
    })

    for (const { name, sample } of samples) {
      test(`${name}: Created, with no issue`, async () => {
        const response = await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: orderOf(sample, images.url) })
        assert.equal(response.statusCode, 200, response.body)
        const body = json(response)
        assert.equal(body.outcome, 'Created', response.body)
        assert.deepEqual(body.order.status.issues, [])
        for (const advisory of body.order.addressAdvisories ?? []) {
          assert.ok(['PhoneNumberRequired', 'TooLong'].includes(advisory.code), JSON.stringify(advisory))
        }
      })
    }

    test('prodigi.rb: Overnight without a phone number is Created, the courier asking for one an advisory', async () => {
      const sample = samples.find(({ name }) => name === 'prodigi-rb.json')?.sample as ClientSample
      const body = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: orderOf(sample, images.url) }))
      assert.equal(body.outcome, 'Created')
      assert.deepEqual(
        body.order.addressAdvisories.map((advisory: { field: string; code: string }) => [
          advisory.field,
          advisory.code,
        ]),
        [['recipient.phoneNumber', 'PhoneNumberRequired']],
      )
    })

    for (const { name, sample } of samples.filter((entry) => entry.sample.blockingWhenPublished)) {
      test(`${name} as the library publishes it: an undeliverable address is still CreatedWithIssues`, async () => {
        const published = sample.blockingWhenPublished as NonNullable<ClientSample['blockingWhenPublished']>
        const order = orderOf(sample, images.url)
        order.recipient.address[published.field] = published.value
        const body = json(await t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: order }))
        assert.equal(body.outcome, 'CreatedWithIssues')
        assert.deepEqual(
          body.order.status.issues.map((issue: { errorCode: string }) => issue.errorCode),
          ['order.recipient.AddressUnverified'],
        )
        assert.match(
          body.order.status.issues[0].description,
          new RegExp(`recipient\\.address\\.${published.field} \\(${published.code}\\)`),
        )
      })
    }
  })
}
