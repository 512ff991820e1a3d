// Card payments for the payment page (docs/billing.md#orders-waiting-for-payment). printroute talks to a payment
// provider through this one interface; the bundled provider simulates one, so the whole flow (order held for payment,
// page, payment, order released) works on one machine. Real card payments go through the hosted-checkout gateway
// instead (domain/payment-gateway.ts, Stripe: docs/billing.md#card-payments-through-stripe).

export interface CardDetails {
  /** Digits only (spaces and dashes removed by the caller). */
  number: string
  /** MM/YY. */
  expiry: string
  cvc: string
}

export interface PaymentRequest {
  amountMinor: bigint
  currency: string
  /** What the payment is for, as the card statement would show it. */
  description: string
  card: CardDetails
}

export type PaymentResult = { approved: true; reference: string } | { approved: false; reason: string }

export interface PaymentProvider {
  readonly name: string
  charge(request: PaymentRequest): Promise<PaymentResult>
}

/** The card number the simulated provider always declines (the usual test-card convention). */
export const SIMULATED_DECLINED_CARD = '4000000000000002'

/** Luhn check digit validation: catches a mistyped card number before any provider sees it. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false
  let sum = 0
  for (let index = 0; index < digits.length; index += 1) {
    let digit = Number(digits[digits.length - 1 - index])
    if (index % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

/** True when MM/YY is a real month not before `now`'s month. */
export function expiryIsValid(expiry: string, now: Date): boolean {
  const match = /^(\d{2})\/(\d{2})$/.exec(expiry)
  if (!match) return false
  const month = Number(match[1])
  const year = 2000 + Number(match[2])
  if (month < 1 || month > 12) return false
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1
}

/**
 * Approves every valid card except SIMULATED_DECLINED_CARD. Never moves real money; meant for Sandbox-like
 * demos of Live and for tests.
 */
export function createSimulatedPaymentProvider(options: { now: () => Date }): PaymentProvider {
  let counter = 0
  return {
    name: 'simulated',
    async charge(request) {
      const { card } = request
      if (!passesLuhn(card.number)) return { approved: false, reason: 'The card number is not valid' }
      if (!expiryIsValid(card.expiry, options.now())) return { approved: false, reason: 'The card has expired' }
      if (!/^\d{3,4}$/.test(card.cvc)) return { approved: false, reason: 'The security code is not valid' }
      if (card.number === SIMULATED_DECLINED_CARD) return { approved: false, reason: 'The card was declined' }
      counter += 1
      return { approved: true, reference: `sim_${Date.now().toString(36)}_${counter}` }
    },
  }
}
