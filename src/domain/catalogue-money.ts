// Exact decimal arithmetic for catalogue facts: money strings, currency rates and tax percentages become
// BigInt integers at load time, so no binary floating point ever touches an amount
// (docs/wire-contract.md#times-and-money).
//
// Rounding rule, used everywhere below: half-up to whole minor units, where "up" means away from zero, so a
// credit (negative amount) rounds to exactly the negative of the matching charge. 0.125 -> 0.13, -0.125 -> -0.13.

import { formatMinorAsAmount, parseAmountToMinor } from './money.ts'

/** Catalogue money: whole units and at most two decimals ("12.50", "7", "0.5"); at most 12 digits before the point. */
export const MONEY_PATTERN = /^(\d{1,12})(?:\.(\d{1,2}))?$/

/** Currency rates may carry more precision than money: up to 6 decimal places ("1.270000"). */
export const RATE_DECIMAL_PLACES = 6
export const RATE_PATTERN = /^(\d{1,9})(?:\.(\d{1,6}))?$/
const RATE_SCALE = 10n ** BigInt(RATE_DECIMAL_PLACES)

/** Tax percentages: "20", "25.5", "0"; at most two decimals, at most 100. */
export const PERCENT_PATTERN = /^(\d{1,3})(?:\.(\d{1,2}))?$/
const BASIS_POINTS_PER_WHOLE = 10_000n

/** "12.5" -> 1250n; undefined when `text` is not a well-formed non-negative money string. */
export function parseMoneyToMinor(text: string): bigint | undefined {
  // Catalogue money is never negative; the arithmetic is the wire's own (domain/money.ts).
  return MONEY_PATTERN.test(text) ? parseAmountToMinor(text) : undefined
}

/** 1250n -> "12.50"; -5n -> "-0.05": the wire's formatter. */
export const formatMinor = formatMinorAsAmount

/** "1.27" -> 1270000n (millionths); undefined when malformed. */
export function parseRateToMillionths(text: string): bigint | undefined {
  const match = RATE_PATTERN.exec(text)
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  return BigInt(whole) * RATE_SCALE + BigInt(fraction.padEnd(RATE_DECIMAL_PLACES, '0'))
}

/** "20" -> 2000, "25.5" -> 2550 (hundredths of a percent); undefined when malformed or above 100%. */
export function parsePercentToBasisPoints(text: string): number | undefined {
  const match = PERCENT_PATTERN.exec(text)
  if (!match) return undefined
  const [, whole = '0', fraction = ''] = match
  const basisPoints = Number(whole) * 100 + Number(fraction.padEnd(2, '0'))
  return basisPoints <= 100 * 100 ? basisPoints : undefined
}

/** numerator / denominator rounded half away from zero; denominator must be positive. */
export function divideRoundingHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive')
  const negative = numerator < 0n
  const absolute = negative ? -numerator : numerator
  const quotient = (absolute * 2n + denominator) / (denominator * 2n)
  return negative ? -quotient : quotient
}

/**
 * Converts minor units between two currencies given each one's rate against the same base (millionths):
 * result = minor x toRate / fromRate, computed exactly, then rounded half-up once.
 */
export function convertMinorUnits(minor: bigint, fromRateMillionths: bigint, toRateMillionths: bigint): bigint {
  return divideRoundingHalfUp(minor * toRateMillionths, fromRateMillionths)
}

/** `basisPoints` hundredths of a percent of `minor`, rounded half-up: 20% (2000) of 1999n -> 400n. */
export function percentOfMinorUnits(minor: bigint, basisPoints: number): bigint {
  return divideRoundingHalfUp(minor * BigInt(basisPoints), BASIS_POINTS_PER_WHOLE)
}
