import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { tier } from '../test/support/tiers.ts'
import {
  parseBoolean,
  parseByteSize,
  readSettings,
  replaceSettingsTable,
  SETTINGS,
  settingsDocsTable,
} from './config.ts'

tier('pure')

test('docs/configuration.md holds exactly the settings table generated from the code', () => {
  const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'configuration.md'), 'utf8')
  assert.equal(replaceSettingsTable(page), page, 'run `npm run docs:config` after changing a setting')
  for (const setting of Object.values(SETTINGS)) {
    // A secret has no flag (`ps` would show it): its row names its variable.
    const named = 'envOnly' in setting ? `\`${setting.env}\`` : `\`--${setting.flag}\\b`
    assert.match(settingsDocsTable(), new RegExp(named))
  }
})

test('a flag wins over the environment, which wins over the default; an empty variable counts as unset', () => {
  const names = ['livePort', 'sandboxPort', 'host'] as const
  assert.deepEqual(readSettings(names, {}, {}), { livePort: 8080, sandboxPort: 8081, host: '127.0.0.1' })
  assert.deepEqual(readSettings(names, { livePort: '9000' }, { PORT: '7000', PRINTROUTE_SANDBOX_PORT: '7001' }), {
    livePort: 9000,
    sandboxPort: 7001,
    host: '127.0.0.1',
  })
  assert.equal(readSettings(['host'], {}, { PRINTROUTE_HOST: '' }).host, '127.0.0.1')
})

test('a bad value names the flag or the variable it came from', () => {
  assert.throws(() => readSettings(['livePort'], { livePort: 'eighty' }, {}), /^Error: --port: must be a port number/)
  assert.throws(() => readSettings(['livePort'], {}, { PORT: '70000' }), /PORT: must be a port number/)
  assert.throws(() => readSettings(['simulatedRejectRate'], { simulatedRejectRate: '2' }, {}), /--sim-lab-reject-rate/)
  assert.throws(() => readSettings(['logFormat'], { logFormat: 'xml' }, {}), /must be one of pretty, json/)
  assert.throws(() => readSettings(['eventVendor'], {}, { PRINTROUTE_EVENT_VENDOR: 'a.b' }), /PRINTROUTE_EVENT_VENDOR/)
})

test('durations take milliseconds and fractions of a second wherever a duration is read', () => {
  const read = (text: string) =>
    readSettings(['simulatedLabStepSeconds', 'requestTimeoutSeconds'], {
      simulatedLabStepSeconds: text,
      requestTimeoutSeconds: text,
    })
  assert.deepEqual(read('100ms'), { simulatedLabStepSeconds: 0.1, requestTimeoutSeconds: 0.1 })
  assert.deepEqual(read('1.5s'), { simulatedLabStepSeconds: 1.5, requestTimeoutSeconds: 1.5 })
  assert.throws(() => readSettings(['requestTimeoutSeconds'], { requestTimeoutSeconds: '0' }), /at least/)
  assert.equal(readSettings(['assetRetentionDays'], { assetRetentionDays: '36h' }).assetRetentionDays, 1)
})

test('--lab-cancel-wait: 10 s by default, 0 for no wait, at most 5 minutes', () => {
  const read = (text?: string) =>
    readSettings(['labCancelWaitSeconds'], text === undefined ? {} : { labCancelWaitSeconds: text }, {})
      .labCancelWaitSeconds
  assert.equal(read(), 10)
  assert.equal(read('0'), 0)
  assert.equal(read('500ms'), 0.5)
  assert.equal(read('5m'), 300)
  assert.throws(() => read('6m'), /--lab-cancel-wait: must be at most 5m/)
  assert.equal(readSettings(['labCancelWaitSeconds'], {}, { PRINTROUTE_LAB_CANCEL_WAIT: '2s' }).labCancelWaitSeconds, 2)
})

test('booleans: a flag turns on (or, for --no-x, off); variables say 1/0, true/false, yes/no', () => {
  assert.equal(readSettings(['allowPrivateUrls'], {}, {}).allowPrivateUrls, false)
  assert.equal(readSettings(['allowPrivateUrls'], { allowPrivateUrls: true }, {}).allowPrivateUrls, true)
  assert.equal(readSettings(['allowPrivateUrls'], {}, { PRINTROUTE_ALLOW_PRIVATE_URLS: '0' }).allowPrivateUrls, false)
  assert.equal(readSettings(['allowPrivateUrls'], {}, { PRINTROUTE_ALLOW_PRIVATE_URLS: 'yes' }).allowPrivateUrls, true)
  assert.equal(readSettings(['workers'], {}, {}).workers, true)
  assert.equal(readSettings(['workers'], { workers: true }, {}).workers, false)
  assert.throws(() => parseBoolean('maybe'), /must be 1 or 0/)
})

test('sizes parse in decimal and binary units', () => {
  assert.equal(parseByteSize('200MB'), 200_000_000)
  assert.equal(parseByteSize('1GiB'), 1024 ** 3)
  assert.equal(parseByteSize('512 kB'), 512_000)
  assert.equal(parseByteSize('4096'), 4096)
  assert.equal(parseByteSize('10mib'), 10 * 1024 ** 2)
  assert.equal(parseByteSize('1.5GB'), 1_500_000_000)
  for (const bad of ['', 'MB', '-1', '0', '10 parsecs']) assert.throws(() => parseByteSize(bad), /is not a size/, bad)
})

test('--rate-limit takes N/PERIOD or 0, and refuses anything else saying what it wants', () => {
  const read = (text: string) => readSettings(['rateLimit'], { rateLimit: text }, {}).rateLimit
  assert.deepEqual(readSettings(['rateLimit'], {}, {}).rateLimit, { max: 600, windowMilliseconds: 60_000 })
  assert.deepEqual(read('10/1s'), { max: 10, windowMilliseconds: 1_000 })
  assert.deepEqual(read('5000/h'), { max: 5000, windowMilliseconds: 3_600_000 })
  assert.deepEqual(read(' 100 / 30s '), { max: 100, windowMilliseconds: 30_000 })
  assert.equal(read('0'), null)
  assert.deepEqual(readSettings(['rateLimit'], {}, { PRINTROUTE_RATE_LIMIT: '60/1m' }).rateLimit, {
    max: 60,
    windowMilliseconds: 60_000,
  })
  assert.throws(() => read('600'), /^Error: --rate-limit: must be N\/PERIOD such as 600\/1m .* got "600"/)
  assert.throws(() => read('fast'), /--rate-limit: must be N\/PERIOD/)
  assert.throws(() => read('0/1m'), /--rate-limit: the number of requests must be a whole number of at least 1/)
  assert.throws(() => read('-5/1m'), /--rate-limit: must be N\/PERIOD/)
  assert.throws(() => read('1.5/1m'), /--rate-limit: must be N\/PERIOD/)
  assert.throws(() => read('600/1y'), /--rate-limit: the period "1y" is not a duration/)
  assert.throws(() => read('600/500ms'), /--rate-limit: the period must be a whole number of seconds, at least 1s/)
  assert.throws(() => read('600/1.5s'), /whole number of seconds/)
  assert.throws(() => read('600/2d'), /--rate-limit: the period must be at most 1d/)
  assert.throws(
    () => readSettings(['rateLimit'], {}, { PRINTROUTE_RATE_LIMIT: '600 per minute' }),
    /^Error: PRINTROUTE_RATE_LIMIT: must be N\/PERIOD/,
  )
})

test('--ghostscript: unset is none, a bare name is looked up on PATH, a path is made absolute', () => {
  assert.equal(readSettings(['ghostscript'], {}, {}).ghostscript, null)
  assert.equal(readSettings(['ghostscript'], {}, { PRINTROUTE_GHOSTSCRIPT: '' }).ghostscript, null)
  assert.equal(readSettings(['ghostscript'], {}, { PRINTROUTE_GHOSTSCRIPT: 'gs' }).ghostscript, 'gs')
  assert.equal(readSettings(['ghostscript'], { ghostscript: '/usr/bin/gs' }, {}).ghostscript, '/usr/bin/gs')
  assert.equal(readSettings(['ghostscript'], { ghostscript: 'bin/gs' }, {}).ghostscript, resolve('bin/gs'))
})
