// Money inside the service is an integer number of minor units (pence, cents) plus a currency code; on the
// wire it is {amount: "12.50", currency: "GBP"} with two decimal places (docs/wire-contract.md#times-and-money).
// Binary floating point never touches an amount.

export interface Money {
  minor: bigint
  currency: string
}

export interface WireMoney {
  amount: string
  currency: string
}

const DECIMAL_AMOUNT = /^(-)?(\d{1,12})(?:\.(\d{1,2}))?$/

/** Parses "12.5", "12.50" or "-3" into minor units; undefined when the text is not such an amount. */
export function parseAmountToMinor(amount: string): bigint | undefined {
  const match = DECIMAL_AMOUNT.exec(amount)
  if (!match) return undefined
  const [, sign, whole = '0', fraction = ''] = match
  const minor = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'))
  return sign ? -minor : minor
}

export function formatMinorAsAmount(minor: bigint): string {
  const negative = minor < 0n
  const absolute = negative ? -minor : minor
  const whole = absolute / 100n
  const fraction = (absolute % 100n).toString().padStart(2, '0')
  return `${negative ? '-' : ''}${whole}.${fraction}`
}

export function toWireMoney(money: Money): WireMoney {
  return { amount: formatMinorAsAmount(money.minor), currency: money.currency }
}

/** Normalises a merchant-supplied amount to two decimal places ("15" -> "15.00"). */
export function normaliseAmount(amount: string): string | undefined {
  const minor = parseAmountToMinor(amount)
  return minor === undefined ? undefined : formatMinorAsAmount(minor)
}
