import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { incomingTraceId, newTraceparent, requestTraceId, traceIdOf, traceparentFor } from './traceparent.ts'

tier('pure')

const FORMAT = /^00-[\da-f]{32}-[\da-f]{16}-01$/

test('a new traceparent is W3C-formatted and random', () => {
  const first = newTraceparent()
  const second = newTraceparent()
  assert.match(first, FORMAT)
  assert.notEqual(first, second)
})

test('a valid incoming traceparent keeps its trace id with a new span id', () => {
  const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
  const result = newTraceparent(incoming)
  assert.match(result, FORMAT)
  assert.equal(result.split('-')[1], '4bf92f3577b34da6a3ce929d0e0e4736')
  assert.notEqual(result.split('-')[2], '00f067aa0ba902b7')
})

test('invalid incoming traceparents are ignored', () => {
  for (const bad of [
    'garbage',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
  ]) {
    assert.equal(incomingTraceId(bad), undefined, bad)
    assert.notEqual(newTraceparent(bad).split('-')[1], bad.split('-')[1])
  }
})

test('a request keeps a valid incoming trace id, gets a random one otherwise, and its traceparent carries it', () => {
  const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
  assert.equal(requestTraceId(incoming), '4bf92f3577b34da6a3ce929d0e0e4736')
  const fresh = requestTraceId('garbage')
  assert.match(fresh, /^[\da-f]{32}$/)
  assert.notEqual(fresh, requestTraceId(undefined))
  const traceparent = traceparentFor(fresh)
  assert.match(traceparent, FORMAT)
  assert.equal(traceIdOf(traceparent), fresh)
})
