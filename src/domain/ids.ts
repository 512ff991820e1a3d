// Public IDs are a three-letter prefix, an underscore and a decimal number (specification, "ID format").
// The numbers come from one PostgreSQL sequence per prefix, so they increase with creation and list order
// equals ID order (docs/wire-contract.md#identifiers). Every ID a request carries is parsed here.

import type { Failure } from './failures.ts'
import { validationFailed } from './outcomes.ts'

export const ID_PREFIXES = {
  account: 'acc',
  order: 'ord',
  orderItem: 'ori',
  asset: 'ast',
  shipment: 'shp',
  charge: 'chg',
  chargeItem: 'chi',
  event: 'evt',
  /** A delivery of an event to a callback URL. */
  callbackDelivery: 'cbd',
  /** A stored, price-locked quote (one per shipping method of a quote answer). */
  quote: 'quo',
  /** An entry of the audit trail. */
  auditEvent: 'aud',
  /** An operator of the console (docs/admin.md). */
  operator: 'opr',
  /** A webhook endpoint of an environment (docs/callbacks.md#webhook-endpoints). */
  webhookEndpoint: 'whk',
  /** A lab's key for the lab API and portal (docs/labs.md#lab-keys). */
  labKey: 'lbk',
  /** A preflight of a file checked on its own (docs/api.md#preflight). */
  preflight: 'pfl',
  /** An operator's note on an order (docs/admin.md#acting-on-an-order). */
  orderNote: 'ont',
  /** A photo uploaded as evidence for a claim or a lab's answer to one (docs/claims.md#evidence). */
  claimEvidence: 'evd',
  /** A merchant's claim about shipped work (docs/claims.md). */
  claim: 'clm',
  /** A credit on an order: a late delivery's, a claim's (docs/billing.md#late-delivery-credits). */
  orderCredit: 'crd',
  /** A storefront a merchant sells on, whose orders come in by its webhooks (docs/channels.md). */
  channel: 'chn',
  /** A CSV order import (docs/imports.md). */
  orderImport: 'imp',
  /** A shipment told to a channel's store: a row of the fulfilment outbox (docs/channels.md#fulfilments). */
  channelFulfilment: 'chf',
  /** A top-up of a prepaid balance asked for by the merchant (docs/api.md#top-ups); numbered with the card payments. */
  topUp: 'top',
} as const
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES]

export function formatId(prefix: IdPrefix, value: number): string {
  return `${prefix}_${value}`
}

/** The number inside an ID of the given prefix (prefix matched case-insensitively), or undefined. */
export function parseId(prefix: IdPrefix, id: string): number | undefined {
  if (id.length <= prefix.length + 1 || id[prefix.length] !== '_') return undefined
  if (id.slice(0, prefix.length).toLowerCase() !== prefix) return undefined
  const digits = id.slice(prefix.length + 1)
  if (!/^\d{1,15}$/.test(digits)) return undefined
  const value = Number(digits)
  return value > 0 ? value : undefined
}

/** An ID of the given prefix, or its bare number (`ord_12` or `12`: what a search box or a cursor takes). */
export function parseIdOrNumber(prefix: IdPrefix, text: string): number | undefined {
  // A bare number is taken as it is, 0 included (a cursor's start); an ID's number is never 0.
  return /^\d{1,15}$/.test(text) ? Number(text) : parseId(prefix, text)
}

/** What a request is told about an ID that is not one of `prefix` (docs/errors.md, InvalidFormat). */
export function invalidIdFailure(prefix: IdPrefix, id: string): Failure {
  return { code: 'InvalidFormat', providedValue: id, comparisonValue: `${prefix}_<number>` }
}

/** The number inside an ID the request sent in `field`; ValidationFailed (InvalidFormat on `field`) when it is none. */
export function parseRequestId(prefix: IdPrefix, id: string, field: string): number {
  const number = parseId(prefix, id)
  if (number === undefined) throw validationFailed({ [field]: [invalidIdFailure(prefix, id)] })
  return number
}
