import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { asDatabaseUnavailable, DatabaseUnavailableError, databaseUnavailableReason } from './database-unavailable.ts'

tier('pure')

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code })

describe('databaseUnavailableReason', () => {
  test('socket errors, connection SQLSTATEs and the driver’s own connection messages say "unavailable"', () => {
    assert.equal(
      databaseUnavailableReason(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')),
      'ECONNREFUSED',
    )
    assert.equal(databaseUnavailableReason(withCode('ECONNRESET')), 'ECONNRESET')
    assert.equal(databaseUnavailableReason(withCode('57P01')), '57P01 admin_shutdown')
    assert.equal(databaseUnavailableReason(withCode('57P03')), '57P03 cannot_connect_now')
    assert.equal(databaseUnavailableReason(withCode('08006')), '08006 connection_failure')
    assert.equal(databaseUnavailableReason(withCode('08XYZ')), '08XYZ connection_exception', 'the whole class 08')
    assert.equal(databaseUnavailableReason(new Error('timeout exceeded when trying to connect')), 'connection timeout')
    assert.equal(databaseUnavailableReason(new Error('Connection terminated unexpectedly')), 'connection terminated')
    assert.equal(
      databaseUnavailableReason(new Error('Client has encountered a connection error and is not queryable (Queue: a)')),
      'connection closed',
    )
  })

  test('found through cause and an AggregateError’s errors; a DatabaseUnavailableError keeps its reason', () => {
    assert.equal(databaseUnavailableReason(new Error('outer', { cause: withCode('57P02') })), '57P02 crash_shutdown')
    assert.equal(
      databaseUnavailableReason(new AggregateError([withCode('ECONNREFUSED')], 'all failed')),
      'ECONNREFUSED',
    )
    assert.equal(databaseUnavailableReason(new DatabaseUnavailableError('EPIPE')), 'EPIPE')
  })

  test('other failures are not "unavailable"', () => {
    for (const error of [
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('42P01', 'relation "x" does not exist'),
      withCode('57014', 'canceling statement due to statement timeout'),
      new Error('Cannot use a pool after calling end on the pool'),
      new TypeError('x is not a function'),
      'ECONNREFUSED',
      null,
      undefined,
    ]) {
      assert.equal(databaseUnavailableReason(error), null, String(error))
    }
  })

  test('asDatabaseUnavailable wraps what is unavailable, in words without host or SQL, and passes the rest', () => {
    const wrapped = asDatabaseUnavailable(withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432'))
    assert.ok(wrapped instanceof DatabaseUnavailableError)
    assert.equal(wrapped.message, 'the database is unavailable (ECONNREFUSED)')
    const other = withCode('23505')
    assert.equal(asDatabaseUnavailable(other), other)
  })
})
