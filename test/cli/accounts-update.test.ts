// `printroute accounts update`: the account settings from the command line (docs/configuration.md#account-settings), as
// a user runs it.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { type CliSession, startCliSession } from '../support/cli.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

let dataDir: string
let cli: CliSession
const withData = (args: string[]) => cli.run([...args, '--data-dir', dataDir])

before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'printroute-cli-update-'))
  cli = startCliSession()
})
after(async () => {
  await cli.close()
  rmSync(dataDir, { recursive: true, force: true })
})

test('accounts update sets the callback URLs and pause window, rotates the signing secrets, and refuses bad input', async () => {
  const created = await withData([
    'accounts',
    'create',
    '--name',
    'Shop',
    '--callback-url',
    'https://shop.example.com/live',
    '--sandbox-callback-url',
    'https://staging.example.com/hook',
    '--json',
  ])
  assert.equal(created.code, 0, created.stderr)
  const { id } = JSON.parse(created.stdout)
  const listedFirst = JSON.parse((await withData(['accounts', 'list', '--json'])).stdout)
  assert.deepEqual(listedFirst.find((entry: { id: string }) => entry.id === id).callbackUrls, {
    sandbox: 'https://staging.example.com/hook',
    live: 'https://shop.example.com/live',
  })

  const url = 'https://shop.example.com/hooks?token=a%2Fb'
  const updated = await withData([
    'accounts',
    'update',
    '--account',
    id,
    '--callback-url',
    url,
    '--pause-window',
    '5m',
    '--json',
  ])
  assert.equal(updated.code, 0, updated.stderr)
  const settings = JSON.parse(updated.stdout)
  assert.deepEqual(Object.keys(settings), ['id', 'pauseWindowSeconds', 'sandbox', 'live'])
  assert.deepEqual(Object.keys(settings.live), [
    'callbackUrl',
    'signingSecret',
    'previousSigningSecretExpiresAt',
    'addressValidation',
    'callbackEvents',
  ])
  assert.equal(settings.live.callbackEvents, 'all')
  assert.equal(settings.sandbox.sandboxScenario, null, "only Sandbox's settings have a default scenario")
  assert.equal(settings.id, id)
  assert.equal(settings.pauseWindowSeconds, 300)
  assert.equal(settings.sandbox.callbackUrl, url, 'without --env: both environments')
  assert.equal(settings.live.callbackUrl, url)
  assert.match(settings.sandbox.signingSecret, /^whsec_/)
  assert.match(settings.live.signingSecret, /^whsec_/)
  assert.notEqual(settings.sandbox.signingSecret, settings.live.signingSecret)

  const listed = await withData(['accounts', 'list', '--json'])
  const account = JSON.parse(listed.stdout).find((entry: { id: string }) => entry.id === id)
  assert.deepEqual(account.callbackUrls, { sandbox: url, live: url })
  assert.equal(account.pauseWindowSeconds, 300)

  const rotated = await withData([
    'accounts',
    'update',
    '--account',
    id,
    '--env',
    'sandbox',
    '--rotate-signing-secret',
    '--signing-overlap',
    '1h',
  ])
  assert.equal(rotated.code, 0, rotated.stderr)
  assert.match(rotated.stdout, /sandbox:\n {2}callback URL: {4}\S+\n {2}signing secret: {2}whsec_/)
  assert.doesNotMatch(rotated.stdout, new RegExp(settings.sandbox.signingSecret.replace(/[+/]/g, '\\$&')))
  assert.match(rotated.stdout, new RegExp(settings.live.signingSecret.replace(/[+/]/g, '\\$&')), 'Live kept')
  assert.match(rotated.stdout, /previous secret signs too until \d{4}-/)

  const removed = await withData([
    'accounts',
    'update',
    '--account',
    id,
    '--env',
    'live',
    '--callback-url',
    'none',
    '--json',
  ])
  assert.equal(JSON.parse(removed.stdout).live.callbackUrl, null)
  assert.equal(JSON.parse(removed.stdout).sandbox.callbackUrl, url, 'only the environment named')

  const scenario = await withData(['accounts', 'update', '--account', id, '--sandbox-scenario', 'Manual', '--json'])
  assert.equal(scenario.code, 0, scenario.stderr)
  assert.equal(JSON.parse(scenario.stdout).sandbox.sandboxScenario, 'manual')
  assert.equal('sandboxScenario' in JSON.parse(scenario.stdout).live, false)
  const noScenario = await withData(['accounts', 'update', '--account', id, '--sandbox-scenario', 'none'])
  assert.match(noScenario.stdout, /sandbox:\n(?: {2}.*\n)* {2}scenario: {8}-/)

  const refuse = await withData([
    'accounts',
    'update',
    '--account',
    id,
    '--env',
    'live',
    '--address-validation',
    'Refuse',
  ])
  assert.equal(refuse.code, 0, refuse.stderr)
  assert.match(refuse.stdout, /live:\n(?: {2}.*\n)* {2}addresses: {7}refuse/)
  assert.match(refuse.stdout, /sandbox:\n(?: {2}.*\n)* {2}addresses: {7}warn/, 'only the environment named')

  const off = await withData(['accounts', 'update', '--account', id, '--address-validation', 'off', '--json'])
  assert.equal(off.code, 0, off.stderr)
  assert.equal(JSON.parse(off.stdout).sandbox.addressValidation, 'off')
  assert.equal(JSON.parse(off.stdout).live.addressValidation, 'off')

  const events = await withData([
    'accounts',
    'update',
    '--account',
    id,
    '--env',
    'sandbox',
    '--callback-events',
    'Prodigi',
  ])
  assert.equal(events.code, 0, events.stderr)
  assert.match(events.stdout, /sandbox:\n(?: {2}.*\n)* {2}callback events: prodigi/)
  assert.match(events.stdout, /live:\n(?: {2}.*\n)* {2}callback events: all/, 'only the environment named')

  const refusals: [string[], RegExp][] = [
    [['--address-validation', 'strict'], /--address-validation: "strict" is not an address validation mode/],
    [['--callback-events', 'some'], /--callback-events: "some" is not a set of callback events \(prodigi or all\)/],
    [['--sandbox-scenario', 'explode'], /--sandbox-scenario: "explode" is not a Sandbox scenario/],
    [['--env', 'live', '--sandbox-scenario', 'manual'], /--sandbox-scenario is a Sandbox setting/],
    [['--callback-url', 'ftp://x'], /--callback-url: "ftp:\/\/x" is not an http\(s\) URL/],
    [['--pause-window', 'soon'], /--pause-window/],
    [['--signing-overlap', '1h'], /--signing-overlap: an overlap applies only together with rotateSigningSecret/],
    [[], /nothing to change/],
    [['--env', 'staging', '--pause-window', '0'], /--env must be sandbox or live/],
  ]
  for (const [args, message] of refusals) {
    const refused = await withData(['accounts', 'update', '--account', id, ...args])
    assert.equal(refused.code, 2, args.join(' '))
    assert.match(refused.stderr, message)
  }
  const unknown = await withData(['accounts', 'update', '--account', 'acc_999', '--pause-window', '0'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /No account acc_999/)
  const badId = await withData(['accounts', 'update', '--account', 'shop', '--pause-window', '0'])
  assert.equal(badId.code, 2)
  assert.match(badId.stderr, /not an account ID/)
})
