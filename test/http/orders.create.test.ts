// POST /v4.0/orders through HTTP on every database backend: the created order document (key order, nulls,
// IDs, initial statuses, canonical spellings, branding, metadata) and the validation failures of
// docs/wire-contract.md#errors and docs/wire-contract.md#orders-and-the-pause-window. Nothing here may ever answer 500.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { json, sampleOrder, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

const databaseKinds = tier('sql')

const ORDER_KEYS = [
  'id',
  'created',
  'lastUpdated',
  'callbackUrl',
  'merchantReference',
  'shippingMethod',
  'idempotencyKey',
  'status',
  'charges',
  'shipments',
  'recipient',
  'branding',
  'items',
  'packingSlip',
  'metadata',
]
const ITEM_KEYS = [
  'id',
  'status',
  'merchantReference',
  'sku',
  'copies',
  'sizing',
  'thumbnailUrl',
  'recipientCost',
  'attributes',
  'assets',
]
const ASSET_KEYS = ['id', 'printArea', 'url', 'thumbnailUrl', 'md5Hash', 'pageCount', 'status']
const RECIPIENT_KEYS = ['name', 'email', 'phoneNumber', 'address']
const ADDRESS_KEYS = ['line1', 'line2', 'postalOrZipCode', 'countryCode', 'townOrCity', 'stateOrCounty']
const SPEC_BRANDING_KEYS = [
  'postcard',
  'flyer',
  'packing_slip_bw',
  'packing_slip_colour',
  'sticker_exterior_round',
  'sticker_exterior_rectangle',
  'sticker_interior_round',
  'sticker_interior_rectangle',
]

const TEE_COLOURS = [
  'black',
  'white',
  'navy blue',
  'asphalt',
  'dark heather grey',
  'athletic grey heather',
  'natural',
  'cream',
]
const TEE_SIZES = ['xs', 's', 'm', 'l', 'xl', '2xl', '3xl', '4xl']
const CANVAS_WRAPS = ['Black', 'ImageWrap', 'MirrorWrap', 'White']

/** A bare recipient: only the required fields. */
const minimalRecipient = {
  name: 'Grace Hopper',
  address: { line1: '1 Harbour Road', postalOrZipCode: 'BS1 4DJ', countryCode: 'GB', townOrCity: 'Bristol' },
}

function teeItem(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sku: 'GLOBAL-TEE-BC-3001',
    copies: 1,
    sizing: 'fillPrintArea',
    attributes: { color: 'black', size: 'm' },
    assets: [{ printArea: 'front', url: 'https://images.example.com/front.png' }],
    ...overrides,
  }
}

function canvasItem(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sku: 'GLOBAL-CAN-10x10',
    copies: 1,
    sizing: 'fillPrintArea',
    attributes: { wrap: 'ImageWrap' },
    assets: [{ printArea: 'default', url: 'https://images.example.com/canvas.jpg' }],
    ...overrides,
  }
}

function numberOf(id: string, prefix: string): number {
  assert.match(id, new RegExp(`^${prefix}_\\d+$`))
  return Number(id.slice(prefix.length + 1))
}

/** Asserts a 400 ValidationFailed answer and returns its failures. */
interface Failure {
  code: string
  providedValue?: unknown
  comparisonValue?: unknown
  validValues?: unknown[]
  missingItems?: unknown
}

function failuresOf(response: LightMyRequestResponse): Record<string, Failure[]> {
  assert.equal(response.statusCode, 400, response.body)
  const body = json(response)
  assert.equal(body.outcome, 'ValidationFailed')
  assert.equal(body.statusCode, 400)
  return body.failures
}

for (const kind of databaseKinds) {
  describe(`create order (${kind})`, () => {
    let t: TestApp
    const create = (payload: unknown, key?: string) =>
      t.sandbox({ method: 'POST', url: '/v4.0/orders', payload: payload as Record<string, unknown> }, key)

    before(async () => {
      t = await startTestApp({ kind })
    })
    after(async () => {
      await t.close()
    })

    describe('the created order', () => {
      test('answers HTTP 200 with outcome Created and the order in the specification key order', async () => {
        const response = await create(sampleOrder())
        assert.equal(response.statusCode, 200)
        const body = json(response)
        assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
        assert.equal(body.outcome, 'Created')
        assert.equal(body.traceParent, response.headers.traceparent)
        assert.deepEqual(Object.keys(body.order), ORDER_KEYS)
        assert.deepEqual(Object.keys(body.order.items[0]), ITEM_KEYS)
        assert.deepEqual(Object.keys(body.order.items[0].assets[0]), ASSET_KEYS)
        assert.deepEqual(Object.keys(body.order.recipient), RECIPIENT_KEYS)
        assert.deepEqual(Object.keys(body.order.recipient.address), ADDRESS_KEYS)
        assert.deepEqual(Object.keys(body.order.status), ['stage', 'details', 'issues'])
      })

      test('every nullable key is present as null when not sent', async () => {
        const response = await create({
          shippingMethod: 'Budget',
          recipient: minimalRecipient,
          items: [
            {
              sku: 'GLOBAL-CAN-10x10',
              copies: 1,
              sizing: 'fitPrintArea',
              attributes: { wrap: 'White' },
              assets: [{ url: 'https://images.example.com/c.jpg' }],
            },
          ],
        })
        assert.equal(response.statusCode, 200)
        const order = json(response).order
        assert.deepEqual(Object.keys(order), ORDER_KEYS)
        for (const key of [
          'callbackUrl',
          'merchantReference',
          'idempotencyKey',
          'branding',
          'packingSlip',
          'metadata',
        ]) {
          assert.equal(order[key], null, key)
        }
        assert.deepEqual(order.recipient, {
          name: 'Grace Hopper',
          email: null,
          phoneNumber: null,
          address: {
            line1: '1 Harbour Road',
            line2: null,
            postalOrZipCode: 'BS1 4DJ',
            countryCode: 'GB',
            townOrCity: 'Bristol',
            stateOrCounty: null,
          },
        })
        assert.deepEqual(Object.keys(order.recipient.address), ADDRESS_KEYS)
        const item = order.items[0]
        assert.deepEqual(Object.keys(item), ITEM_KEYS)
        assert.equal(item.merchantReference, null)
        assert.equal(item.recipientCost, null)
        assert.equal(item.thumbnailUrl, null)
        const asset = item.assets[0]
        assert.deepEqual(Object.keys(asset), ASSET_KEYS)
        assert.equal(asset.md5Hash, null)
        assert.equal(asset.thumbnailUrl, null)
        assert.equal(asset.pageCount, null)
      })

      test('a new order starts InProgress, every detail NotStarted, no issues, charges or shipments', async () => {
        const order = json(await create(sampleOrder())).order
        assert.deepEqual(order.status, {
          stage: 'InProgress',
          details: {
            downloadAssets: 'NotStarted',
            allocateProductionLocation: 'NotStarted',
            printReadyAssetsPrepared: 'NotStarted',
            inProduction: 'NotStarted',
            shipping: 'NotStarted',
          },
          issues: [],
        })
        assert.deepEqual(order.charges, [])
        assert.deepEqual(order.shipments, [])
        assert.equal(order.items[0].status, 'NotYetDownloaded')
        assert.equal(order.items[0].assets[0].status, 'InProgress')
      })

      test('created and lastUpdated are the UTC creation time', async () => {
        const order = json(await create(sampleOrder())).order
        const now = t.clock.now().toISOString()
        assert.equal(order.created, now)
        assert.equal(order.lastUpdated, now)
        assert.match(order.created, /Z$/)
      })

      test('order, item and asset IDs carry their prefix and increase with creation', async () => {
        const first = json(await create(sampleOrder())).order
        const second = json(
          await create(
            sampleOrder({
              items: [
                canvasItem(),
                teeItem({
                  assets: [
                    { printArea: 'front', url: 'https://images.example.com/f.png' },
                    { printArea: 'back', url: 'https://images.example.com/b.png' },
                  ],
                }),
              ],
            }),
          ),
        ).order
        assert.ok(numberOf(second.id, 'ord') > numberOf(first.id, 'ord'))
        const itemNumbers = [...first.items, ...second.items].map((item: { id: string }) => numberOf(item.id, 'ori'))
        const assetNumbers = [...first.items, ...second.items]
          .flatMap((item: { assets: { id: string }[] }) => item.assets)
          .map((asset: { id: string }) => numberOf(asset.id, 'ast'))
        assert.equal(itemNumbers.length, 3)
        assert.equal(assetNumbers.length, 4)
        for (let index = 1; index < itemNumbers.length; index++) {
          assert.ok((itemNumbers[index] as number) > (itemNumbers[index - 1] as number), `items ${itemNumbers}`)
        }
        for (let index = 1; index < assetNumbers.length; index++) {
          assert.ok((assetNumbers[index] as number) > (assetNumbers[index - 1] as number), `assets ${assetNumbers}`)
        }
      })

      test('enumerations, SKUs, attribute values, print areas and country codes come back in canonical spelling', async () => {
        const response = await create(
          sampleOrder({
            shippingMethod: 'standard',
            recipient: {
              name: 'Ada Lovelace',
              address: {
                line1: '14 Test Street',
                postalOrZipCode: 'EC1A 1BB',
                countryCode: 'gb',
                townOrCity: 'London',
              },
            },
            items: [
              {
                sku: 'global-can-10x10',
                copies: 1,
                sizing: 'FILLPRINTAREA',
                recipientCost: { amount: '15', currency: 'usd' },
                attributes: { wrap: 'imagewrap' },
                assets: [{ url: 'https://images.example.com/canvas.jpg' }],
              },
              teeItem({
                sizing: 'FitPrintArea',
                attributes: { color: 'NAVY BLUE', size: 'XL' },
                assets: [{ printArea: 'FRONT', url: 'https://images.example.com/front.png' }],
              }),
            ],
          }),
        )
        assert.equal(response.statusCode, 200, response.body)
        const order = json(response).order
        assert.equal(order.shippingMethod, 'Standard')
        assert.equal(order.recipient.address.countryCode, 'GB')
        const [canvas, tee] = order.items
        assert.equal(canvas.sku, 'GLOBAL-CAN-10x10')
        assert.equal(canvas.sizing, 'fillPrintArea')
        assert.deepEqual(canvas.attributes, { wrap: 'ImageWrap' })
        assert.equal(canvas.assets[0].printArea, 'default')
        assert.deepEqual(canvas.recipientCost, { amount: '15.00', currency: 'USD' })
        assert.equal(tee.sku, 'GLOBAL-TEE-BC-3001')
        assert.equal(tee.sizing, 'fitPrintArea')
        assert.deepEqual(tee.attributes, { color: 'navy blue', size: 'xl' })
        assert.equal(tee.assets[0].printArea, 'front')
      })

      test('every shipping method is accepted in any letter case and returned PascalCase', async () => {
        const shipped = await create(sampleOrder({ shippingMethod: 'STANDARDPLUS' }))
        assert.equal(shipped.statusCode, 200, shipped.body)
        assert.equal(json(shipped).order.shippingMethod, 'StandardPlus')
        const express = await create(sampleOrder({ shippingMethod: 'express' }))
        assert.equal(express.statusCode, 200, express.body)
        assert.equal(json(express).order.shippingMethod, 'Express')
      })

      test('branding is null when absent', async () => {
        assert.equal(json(await create(sampleOrder())).order.branding, null)
        assert.equal(json(await create(sampleOrder({ branding: null }))).order.branding, null)
      })

      test('branding sent as packing_slip_color carries every key with the colour slip under both spellings', async () => {
        const slip = { url: 'https://images.example.com/slip.pdf' }
        const postcard = { url: 'https://images.example.com/postcard.png' }
        const response = await create(sampleOrder({ branding: { packing_slip_color: slip, postcard } }))
        assert.equal(response.statusCode, 200, response.body)
        const branding = json(response).order.branding
        assert.deepEqual(Object.keys(branding).sort(), [...SPEC_BRANDING_KEYS, 'packing_slip_color'].sort())
        const expected: Record<string, unknown> = Object.fromEntries(SPEC_BRANDING_KEYS.map((key) => [key, null]))
        expected.postcard = postcard
        expected.packing_slip_colour = slip
        expected.packing_slip_color = slip
        assert.deepEqual(branding, expected)
      })

      test('branding sent as packing_slip_colour is returned under both spellings too', async () => {
        const slip = { url: 'https://images.example.com/slip-colour.pdf' }
        const branding = json(await create(sampleOrder({ branding: { packing_slip_colour: slip } }))).order.branding
        assert.deepEqual(branding.packing_slip_colour, slip)
        assert.deepEqual(branding.packing_slip_color, slip)
        assert.equal(branding.flyer, null)
      })

      test('a packing slip comes back with status NotYetDownloaded', async () => {
        const url = 'https://images.example.com/packing-slip.pdf'
        const order = json(await create(sampleOrder({ packingSlip: { url } }))).order
        assert.deepEqual(order.packingSlip, { url, status: 'NotYetDownloaded' })
        assert.deepEqual(Object.keys(order.packingSlip), ['url', 'status'])
      })

      test('metadata with nested objects, arrays and numbers round-trips', async () => {
        const metadata = {
          shopOrder: 5521,
          ratio: 1.25,
          tags: ['gift', 'rush', 3],
          customer: { id: 'c-77', vip: true, notes: null, history: [{ order: 1 }, { order: 2 }] },
        }
        const response = await create(sampleOrder({ metadata }))
        assert.equal(response.statusCode, 200, response.body)
        const order = json(response).order
        assert.deepEqual(order.metadata, metadata)
        const fetched = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}` })).order
        assert.deepEqual(fetched.metadata, metadata)
      })

      test('metadata of exactly 2,000 serialised characters is accepted', async () => {
        const metadata = { k: 'x'.repeat(2000 - '{"k":""}'.length) }
        assert.equal(JSON.stringify(metadata).length, 2000)
        const response = await create(sampleOrder({ metadata }))
        assert.equal(response.statusCode, 200, response.body)
        assert.deepEqual(json(response).order.metadata, metadata)
      })

      test('metadata over 2,000 serialised characters is refused as TooLong at metadata', async () => {
        const metadata = { k: 'x'.repeat(2001 - '{"k":""}'.length) }
        assert.equal(JSON.stringify(metadata).length, 2001)
        const failures = failuresOf(await create(sampleOrder({ metadata })))
        assert.deepEqual(Object.keys(failures), ['metadata'])
        assert.equal(failures.metadata?.length, 1)
        assert.equal(failures.metadata?.[0]?.code, 'TooLong')
        assert.equal(failures.metadata?.[0]?.comparisonValue, 2000)
      })

      test('GET returns the created document with outcome Ok', async () => {
        const created = await create(
          sampleOrder({
            idempotencyKey: 'get-after-create',
            callbackUrl: 'https://merchant.example.com/callbacks',
            items: [teeItem(), canvasItem()],
            packingSlip: { url: 'https://images.example.com/slip.pdf' },
            branding: { flyer: { url: 'https://images.example.com/flyer.pdf' } },
          }),
        )
        assert.equal(created.statusCode, 200, created.body)
        const order = json(created).order
        const fetched = await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}` })
        assert.equal(fetched.statusCode, 200)
        const body = json(fetched)
        assert.deepEqual(Object.keys(body), ['outcome', 'order', 'traceParent'])
        assert.equal(body.outcome, 'Ok')
        assert.deepEqual(body.order, order)
        assert.deepEqual(Object.keys(body.order), ORDER_KEYS)
      })

      test('GET serialises the order exactly as create did, key order of attributes and metadata included', async () => {
        const created = await create(
          sampleOrder({
            items: [teeItem({ attributes: { color: 'white', size: 's' } })],
            metadata: { zebra: 1, shopOrder: 2, a: { zz: 1, b: 2 } },
          }),
        )
        assert.equal(created.statusCode, 200, created.body)
        const order = json(created).order
        assert.deepEqual(Object.keys(order.items[0].attributes), ['color', 'size'])
        const fetched = json(await t.sandbox({ method: 'GET', url: `/v4.0/orders/${order.id}` })).order
        assert.equal(JSON.stringify(fetched), JSON.stringify(order))
      })
    })

    describe('validation', () => {
      test('an empty body lists Required for shippingMethod, recipient and items', async () => {
        const failures = failuresOf(await create({}))
        assert.deepEqual(failures, {
          shippingMethod: [{ code: 'Required', providedValue: null }],
          recipient: [{ code: 'Required', providedValue: null }],
          items: [{ code: 'Required', providedValue: null }],
        })
      })

      test('missing recipient and address fields are Required at their paths', async () => {
        const failures = failuresOf(
          await create(sampleOrder({ recipient: { address: { line1: '1 Road', countryCode: 'GB' } } })),
        )
        assert.deepEqual(failures, {
          'recipient.name': [{ code: 'Required', providedValue: null }],
          'recipient.address.postalOrZipCode': [{ code: 'Required', providedValue: null }],
          'recipient.address.townOrCity': [{ code: 'Required', providedValue: null }],
        })
      })

      test('missing item fields are Required at their paths', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [{ assets: [{}] }] })))
        assert.deepEqual(failures, {
          'items[0].sku': [{ code: 'Required', providedValue: null }],
          'items[0].copies': [{ code: 'Required', providedValue: null }],
          'items[0].sizing': [{ code: 'Required', providedValue: null }],
          'items[0].assets[0].url': [{ code: 'Required', providedValue: null }],
        })
      })

      test('a blank recipient name is MustNotBeEmptyOrWhitespace at recipient.name', async () => {
        const failures = failuresOf(await create(sampleOrder({ recipient: { ...minimalRecipient, name: '   ' } })))
        assert.deepEqual(failures, { 'recipient.name': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '   ' }] })
      })

      test('an empty asset url is MustNotBeEmptyOrWhitespace at items[0].assets[0].url', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [canvasItem({ assets: [{ url: '' }] })] })))
        assert.deepEqual(failures, {
          'items[0].assets[0].url': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '' }],
        })
      })

      test('empty optional strings are refused too (send null or omit)', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              merchantReference: '',
              recipient: {
                ...minimalRecipient,
                email: ' ',
                address: { ...minimalRecipient.address, line2: '', stateOrCounty: '\t' },
              },
            }),
          ),
        )
        assert.deepEqual(failures, {
          merchantReference: [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '' }],
          'recipient.email': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: ' ' }],
          'recipient.address.line2': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '' }],
          'recipient.address.stateOrCounty': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '\t' }],
        })
      })

      test('null optional fields are accepted', async () => {
        const response = await create(
          sampleOrder({
            merchantReference: null,
            idempotencyKey: null,
            callbackUrl: null,
            packingSlip: null,
            metadata: null,
            recipient: { ...minimalRecipient, email: null, phoneNumber: null },
          }),
        )
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(json(response).outcome, 'Created')
      })

      test('an unknown top-level field is UnknownField naming it', async () => {
        const failures = failuresOf(await create(sampleOrder({ giftWrap: true })))
        assert.deepEqual(failures, { giftWrap: [{ code: 'UnknownField', providedValue: true }] })
      })

      test('unknown nested fields are UnknownField at their full path', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              recipient: { ...minimalRecipient, address: { ...minimalRecipient.address, county: 'Kent' } },
              items: [canvasItem({ colour: 'red', assets: [{ url: 'https://images.example.com/a.jpg', dpi: 300 }] })],
            }),
          ),
        )
        assert.deepEqual(failures, {
          'recipient.address.county': [{ code: 'UnknownField', providedValue: 'Kent' }],
          'items[0].colour': [{ code: 'UnknownField', providedValue: 'red' }],
          'items[0].assets[0].dpi': [{ code: 'UnknownField', providedValue: 300 }],
        })
      })

      test('copies 0 is MustBeGreaterThanOrEqualTo 1', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [canvasItem({ copies: 0 })] })))
        assert.deepEqual(failures, {
          'items[0].copies': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 0, comparisonValue: 1 }],
        })
      })

      test('copies given as a string is InvalidType (numbers are never read from strings)', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [canvasItem({ copies: '2' })] })))
        assert.deepEqual(Object.keys(failures), ['items[0].copies'])
        assert.equal(failures['items[0].copies']?.length, 1)
        assert.equal(failures['items[0].copies']?.[0]?.code, 'InvalidType')
        assert.equal(failures['items[0].copies']?.[0]?.providedValue, '2')
      })

      test('an empty items array is TooFew', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [] })))
        assert.deepEqual(failures, { items: [{ code: 'TooFew', providedValue: [], comparisonValue: 1 }] })
      })

      test('an unknown shipping method is InvalidValue listing the methods', async () => {
        const failures = failuresOf(await create(sampleOrder({ shippingMethod: 'Teleport' })))
        assert.deepEqual(failures, {
          shippingMethod: [
            {
              code: 'InvalidValue',
              providedValue: 'Teleport',
              validValues: ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'],
            },
          ],
        })
      })

      test('an unknown SKU is UnknownSku at items[0].sku', async () => {
        const response = await create(sampleOrder({ items: [canvasItem({ sku: 'GLOBAL-NOPE' })] }))
        const failures = failuresOf(response)
        assert.deepEqual(failures, { 'items[0].sku': [{ code: 'UnknownSku', providedValue: 'GLOBAL-NOPE' }] })
        assert.deepEqual(json(response).data, { nearestSkus: { 'items[0].sku': [] } })
      })

      test("a URL under printroute's own /samples/ naming no sample is InvalidValue on its field, with the samples", async () => {
        const own = new URL(t.app.publicUrl('sandbox'))
        // The other loopback spelling of the same address, as a person pastes it.
        const unknown = `http://localhost:${own.port}/samples/nope.jpg`
        const response = await create(
          sampleOrder({
            items: [canvasItem({ assets: [{ printArea: 'default', url: unknown }] })],
            packingSlip: { url: `${own.origin}/samples/slip.jpg` },
            branding: { postcard: { url: `${own.origin}/samples/portrait.jpg` } },
          }),
        )
        const failures = failuresOf(response)
        assert.deepEqual(Object.keys(failures), ['items[0].assets[0].url', 'packingSlip.url'], 'a real sample passes')
        assert.deepEqual(failures['items[0].assets[0].url'], [
          {
            code: 'InvalidValue',
            providedValue: unknown,
            comparisonValue:
              'printroute has no sample nope.jpg; its samples are landscape.jpg, portrait.jpg, square.jpg ' +
              '(GET /samples/ lists them)',
            validValues: ['landscape.jpg', 'portrait.jpg', 'square.jpg'].map(
              (name) => `http://localhost:${own.port}/samples/${name}`,
            ),
          },
        ])
        assert.match(failures['packingSlip.url']?.[0]?.comparisonValue as string, /no sample slip\.jpg/)
        // Another port is someone else's server: accepted here, its address checked when it is fetched.
        const ports = (['live', 'sandbox'] as const).map((environment) =>
          Number(new URL(t.app.publicUrl(environment)).port),
        )
        const elsewhere = `http://127.0.0.1:${Math.max(...ports) + 1}/samples/nope.jpg`
        const accepted = await create(
          sampleOrder({ items: [canvasItem({ assets: [{ printArea: 'default', url: elsewhere }] })] }),
        )
        assert.equal(accepted.statusCode, 200, accepted.body)
      })

      test("an unknown SKU's nearest SKUs are in data.nearestSkus under its path", async () => {
        const response = await create(
          sampleOrder({
            items: [canvasItem(), canvasItem({ sku: 'global-cfmp-16x20' }), canvasItem({ sku: 'GLOBAL-CAN-10x1O' })],
          }),
        )
        assert.equal(failuresOf(response)['items[1].sku']?.[0]?.code, 'UnknownSku')
        assert.deepEqual(json(response).data, {
          nearestSkus: {
            'items[1].sku': ['GLOBAL-CFPM-16X20', 'GLOBAL-CFP-16X20', 'GLOBAL-FAP-16x20'],
            'items[2].sku': ['GLOBAL-CAN-10x10', 'GLOBAL-CAN-12x12', 'GLOBAL-CAN-11x14'],
          },
        })
      })

      test('missing multi-valued attributes are MissingRequiredAttributes with missingItems.attributes', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [teeItem({ attributes: undefined })] })))
        assert.deepEqual(failures, {
          'items[0].attributes': [
            {
              code: 'MissingRequiredAttributes',
              providedValue: {},
              missingItems: {
                attributes: [
                  { name: 'color', validValues: TEE_COLOURS },
                  { name: 'size', validValues: TEE_SIZES },
                ],
              },
            },
          ],
        })
      })

      test('one missing attribute is named alone', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [teeItem({ attributes: { color: 'black' } })] })))
        assert.deepEqual(Object.keys(failures), ['items[0].attributes'])
        const failure = failures['items[0].attributes']?.[0] as { code: string; missingItems: unknown }
        assert.equal(failure.code, 'MissingRequiredAttributes')
        assert.deepEqual(failure.missingItems, { attributes: [{ name: 'size', validValues: TEE_SIZES }] })
      })

      test('an attribute value the product does not have is InvalidAttributeValue with validValues', async () => {
        const failures = failuresOf(
          await create(sampleOrder({ items: [canvasItem({ attributes: { wrap: 'Purple' } })] })),
        )
        assert.deepEqual(failures, {
          'items[0].attributes.wrap': [
            { code: 'InvalidAttributeValue', providedValue: 'Purple', validValues: CANVAS_WRAPS },
          ],
        })
      })

      test('an unknown print area is UnknownPrintArea with the valid areas', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              items: [
                teeItem({
                  assets: [
                    { printArea: 'front', url: 'https://images.example.com/f.png' },
                    { printArea: 'sleeve', url: 'https://images.example.com/s.png' },
                  ],
                }),
              ],
            }),
          ),
        )
        assert.deepEqual(Object.keys(failures), ['items[0].assets[1].printArea'])
        const failure = failures['items[0].assets[1].printArea']?.[0] as { code: string; validValues: string[] }
        assert.equal(failure.code, 'UnknownPrintArea')
        assert.deepEqual([...failure.validValues].sort(), ['back', 'front'])
      })

      test('two assets for one print area (any letter case) are DuplicatePrintArea', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              items: [
                teeItem({
                  assets: [
                    { printArea: 'front', url: 'https://images.example.com/f.png' },
                    { printArea: 'FRONT', url: 'https://images.example.com/f2.png' },
                  ],
                }),
              ],
            }),
          ),
        )
        assert.deepEqual(Object.keys(failures), ['items[0].assets[1].printArea'])
        assert.deepEqual(
          failures['items[0].assets[1].printArea']?.map((failure) => failure.code),
          ['DuplicatePrintArea'],
        )
      })

      test('a required print area without an asset is MissingRequiredPrintArea at the assets', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              items: [teeItem({ assets: [{ printArea: 'back', url: 'https://images.example.com/b.png' }] })],
            }),
          ),
        )
        assert.deepEqual(Object.keys(failures), ['items[0].assets'])
        assert.deepEqual(
          failures['items[0].assets']?.map((failure) => failure.code),
          ['MissingRequiredPrintArea'],
        )
      })

      test('MissingRequiredPrintArea names the missing areas in validValues (docs/errors.md)', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              items: [teeItem({ assets: [{ printArea: 'back', url: 'https://images.example.com/b.png' }] })],
            }),
          ),
        )
        const failure = failures['items[0].assets']?.[0] as { code: string; validValues?: unknown }
        assert.equal(failure.code, 'MissingRequiredPrintArea')
        assert.deepEqual(failure.validValues, ['front'])
      })

      test('an item without assets is MissingRequiredPrintArea', async () => {
        const failures = failuresOf(await create(sampleOrder({ items: [canvasItem({ assets: [] })] })))
        assert.deepEqual(
          failures['items[0].assets']?.map((failure) => failure.code),
          ['MissingRequiredPrintArea'],
        )
      })

      test('a book without pageCount is PageCountRequired', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              items: [
                {
                  sku: 'BOOK-FE-11_7-SQ-HARD-G',
                  copies: 1,
                  sizing: 'fillPrintArea',
                  assets: [{ printArea: 'default', url: 'https://images.example.com/book.pdf' }],
                },
              ],
            }),
          ),
        )
        assert.deepEqual(failures, {
          'items[0].assets[0].pageCount': [{ code: 'PageCountRequired', providedValue: null }],
        })
      })

      test('a book with a pageCount is created', async () => {
        const response = await create(
          sampleOrder({
            items: [
              {
                sku: 'BOOK-FE-11_7-SQ-HARD-G',
                copies: 1,
                sizing: 'fillPrintArea',
                assets: [{ printArea: 'default', url: 'https://images.example.com/book.pdf', pageCount: 40 }],
              },
            ],
          }),
        )
        assert.equal(response.statusCode, 200, response.body)
        assert.equal(json(response).order.items[0].assets[0].pageCount, 40)
      })

      test('countryCode XX is NotAValidCountryCode', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              recipient: { ...minimalRecipient, address: { ...minimalRecipient.address, countryCode: 'XX' } },
            }),
          ),
        )
        assert.deepEqual(failures, {
          'recipient.address.countryCode': [{ code: 'NotAValidCountryCode', providedValue: 'XX' }],
        })
      })

      test('several shape problems in one request are reported together', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              shipping: 'fast',
              recipient: { ...minimalRecipient, name: '' },
              items: [canvasItem({ copies: 0 })],
            }),
          ),
        )
        assert.deepEqual(failures, {
          shipping: [{ code: 'UnknownField', providedValue: 'fast' }],
          'recipient.name': [{ code: 'MustNotBeEmptyOrWhitespace', providedValue: '' }],
          'items[0].copies': [{ code: 'MustBeGreaterThanOrEqualTo', providedValue: 0, comparisonValue: 1 }],
        })
      })

      test('several catalogue problems in one request are reported together', async () => {
        const failures = failuresOf(
          await create(
            sampleOrder({
              recipient: { ...minimalRecipient, address: { ...minimalRecipient.address, countryCode: 'XX' } },
              items: [
                canvasItem({ sku: 'GLOBAL-NOPE' }),
                canvasItem({ attributes: { wrap: 'Purple' } }),
                teeItem({ attributes: {} }),
              ],
            }),
          ),
        )
        assert.deepEqual(Object.keys(failures).sort(), [
          'items[0].sku',
          'items[1].attributes.wrap',
          'items[2].attributes',
          'recipient.address.countryCode',
        ])
        assert.equal(failures['recipient.address.countryCode']?.[0]?.code, 'NotAValidCountryCode')
        assert.equal(failures['items[0].sku']?.[0]?.code, 'UnknownSku')
        assert.equal(failures['items[1].attributes.wrap']?.[0]?.code, 'InvalidAttributeValue')
        assert.equal(failures['items[2].attributes']?.[0]?.code, 'MissingRequiredAttributes')
      })

      test('a failed create writes nothing', async () => {
        const other = await t.createAccount()
        const attempts = [
          {},
          sampleOrder({ items: [] }),
          sampleOrder({ items: [canvasItem({ sku: 'GLOBAL-NOPE' })] }),
          sampleOrder({ metadata: { k: 'x'.repeat(2100) } }),
          sampleOrder({ idempotencyKey: 'failed-once', items: [teeItem({ attributes: {} })] }),
        ]
        for (const payload of attempts) {
          const response = await create(payload, other.sandboxKey)
          assert.equal(response.statusCode, 400, response.body)
        }
        const list = await t.sandbox({ method: 'GET', url: '/v4.0/orders?top=100' }, other.sandboxKey)
        assert.equal(list.statusCode, 200)
        assert.deepEqual(json(list).orders, [])
        // The idempotency key of a refused request is not taken.
        const retried = await create(sampleOrder({ idempotencyKey: 'failed-once' }), other.sandboxKey)
        assert.equal(retried.statusCode, 200, retried.body)
        assert.equal(json(retried).outcome, 'Created')
      })

      test('unknown fields named like Object.prototype members are UnknownField; prototype poisoning is refused', async () => {
        const post = (raw: string) =>
          t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: raw,
            headers: { 'content-type': 'application/json' },
          })
        const base = JSON.stringify(sampleOrder()).slice(1)
        const constructorField = await post(`{"constructor":1,${base}`)
        assert.deepEqual(failuresOf(constructorField), { constructor: [{ code: 'UnknownField', providedValue: 1 }] })
        const toStringField = await post(`{"toString":"x",${base}`)
        assert.deepEqual(failuresOf(toStringField), { toString: [{ code: 'UnknownField', providedValue: 'x' }] })
        // Bodies that would poison prototypes are refused whole, before anything reads them.
        for (const poison of ['{"__proto__":{"polluted":true},', '{"constructor":{"prototype":{"polluted":true}},']) {
          const response = await post(`${poison}${base}`)
          assert.equal(response.statusCode, 400)
          assert.deepEqual(failuresOf(response), { body: [{ code: 'MalformedJson', providedValue: null }] })
          assert.match(json(response).statusText, /forbidden/)
        }
        assert.equal(({} as { polluted?: boolean }).polluted, undefined)
      })

      test('JSON nested deeper than 32 levels is refused as TooDeeplyNested with the full error body, not a 500', async () => {
        const depth = 100_000
        const base = JSON.stringify(sampleOrder({ metadata: null })).slice(1)
        const cases = [
          `{"metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}},${base}`,
          `{"extra":${'['.repeat(depth)}${']'.repeat(depth)},${base}`,
          `{"metadata":${'{"a":'.repeat(32)}1${'}'.repeat(32)},${base}`,
        ]
        for (const raw of cases) {
          assert.ok(raw.length < 1_048_576)
          const response = await t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: raw,
            headers: { 'content-type': 'application/json' },
          })
          assert.equal(response.statusCode, 400)
          const body = json(response)
          assert.deepEqual(Object.keys(body), [
            'outcome',
            'statusText',
            'statusCode',
            'failures',
            'data',
            'traceParent',
          ])
          assert.equal(body.outcome, 'ValidationFailed')
          assert.equal(body.traceParent, response.headers.traceparent)
          assert.deepEqual(body.failures, { body: [{ code: 'TooDeeplyNested', providedValue: null }] })
        }
        // 30 levels of metadata (31 with the order object) are fine.
        const deepest = `{"metadata":${'{"a":'.repeat(30)}1${'}'.repeat(30)},${base}`
        const accepted = await t.sandbox({
          method: 'POST',
          url: '/v4.0/orders',
          payload: deepest,
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(accepted.statusCode, 200, accepted.body)
      })

      test('odd bodies never answer 500', async () => {
        const bodies: unknown[] = [
          null,
          [],
          'a string',
          42,
          true,
          { recipient: null, items: null, shippingMethod: null },
          sampleOrder({ items: [null] }),
          sampleOrder({ items: [canvasItem({ assets: [null] })] }),
          sampleOrder({ items: [canvasItem({ attributes: { wrap: 5 } })] }),
          sampleOrder({ items: [canvasItem({ attributes: [] })] }),
          sampleOrder({ items: [canvasItem({ copies: 1.5 })] }),
          sampleOrder({ items: [canvasItem({ copies: 1e20 })] }),
          sampleOrder({ items: [canvasItem({ sku: 42 })] }),
          sampleOrder({
            items: [canvasItem({ assets: [{ url: 'https://images.example.com/a.jpg', printArea: null }] })],
          }),
          sampleOrder({ items: [canvasItem({ recipientCost: { amount: 15, currency: 'GBP' } })] }),
          sampleOrder({ items: [canvasItem({ recipientCost: { amount: 'abc', currency: 'GBP' } })] }),
          sampleOrder({ metadata: [] }),
          sampleOrder({ metadata: 'text' }),
          sampleOrder({ branding: { unknownSlip: { url: 'https://x.example.com/a' } } }),
          sampleOrder({ branding: { flyer: 'https://x.example.com/a' } }),
          sampleOrder({ recipient: { ...minimalRecipient, address: null } }),
          sampleOrder({
            recipient: { ...minimalRecipient, address: { ...minimalRecipient.address, countryCode: 'GBR' } },
          }),
          sampleOrder({
            recipient: { ...minimalRecipient, address: { ...minimalRecipient.address, countryCode: 12 } },
          }),
          sampleOrder({ shippingMethod: 7 }),
          sampleOrder({ callbackUrl: 'not a url' }),
        ]
        for (const payload of bodies) {
          const response = await t.sandbox({
            method: 'POST',
            url: '/v4.0/orders',
            payload: JSON.stringify(payload),
            headers: { 'content-type': 'application/json' },
          })
          assert.ok(
            response.statusCode < 500,
            `${JSON.stringify(payload)?.slice(0, 200)} answered ${response.statusCode}: ${response.body}`,
          )
          if (response.statusCode === 400) {
            const body = json(response)
            assert.equal(body.outcome, 'ValidationFailed')
            assert.ok(
              Object.keys(body.failures ?? {}).length > 0,
              `no failures for ${JSON.stringify(payload)?.slice(0, 200)}`,
            )
          }
        }
      })
    })
  })
}
