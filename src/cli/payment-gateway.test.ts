import assert from 'node:assert/strict'
import { test } from 'node:test'
import { tier } from '../../test/support/tiers.ts'
import { readSettings, SettingsError } from '../config.ts'
import { stripeSecretsFrom } from './payment-gateway.ts'

tier('pure')

const NAMES = [
  'paymentProvider',
  'stripeApiUrl',
  'stripeSecretKey',
  'stripeSecretKeyFile',
  'stripeWebhookSecret',
  'stripeWebhookSecretFile',
] as const

const files: Record<string, string> = { '/run/secrets/key': ' sk_test_fromfile\n', '/run/secrets/hook': 'whsec_f\n' }
const readFile = (path: string) => {
  const text = files[path]
  if (text === undefined) throw Object.assign(new Error('no file'), { code: 'ENOENT' })
  return text
}

test('the simulated provider needs no secret; Stripe takes both from variables or files, the variable first', () => {
  assert.equal(stripeSecretsFrom(readSettings(NAMES, {}, {}), readFile), null)
  const fromEnv = readSettings(
    NAMES,
    { paymentProvider: 'stripe' },
    { PRINTROUTE_STRIPE_SECRET_KEY: 'sk_test_env', PRINTROUTE_STRIPE_WEBHOOK_SECRET: 'whsec_env' },
  )
  assert.deepEqual(stripeSecretsFrom(fromEnv, readFile), {
    secretKey: 'sk_test_env',
    webhookSecret: 'whsec_env',
    apiUrl: null,
  })
  const fromFiles = readSettings(
    NAMES,
    {
      paymentProvider: 'stripe',
      stripeSecretKeyFile: '/run/secrets/key',
      stripeWebhookSecretFile: '/run/secrets/hook',
      stripeApiUrl: 'http://127.0.0.1:12111',
    },
    { PRINTROUTE_STRIPE_WEBHOOK_SECRET: 'whsec_env' },
  )
  assert.deepEqual(stripeSecretsFrom(fromFiles, readFile), {
    secretKey: 'sk_test_fromfile',
    webhookSecret: 'whsec_env',
    apiUrl: 'http://127.0.0.1:12111',
  })
})

test('a secret is never taken from a flag: only its variable or its file', () => {
  const settings = readSettings(NAMES, { paymentProvider: 'stripe', stripeSecretKey: 'sk_test_onflag' }, {})
  assert.equal(settings.stripeSecretKey, null)
})

test('Stripe without a secret refuses to start, naming the setting and never a value', () => {
  const onlyKey = readSettings(NAMES, { paymentProvider: 'stripe' }, { PRINTROUTE_STRIPE_SECRET_KEY: 'sk_test_x' })
  assert.throws(
    () => stripeSecretsFrom(onlyKey, readFile),
    (error: Error) =>
      error instanceof SettingsError &&
      /PRINTROUTE_STRIPE_WEBHOOK_SECRET/.test(error.message) &&
      !/PRINTROUTE_STRIPE_SECRET_KEY/.test(error.message) &&
      !error.message.includes('sk_test_x'),
  )
  const neither = readSettings(NAMES, { paymentProvider: 'stripe' }, {})
  assert.throws(
    () => stripeSecretsFrom(neither, readFile),
    /PRINTROUTE_STRIPE_SECRET_KEY .* and PRINTROUTE_STRIPE_WEBHOOK_SECRET/,
  )
  const emptyFile = readSettings(
    NAMES,
    { paymentProvider: 'stripe', stripeSecretKeyFile: '/missing' },
    { PRINTROUTE_STRIPE_WEBHOOK_SECRET: 'whsec_x' },
  )
  assert.throws(
    () => stripeSecretsFrom(emptyFile, readFile),
    /--stripe-secret-key-file: cannot read \/missing \(ENOENT\)/,
  )
  assert.throws(() => readSettings(NAMES, { paymentProvider: 'paypal' }, {}), /must be one of simulated, stripe/)
})
