import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { describe, test } from 'node:test'
import pg from 'pg'
import { captureLogs } from '../../test/support/log-capture.ts'
import { tier } from '../../test/support/tiers.ts'
import { DatabaseUnavailableError } from '../domain/database-unavailable.ts'
import { createLogger, LOG_FORMATS, logFormatFor, REDACTED, redactSecretsInText } from './logger.ts'

tier('pure')

describe('logFormatFor', () => {
  test('without a flag: pretty at a terminal, JSON lines otherwise', () => {
    assert.equal(logFormatFor(undefined, true), 'pretty')
    assert.equal(logFormatFor(undefined, false), 'json')
    assert.equal(logFormatFor('', false), 'json')
  })

  test('the flag wins over the terminal check, in any letter case', () => {
    assert.equal(logFormatFor('json', true), 'json')
    assert.equal(logFormatFor('pretty', false), 'pretty')
    assert.equal(logFormatFor('JSON', true), 'json')
  })

  test('an unknown format is refused with the valid ones named', () => {
    assert.throws(
      () => logFormatFor('xml', true),
      (error: Error) => {
        for (const format of LOG_FORMATS) assert.match(error.message, new RegExp(format))
        assert.match(error.message, /"xml"/)
        return true
      },
    )
  })
})

describe('redactSecretsInText', () => {
  test('secret query values go, the rest of the URL stays', () => {
    const text = redactSecretsInText(
      'GET /files/thumbnails/ord_1/ast_2.jpg?expires=1790000000&signature=abcDEF_123-xyz and /payments/ord_7?token=tok_secret#x',
    )
    assert.equal(
      text,
      `GET /files/thumbnails/ord_1/ast_2.jpg?expires=1790000000&signature=${REDACTED} and /payments/ord_7?token=${REDACTED}#x`,
    )
  })

  test('parameter names match in any letter case, and a URL password is removed', () => {
    assert.equal(
      redactSecretsInText('https://bucket.s3.test/a?X-Amz-Signature=deadbeef&X-Amz-Date=20260301'),
      `https://bucket.s3.test/a?X-Amz-Signature=${REDACTED}&X-Amz-Date=20260301`,
    )
    assert.equal(
      redactSecretsInText('http://shop:hunter2@127.0.0.1:9000/hook?Api_Key=k1&order=5'),
      `http://shop:${REDACTED}@127.0.0.1:9000/hook?Api_Key=${REDACTED}&order=5`,
    )
  })

  test('keys past their visible prefix, signing secrets, session cookies and tokens go wherever they are', () => {
    const random = 'AbCdEf12GhIjKl34MnOpQr56StUvWx78YzAbCd90EfG'
    assert.equal(
      redactSecretsInText(`POST /v4.0/account/keys/pr_live_${random}/revoke`),
      `POST /v4.0/account/keys/pr_live_AbCdEf12${REDACTED}/revoke`,
    )
    assert.equal(redactSecretsInText(`X pr_lab_${random.slice(0, 20)}`), `X pr_lab_AbCdEf12${REDACTED}`)
    assert.equal(
      redactSecretsInText('whsec_QUJD+/ZGVm= and whsec_QUJD%2BZGVm'),
      `whsec_${REDACTED} and whsec_${REDACTED}`,
    )
    assert.equal(
      redactSecretsInText(`printroute_sandbox_session=${random}; theme=dark`),
      `printroute_sandbox_session=${REDACTED}; theme=dark`,
    )
    assert.equal(redactSecretsInText(`/dashboard/${random}?_csrf=short`), `/dashboard/${REDACTED}?_csrf=${REDACTED}`)
  })

  test('key prefixes, ids, trace ids and hashes stay', () => {
    const text =
      'revoked pr_sandbox_AbCdEf12 (pr_live_Ab) ord_123 4bf92f3577b34da6a3ce929d0e0e4736 ' +
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 /work/node_modules/fastify/lib/route.js'
    assert.equal(redactSecretsInText(text), text)
  })

  test('text without secrets is returned unchanged', () => {
    const text = 'download of http://127.0.0.1:9000/image.jpg?size=large failed: HTTP 404'
    assert.equal(redactSecretsInText(text), text)
  })
})

describe('createLogger', () => {
  test('JSON lines carry the level, an ISO time and the fields; debug is filtered at info', () => {
    const logs = captureLogs()
    const logger = createLogger({ level: 'info', format: 'json', destination: logs.stream })
    logger.debug('not shown')
    logger.info({ orderId: 'ord_1' }, 'order created')
    const [entry, ...rest] = logs.entries()
    assert.equal(rest.length, 0)
    assert.equal(entry?.msg, 'order created')
    assert.equal(entry?.orderId, 'ord_1')
    assert.equal(entry?.level, 30)
    assert.ok(!Number.isNaN(Date.parse(entry?.time)), `time ${entry?.time} is an ISO date`)
  })

  test('secrets never reach the output: named fields, URLs in fields, messages and errors', () => {
    const secrets = {
      apiKey: 'pr_live_FieldSecret1',
      labKey: 'pr_lab_FieldSecret2',
      signingSecret: 'whsec_FieldSecret3',
      header: 'pr_sandbox_HeaderSecret4',
      token: 'PayTokenSecret5',
      signature: 'FileSignatureSecret6',
      password: 'UrlPasswordSecret7',
    }
    for (const format of LOG_FORMATS) {
      const logs = captureLogs()
      const logger = createLogger({ level: 'trace', format, destination: logs.stream })
      logger.info(
        {
          apiKey: secrets.apiKey,
          account: { labKey: secrets.labKey, settings: { signingSecret: secrets.signingSecret } },
          headers: { 'x-api-key': secrets.header },
          url: `http://127.0.0.1:8080/payments/ord_1?token=${secrets.token}`,
          links: [`/files/print-files/ord_1/a.jpg?expires=1&signature=${secrets.signature}`],
        },
        `callback to http://shop:${secrets.password}@127.0.0.1:9/hook failed`,
      )
      logger.error(
        { err: new Error(`fetch of /files/x.jpg?signature=${secrets.signature} failed`) },
        'unexpected error',
      )
      const output = logs.text()
      for (const [name, secret] of Object.entries(secrets)) {
        assert.ok(!output.includes(secret), `${format}: ${name} leaked:\n${output}`)
      }
      assert.ok(output.includes(REDACTED), format)
      assert.ok(output.includes('/payments/ord_1?token='), `${format}: the URL without its secret stays`)
      assert.ok(output.includes('/files/x.jpg?signature='), `${format}: the error message stays`)
    }
  })

  test('database driver errors keep their message and code, never SQL, values or the connection', () => {
    // A server's error as node-postgres makes it, with the fields it fills in, and a client (holding its
    // connection parameters, password included) attached as the pool and some callers do.
    const client = new pg.Client({ connectionString: 'postgres://printroute:DriverPassword1@127.0.0.1:5432/shop' })
    const serverError = Object.assign(
      new pg.DatabaseError('duplicate key value violates unique constraint', 120, 'error'),
      {
        severity: 'ERROR',
        code: '23505',
        detail: 'Key (email)=(ada@example.test) already exists.',
        where: 'SQL statement "INSERT INTO accounts (email) VALUES (\'ada@example.test\')"',
        internalQuery: 'SELECT secret_column FROM accounts',
        constraint: 'accounts_email_key',
        client,
      },
    )
    const poolError = Object.assign(new Error('Connection terminated unexpectedly'), {
      query: 'UPDATE orders SET document = $1',
      values: ['{"recipient":"Grace Hopper"}'],
      connection: { user: 'printroute', password: 'DriverPassword1' },
    })
    for (const format of LOG_FORMATS) {
      const logs = captureLogs()
      const logger = createLogger({ level: 'info', format, destination: logs.stream })
      logger.error({ err: serverError }, 'unexpected error')
      logger.error({ err: { ...poolError, message: poolError.message, queue: 'start-order' } }, 'background job error')
      const output = logs.text()
      for (const leak of [
        'DriverPassword1',
        'ada@example.test',
        'secret_column',
        'INSERT INTO',
        'UPDATE orders',
        'Grace',
      ]) {
        assert.ok(!output.includes(leak), `${format}: ${leak} leaked:\n${output}`)
      }
      for (const kept of [
        'duplicate key value',
        '23505',
        'accounts_email_key',
        'Connection terminated',
        'start-order',
      ]) {
        assert.ok(output.includes(kept), `${format}: ${kept} is kept:\n${output}`)
      }
    }
  })

  test("a dropped connection's errors are logged without a stack; other errors keep theirs", async () => {
    // A real refusal from the driver: a port on loopback that nothing listens on any more.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const refused = await new pg.Client({ host: '127.0.0.1', port, user: 'nobody' }).connect().then(
      () => assert.fail('nothing listens there'),
      (error: Error) => error,
    )
    // What PostgreSQL sends to a terminated backend, as node-postgres makes it, and the socket's end after it.
    const terminated = Object.assign(
      new pg.DatabaseError('terminating connection due to administrator command', 116, 'error'),
      { severity: 'FATAL', code: '57P01' },
    )
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' })
    const dropped = [
      refused,
      terminated,
      reset,
      new Error('Connection terminated unexpectedly'),
      new DatabaseUnavailableError('57P01 admin_shutdown'),
      new Error('job failed', { cause: reset }),
      new AggregateError([refused, reset], 'connect failed'),
      // A constraint the server refused: the driver's parser is its stack too.
      Object.assign(new pg.DatabaseError('duplicate key value violates unique constraint', 90, 'error'), {
        code: '23505',
      }),
    ]
    for (const format of LOG_FORMATS) {
      const logs = captureLogs()
      const logger = createLogger({ level: 'info', format, destination: logs.stream })
      for (const error of dropped) logger.warn({ err: error }, 'database trouble')
      const output = logs.text()
      assert.ok(!/(\n|\\n)\s+at |"stack"|stack:/.test(output), `${format}: no stack:\n${output}`)
      for (const kept of ['ECONNREFUSED', '57P01', 'terminating connection', 'ECONNRESET', 'job failed', '23505']) {
        assert.ok(output.includes(kept), `${format}: ${kept} is kept:\n${output}`)
      }
      const bug = captureLogs()
      createLogger({ level: 'info', format, destination: bug.stream }).error(
        { err: new TypeError('cannot read properties of undefined') },
        'a bug',
      )
      assert.match(bug.text(), /(\n|\\n)\s+at /, `${format}: a bug keeps its stack`)
    }
  })

  test('pretty output prints a multi-line message with its lines intact, and no pid or hostname', () => {
    const logs = captureLogs()
    const logger = createLogger({ level: 'info', format: 'pretty', destination: logs.stream })
    const command = [
      "curl -s -X POST http://127.0.0.1:8081/v4.0/orders -H 'X-API-Key: pr_sandbox_demo' \\",
      `  -d '{"merchantReference":"first","items":[{"sku":"A","note":"a\\\\nb"}]}'`,
    ]
    logger.info({ accountId: 'acc_1' }, `Try a first order:\n${command.join('\n')}`)
    const lines = logs.text().split('\n')
    const first = lines.findIndex((line) => line.endsWith('Try a first order:'))
    assert.ok(first >= 0, logs.text())
    assert.match(lines[first] ?? '', /INFO/)
    assert.deepEqual(lines.slice(first + 1, first + 3), command, 'each line of the command as it was logged')
    assert.ok(lines.some((line) => line.includes('accountId') && line.includes('acc_1')))
    // A request line is its message and its trace id, on one line.
    logger
      .child({ reqId: '4bf92f3577b34da6a3ce929d0e0e4736' })
      .info(
        { req: { method: 'GET', url: '/payments/ord_1?token=SECRET' }, res: { statusCode: 200 }, responseTime: 1.2 },
        'GET /payments/ord_1?token=SECRET 200 1 ms',
      )
    const last = logs.text().trimEnd().split('\n').at(-1) ?? ''
    assert.match(last, /INFO: GET \/payments\/ord_1\?token=\[REDACTED\] 200 1 ms \[4bf92f3577b34da6a3ce929d0e0e4736\]$/)
    assert.ok(!logs.text().includes('SECRET'))
    // pino-pretty shows them as "INFO (<pid> on <hostname>):" unless told to leave them out.
    assert.ok(!/\(\d+ on /.test(logs.text()) && !logs.text().includes('pid'), logs.text())
  })
})
