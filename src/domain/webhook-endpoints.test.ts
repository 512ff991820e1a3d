import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { STAGES } from './order.ts'
import { CALLBACK_DELIVERY_STATUSES, eventType, type OrderEventKind, testEventType } from './order-events.ts'
import {
  endpointAccepts,
  eventTypeMatches,
  eventTypesFailures,
  knownEventTypes,
  metadataFilterFailures,
  metadataMatches,
  WEBHOOK_ENDPOINT_LIMITS,
  webhookDisabledEventType,
} from './webhook-endpoints.ts'

tier('pure')

describe('webhook endpoint filters', () => {
  it('knows every type an order event can have, the test callback and the endpoint-disabled event', () => {
    const kinds: OrderEventKind[] = [
      ...STAGES.map((stage) => ({ kind: 'stageChanged', stage }) as const),
      { kind: 'shipmentShipped', shipmentId: 'shp_1' },
      { kind: 'parcelShipped', shipmentId: 'shp_1', parcel: 0 },
      ...CALLBACK_DELIVERY_STATUSES.map(
        (status) => ({ kind: 'shipmentDelivery', shipmentId: 'shp_1', status }) as const,
      ),
      { kind: 'orderDelivered' },
      { kind: 'downloadAssetsComplete' },
      { kind: 'shippingComplete' },
      { kind: 'paymentAuthorised' },
      { kind: 'assetReplaced', itemId: 'ori_1', assetId: 'ast_1' },
      { kind: 'shipmentMoved', shipmentId: 'shp_2', fromShipmentId: 'shp_1' },
      { kind: 'creditIssued', creditId: 'crd_1' },
      { kind: 'draftConfirmed' },
      { kind: 'draftExpired' },
      { kind: 'holdReleased' },
    ]
    const expected = new Set([
      ...kinds.map((kind) => eventType('acme', kind)),
      testEventType('acme'),
      webhookDisabledEventType('acme'),
    ])
    assert.deepEqual(new Set(knownEventTypes('acme')), expected)
    assert.equal(knownEventTypes('acme').length, expected.size)
  })

  it('matches exact types and prefixes ending in *; empty matches everything', () => {
    const shipped = 'com.acme.order.shipments.shipment#Shipped'
    assert.equal(eventTypeMatches([], shipped), true)
    assert.equal(eventTypeMatches(['*'], shipped), true)
    assert.equal(eventTypeMatches(['com.acme.order.shipments.*'], shipped), true)
    assert.equal(eventTypeMatches([shipped], shipped), true)
    assert.equal(eventTypeMatches(['com.acme.order.status.*'], shipped), false)
    assert.equal(eventTypeMatches(['com.acme.order.shipments.shipment'], shipped), false)
  })

  it('matches order metadata by exact value; events about no order only when there is no condition', () => {
    assert.equal(metadataMatches({}, undefined), true)
    assert.equal(metadataMatches({ channel: 'shop-eu' }, { channel: 'shop-eu', other: 1 }), true)
    assert.equal(metadataMatches({ channel: 'shop-eu' }, { channel: 'shop-us' }), false)
    assert.equal(metadataMatches({ channel: 'shop-eu' }, null), false)
    assert.equal(metadataMatches({ channel: 'shop-eu' }, undefined), false)
    assert.equal(metadataMatches({ n: 1 }, { n: '1' }), false)
    assert.equal(metadataMatches({ constructor: 'x' }, {}), false)
    const endpoint = { eventTypes: ['com.acme.order.shipments.*'], metadataFilter: { channel: 'shop-eu' } }
    const type = 'com.acme.order.shipments.shipment#Shipped'
    assert.equal(endpointAccepts(endpoint, { type, orderMetadata: { channel: 'shop-eu' } }), true)
    assert.equal(endpointAccepts(endpoint, { type, orderMetadata: { channel: 'shop-us' } }), false)
    assert.equal(
      endpointAccepts(endpoint, {
        type: 'com.acme.order.status.delivery#Delivered',
        orderMetadata: { channel: 'shop-eu' },
      }),
      false,
    )
  })

  it('refuses a typo with the list of types, a * inside an entry, and too many entries', () => {
    const failures = eventTypesFailures(
      [
        'com.acme.order.shipments.*',
        'com.acme.order.shipment.*',
        'com.acme.*.shipped',
        'com.acme.order.status.stage.changed#Complete',
      ],
      'acme',
    )
    assert.deepEqual(Object.keys(failures), ['eventTypes[1]', 'eventTypes[2]'])
    assert.equal(failures['eventTypes[1]']?.[0]?.code, 'InvalidValue')
    assert.deepEqual(failures['eventTypes[1]']?.[0]?.validValues, knownEventTypes('acme'))
    assert.equal(failures['eventTypes[2]']?.[0]?.code, 'InvalidFormat')
    // Another vendor's types are not this server's.
    assert.equal(eventTypesFailures(['com.prodigi.order.*'], 'acme')['eventTypes[0]']?.[0]?.code, 'InvalidValue')
    const many = Array.from({ length: WEBHOOK_ENDPOINT_LIMITS.eventTypes + 1 }, () => '*')
    assert.equal(eventTypesFailures(many, 'acme').eventTypes?.[0]?.code, 'TooMany')
  })

  it('refuses metadata filter values that are not scalars, and empty keys', () => {
    assert.deepEqual(metadataFilterFailures({ channel: 'shop-eu', n: 2, b: true }), {})
    const failures = metadataFilterFailures({ nested: { a: 1 }, ' ': 'x', nothing: null })
    assert.deepEqual(Object.keys(failures).sort(), [
      'metadataFilter. ',
      'metadataFilter.nested',
      'metadataFilter.nothing',
    ])
  })
})
