// The payment gateway `serve` and `worker` run with (docs/billing.md#setting-up-stripe): none with
// `--payment-provider simulated`; with `stripe`, both secrets from their variables or files, or a refusal to start
// that names the missing setting (never its value).
import { readFileSync } from 'node:fs'
import { type Settings, SettingsError } from '../config.ts'

export type PaymentSettings = Pick<
  Settings,
  | 'paymentProvider'
  | 'stripeApiUrl'
  | 'stripeSecretKey'
  | 'stripeSecretKeyFile'
  | 'stripeWebhookSecret'
  | 'stripeWebhookSecretFile'
>

export interface StripeSecrets {
  secretKey: string
  webhookSecret: string
  apiUrl: string | null
}

/** One secret: its variable, else its file's trimmed content; null when neither is set (or the file is empty). */
function secretOf(
  value: string | null,
  file: string | null,
  fileFlag: string,
  readFile: (path: string) => string,
): string | null {
  if (value?.trim()) return value.trim()
  if (!file) return null
  let text: string
  try {
    text = readFile(file)
  } catch (error) {
    throw new SettingsError(`${fileFlag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  return text.trim() || null
}

/** The Stripe secrets when the provider is Stripe; null for the simulated provider. Throws SettingsError when one is missing. */
export function stripeSecretsFrom(
  settings: PaymentSettings,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): StripeSecrets | null {
  if (settings.paymentProvider !== 'stripe') return null
  const secretKey = secretOf(
    settings.stripeSecretKey,
    settings.stripeSecretKeyFile,
    '--stripe-secret-key-file',
    readFile,
  )
  const webhookSecret = secretOf(
    settings.stripeWebhookSecret,
    settings.stripeWebhookSecretFile,
    '--stripe-webhook-secret-file',
    readFile,
  )
  const missing = [
    secretKey ? null : 'PRINTROUTE_STRIPE_SECRET_KEY (or --stripe-secret-key-file)',
    webhookSecret ? null : 'PRINTROUTE_STRIPE_WEBHOOK_SECRET (or --stripe-webhook-secret-file)',
  ].filter((entry) => entry !== null)
  if (missing.length > 0 || !secretKey || !webhookSecret) {
    throw new SettingsError(
      `--payment-provider stripe takes Live payments through Stripe and needs ${missing.join(' and ')}: ` +
        'set it, or start with --payment-provider simulated',
    )
  }
  return { secretKey, webhookSecret, apiUrl: settings.stripeApiUrl }
}
