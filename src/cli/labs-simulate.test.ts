// The reference lab's decisions that need no server: a push's signature, a file against the job, the parcels,
// and the flags. Its run against a real server: test/cli/labs-simulate.test.ts.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { newSigningSecret, webhookHeaders } from '../domain/webhook-signature.ts'
import {
  fileDefect,
  parcelsOf,
  pushRefusal,
  recoverShipment,
  type ShipmentRecord,
  simulateOptionsOf,
  trackingNumberOf,
} from './labs-simulate.ts'

tier('pure')

describe('labs simulate', () => {
  const now = new Date('2026-11-27T12:00:00Z')
  const body = '{"type":"com.printroute.lab.job.created"}'

  test('a push verifies with the secret that signed it, also beside another one (a rotation); nothing else does', () => {
    const secret = newSigningSecret()
    assert.equal(pushRefusal(secret, webhookHeaders([secret], 'evt_1', now, body), body, now), null)
    assert.equal(pushRefusal(secret, webhookHeaders([newSigningSecret(), secret], 'evt_1', now, body), body, now), null)
    assert.match(
      pushRefusal(secret, webhookHeaders([newSigningSecret()], 'evt_1', now, body), body, now) ?? '',
      /no signature matches/,
    )
    const signed = webhookHeaders([secret], 'evt_1', now, body)
    assert.match(pushRefusal(secret, signed, `${body} `, now) ?? '', /no signature matches/, 'another body')
    assert.match(pushRefusal(secret, { ...signed, 'webhook-id': 'evt_2' }, body, now) ?? '', /no signature/)
    const later = new Date(now.getTime() + 6 * 60_000)
    assert.match(pushRefusal(secret, signed, body, later) ?? '', /too old or too new/)
    assert.equal(pushRefusal(secret, signed, body, new Date(now.getTime() + 4 * 60_000)), null)
    assert.match(pushRefusal(secret, {}, body, now) ?? '', /headers are required/)
    assert.match(pushRefusal(secret, { ...signed, 'webhook-timestamp': 'soon' }, body, now) ?? '', /Unix seconds/)
  })

  test('a file differs from the job by its size or its sha256; facts the job lacks are not checked', () => {
    const bytes = new TextEncoder().encode('print file')
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    assert.equal(fileDefect(bytes, { sha256, bytes: bytes.byteLength }, 'the file'), null)
    assert.equal(fileDefect(bytes, {}, 'the file'), null)
    assert.equal(
      fileDefect(bytes, { sha256, bytes: 11 }, 'the default print file of ori_1'),
      'the default print file of ori_1 is 10 bytes, the job says 11',
    )
    assert.match(
      fileDefect(bytes, { sha256: '0'.repeat(64) }, 'the file') ?? '',
      /^the file has sha256 [0-9a-f]{64}, the job says 0{64}$/,
    )
  })

  test('parcels deal the items round robin, at most one per item; one parcel names no items', () => {
    assert.deepEqual(parcelsOf(['a', 'b', 'c'], 1), [[]])
    assert.deepEqual(parcelsOf(['a', 'b', 'c'], 2), [['a', 'c'], ['b']])
    assert.deepEqual(parcelsOf(['a', 'b'], 5), [['a'], ['b']])
    assert.deepEqual(parcelsOf(['a'], 3), [[]])
    assert.equal(trackingNumberOf('shp_42', 2), 'SIM42P2')
    assert.equal(trackingNumberOf('shp_42', 2), trackingNumberOf('shp_42', 2), 'the same on every run')
  })

  test('the flags: a lab key, a known reason, whole numbers in range, a push secret with a push port', () => {
    const base = { baseUrl: 'http://127.0.0.1:8080/', apiKey: 'pr_lab_abc' }
    const options = simulateOptionsOf({ ...base, stateFile: '/tmp/x.json' })
    assert.equal(options.baseUrl, 'http://127.0.0.1:8080')
    assert.deepEqual(
      { pollMs: options.pollMs, delayMs: options.delayMs, parcels: options.parcels, once: options.once },
      { pollMs: 2000, delayMs: 0, parcels: 1, once: false },
    )
    assert.equal(options.rejectItems, null)
    assert.deepEqual(simulateOptionsOf({ ...base, rejectItems: 'ALL' }).rejectItems, {
      sku: 'all',
      reason: 'CannotProduce',
    })
    const secret = newSigningSecret()
    const pushed = simulateOptionsOf({ ...base, pushPort: '0', pushSecret: secret })
    assert.deepEqual(pushed.push, { port: 0, secret })
    assert.equal(pushed.pollMs, 30_000, 'with push it polls less often')
    for (const [values, message] of [
      [{ ...base, apiKey: 'pr_live_abc' }, /must be a lab key/],
      [{ ...base, apiKey: '' }, /--api-key is required/],
      [{ ...base, rejectReason: 'OutOfStock' }, /--reject-reason needs --reject-items/],
      [{ ...base, rejectItems: 'X', rejectReason: 'Broken' }, /--reject-reason must be one of/],
      [{ ...base, parcels: '0' }, /--parcels: "0" must be a whole number from 1 to 100/],
      [{ ...base, delayMs: '1.5' }, /--delay-ms/],
      [{ ...base, pushPort: '70000', pushSecret: secret }, /--push-port/],
      [{ ...base, pushPort: '0', pushSecret: 'secret' }, /--push-secret/],
      [{ ...base, pollInterval: '0s' }, /--poll-interval/],
    ] as const) {
      assert.throws(() => simulateOptionsOf(values), message)
    }
  })
  test('a shipment that left the listing is picked up from the job read by its id: shipped, rejected, cancelled or gone', () => {
    const inHand = (shippedParcels: boolean[]): ShipmentRecord => ({
      orderId: 'ord_1',
      done: ['checked', 'acknowledged', 'inProduction', 'printed'],
      rejectedItemIds: [],
      parcels: shippedParcels.map((shipped, index) => ({
        itemIds: [`ori_${index + 1}`],
        trackingNumber: `SIM1P${index + 1}`,
        dispatchDate: '2026-11-27T10:00:00.000Z',
        shipped,
      })),
      scans: [],
    })
    const shippedJob = {
      state: 'shipped',
      parcels: [
        { tracking: { number: 'SIM1P1' }, dispatchDate: '2026-11-27T10:00:00.000Z' },
        { tracking: { number: 'SIM1P2' }, dispatchDate: '2026-11-27T10:00:00.000Z' },
      ],
    }
    // Stopped after the last parcel's report went through, before it was saved: shipped, on to the scans.
    const crashed = inHand([true, false])
    assert.match(recoverShipment(crashed, shippedJob) ?? '', /last report before the stop went through/)
    assert.deepEqual(
      crashed.parcels.map((parcel) => parcel.shipped),
      [true, true],
    )
    assert.equal(crashed.finished, undefined, 'not finished: the scans follow')

    // Shipped by someone else before the simulator planned a parcel: the last parcel's number carries the scans.
    const elsewhere = inHand([])
    assert.ok(recoverShipment(elsewhere, shippedJob))
    assert.deepEqual(
      elsewhere.parcels.map((parcel) => [parcel.trackingNumber, parcel.shipped]),
      [['SIM1P2', true]],
    )

    for (const state of ['rejected', 'cancelled'] as const) {
      const record = inHand([false])
      assert.ok(recoverShipment(record, { state }))
      assert.equal(record.finished, state)
    }
    const gone = inHand([false])
    assert.match(recoverShipment(gone, undefined) ?? '', /no longer with this lab/)
    assert.equal(gone.finished, 'gone')
    const open = inHand([false])
    assert.equal(recoverShipment(open, { state: 'inProduction' }), null, 'still open: the next listing shows it')
    assert.deepEqual(open, inHand([false]))
  })
})
