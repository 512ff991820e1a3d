// The money side of an order, as pure functions (docs/billing.md).
//
// An order's price is a set of lines: one per item (`item:<itemId>`: unit cost x copies, in the shipment that
// makes it), one per shipment (`shipping:<shipmentId>`), each with its tax, and for a DDP shipment with duties
// to prepay one more (`duties:<shipmentId>`: the duties and import taxes, untaxed, docs/billing.md#ddp-duties-and-taxes), priced by domain/pricing.ts (the
// code quotes use). The pipeline state keeps the lines charged so far. Whenever the price changes (the order
// enters fulfilment, a shipping method change re-plans shipments, a cancel refunds), the new set of lines is
// compared with the charged one and the difference becomes one charge on the order:
//   - the first charge has type `Item` and carries `Item` and `Shipping` lines;
//   - a later one is a `Refund` when it gives money back overall, else `Other` (an extra charge);
//   - a line that gives money back has type `Refund` and a negative cost.
// So the charges on an order always add up to exactly what the merchant pays for it.

import { formatMinorAsAmount } from './money.ts'
import type { Charge, ChargeItem } from './order.ts'
import type { PricedShipment } from './pricing.ts'

/**
 * How the charges of an order are settled: Sandbox shows charges and never bills; `sandboxHold` (the Sandbox
 * scenario paymentRequired, docs/sandbox.md) holds the order as an unpaid prepaid one until it is authorised,
 * without any balance or ledger.
 */
export type Settlement = 'none' | 'invoice' | 'prepaid' | 'sandboxHold'

/** One priced line; amounts are minor units as decimal strings (the pipeline state is JSON). */
export interface PriceLine {
  itemId: string | null
  shipmentId: string
  cost: string
  tax: string
}

export interface BillingState {
  currency: string
  /**
   * The account's price list when the order started billing (docs/billing.md#price-lists); absent: none set, the
   * catalogue's default list. A re-plan (a new shipping method) prices on it, not on a list set since.
   */
  priceList?: string
  settlement: Settlement
  /** Line key -> what has been charged for it so far, net of refunds. */
  lines: Record<string, PriceLine>
  /** Prepaid orders: the part of the charges not yet paid (minor units); above zero the order waits for payment. */
  unpaid: string
  /**
   * Prepaid orders an operator released unpaid (docs/billing.md#releasing-an-order-held-for-payment): what was
   * recorded as owed on the account's next invoice (a ledger `invoice-charge`) and not refunded since (minor
   * units). Absent: nothing.
   */
  owedOnInvoice?: string
  /** The payment page's URL, made when the order first needs a payment, and the SHA-256 (hex) of its token. */
  paymentUrl: string | null
  paymentTokenHash: string | null
  /**
   * Prepaid orders of an account with a card on file (docs/billing.md#a-card-on-file): `inFlight` while the card is
   * being charged for what is due (the hold's issue is not shown meanwhile); `failed` with why, in words, when the
   * charge did not pay it (the issue then says so). Absent: no charge of the card was made for the current hold.
   */
  cardCharge?: { status: 'inFlight' } | { status: 'failed'; reason: string }
}

export function newBillingState(currency: string, settlement: Settlement): BillingState {
  return { currency, settlement, lines: {}, unpaid: '0', paymentUrl: null, paymentTokenHash: null }
}

export const itemLineKey = (itemId: string) => `item:${itemId}`
export const shippingLineKey = (shipmentId: string) => `shipping:${shipmentId}`
export const dutiesLineKey = (shipmentId: string) => `duties:${shipmentId}`

/**
 * An operator's credit on a charge (docs/billing.md#operator-credits): a line of its own, `credit:<chargeId>:<n>`,
 * with a negative cost and tax and no shipment (`shipmentId` empty), so a re-plan or a partial cancel, which
 * replace or drop shipments' lines, keep it; a whole cancel refunds what the order still nets, the credit counted.
 */
export const creditLineKey = (chargeId: string, sequence: number) => `credit:${chargeId}:${sequence}`

/** Whether a line key is an operator's credit; the charge it credits. */
export function creditedChargeOf(key: string): string | undefined {
  const match = /^credit:([^:]+):\d+$/.exec(key)
  return match?.[1]
}

/** What the order's charged lines net to (cost plus tax), and the tax of it, in minor units. */
export function netCharged(lines: Record<string, PriceLine>): { total: bigint; tax: bigint } {
  let total = 0n
  let tax = 0n
  for (const line of Object.values(lines)) {
    total += BigInt(line.cost) + BigInt(line.tax)
    tax += BigInt(line.tax)
  }
  return { total, tax }
}

/**
 * What an operator may still credit on one of the order's charges (minor units): what the charge took, less the
 * credits already made on it, and never more than the order still nets (a cancel's refund counted).
 */
export function refundableOfCharge(billing: BillingState, chargeId: string, chargeTotalMinor: bigint): bigint {
  let credited = 0n
  for (const [key, line] of Object.entries(billing.lines)) {
    if (creditedChargeOf(key) === chargeId) credited -= BigInt(line.cost) + BigInt(line.tax)
  }
  const left = chargeTotalMinor - credited
  const net = netCharged(billing.lines).total
  const refundable = left < net ? left : net
  return refundable > 0n ? refundable : 0n
}

/**
 * The charged lines with a credit of `amountMinor` (tax included) on `chargeId`: its tax is the order's share of
 * tax in what it nets, rounded half-up once, the rest its cost; so the credit note carries the order's tax rate.
 */
export function withCredit(
  lines: Record<string, PriceLine>,
  chargeId: string,
  amountMinor: bigint,
): Record<string, PriceLine> {
  if (amountMinor <= 0n) throw new RangeError('a credit must be positive')
  const net = netCharged(lines)
  const tax = net.total > 0n && net.tax > 0n ? (2n * amountMinor * net.tax + net.total) / (2n * net.total) : 0n
  const sequence = Object.keys(lines).filter((key) => creditedChargeOf(key) !== undefined).length + 1
  return {
    ...lines,
    [creditLineKey(chargeId, sequence)]: {
      itemId: null,
      shipmentId: '',
      cost: String(-(amountMinor - tax)),
      tax: String(-tax),
    },
  }
}

/**
 * The lines with the operator's credits cut, latest first, so that they never net below zero: a partial cancel or a
 * cheaper re-plan after a credit gives back at most what the order still nets. A credit cut part-way keeps its share
 * of tax, rounded half-up once. Lines without credits, or netting zero or more, are returned as they are.
 */
export function withCreditsCapped(lines: Record<string, PriceLine>): Record<string, PriceLine> {
  let over = -netCharged(lines).total
  if (over <= 0n) return lines
  const capped = { ...lines }
  const credits = Object.keys(lines).filter((key) => creditedChargeOf(key) !== undefined)
  for (const key of credits.reverse()) {
    const line = capped[key] as PriceLine
    const amount = -(BigInt(line.cost) + BigInt(line.tax))
    if (amount <= over) {
      delete capped[key]
      over -= amount
    } else {
      const kept = amount - over
      const tax = -BigInt(line.tax) === 0n ? 0n : (2n * kept * -BigInt(line.tax) + amount) / (2n * amount)
      capped[key] = { ...line, cost: String(-(kept - tax)), tax: String(-tax) }
      over = 0n
    }
    if (over === 0n) break
  }
  return capped
}

/** Whether a line key is a shipment's prepaid duties (its charge item is an `Other` one). */
export function isDutiesLineKey(key: string): boolean {
  return key.startsWith('duties:')
}

/** The lines of priced shipments; `shipmentIds[i]` is the id of `priced[i]`. */
export function linesOfShipments(
  priced: readonly PricedShipment[],
  shipmentIds: readonly string[],
): Record<string, PriceLine> {
  const lines: Record<string, PriceLine> = {}
  priced.forEach((shipment, index) => {
    const shipmentId = shipmentIds[index]
    if (shipmentId === undefined) throw new RangeError('a priced shipment has no id')
    for (const item of shipment.items) {
      lines[itemLineKey(item.itemId)] = {
        itemId: item.itemId,
        shipmentId,
        cost: String(item.cost),
        tax: String(item.tax),
      }
    }
    lines[shippingLineKey(shipmentId)] = {
      itemId: null,
      shipmentId,
      cost: String(shipment.cost),
      tax: String(shipment.tax),
    }
    if (shipment.duties !== undefined && shipment.duties !== 0n) {
      lines[dutiesLineKey(shipmentId)] = { itemId: null, shipmentId, cost: String(shipment.duties), tax: '0' }
    }
  })
  return lines
}

/** A line of the next charge, before ids are drawn for it. */
export interface ChargeLineDraft {
  key: string
  itemId: string | null
  shipmentId: string
  cost: bigint
  tax: bigint
}

/**
 * What changes between the charged lines and `target`: one draft per line whose cost differs. A line whose
 * shipment changed but whose cost did not needs no money, only its new shipment (see `applyLines`).
 */
export function diffLines(charged: Record<string, PriceLine>, target: Record<string, PriceLine>): ChargeLineDraft[] {
  const drafts: ChargeLineDraft[] = []
  const keys = new Set([...Object.keys(charged), ...Object.keys(target)])
  for (const key of keys) {
    const before = charged[key]
    const after = target[key]
    const cost = BigInt(after?.cost ?? '0') - BigInt(before?.cost ?? '0')
    const tax = BigInt(after?.tax ?? '0') - BigInt(before?.tax ?? '0')
    if (cost === 0n && tax === 0n) continue
    const line = (after ?? before) as PriceLine
    drafts.push({ key, itemId: line.itemId, shipmentId: line.shipmentId, cost, tax })
  }
  // Item lines first, then shipping, each in id order: charges read like the order.
  return drafts.sort((a, b) => sortKey(a.key).localeCompare(sortKey(b.key)))
}

function sortKey(key: string): string {
  const [kind, id = ''] = key.split(':')
  const number = id.replace(/^\D+_/, '').padStart(15, '0')
  return `${kind === 'item' ? 0 : kind === 'shipping' ? 1 : 2}:${number}`
}

export function chargeTotal(drafts: readonly ChargeLineDraft[]): { cost: bigint; tax: bigint; total: bigint } {
  let cost = 0n
  let tax = 0n
  for (const draft of drafts) {
    cost += draft.cost
    tax += draft.tax
  }
  return { cost, tax, total: cost + tax }
}

/**
 * The charge for `drafts`, with the ids drawn for it (`lineIds` one per draft). `first` marks the order's first
 * charge (type `Item`). totalCost = sum of the lines + totalTax, like a quote's totalCost.
 */
export function buildCharge(
  drafts: readonly ChargeLineDraft[],
  currency: string,
  ids: { chargeId: string; lineIds: readonly string[] },
  first: boolean,
): Charge {
  const { tax, total } = chargeTotal(drafts)
  const items: ChargeItem[] = drafts.map((draft, index) => ({
    id: ids.lineIds[index] as string,
    // Duties are neither item nor shipping: the contract's `Other` (existing clients know it), the key says which.
    chargeType:
      draft.cost < 0n
        ? 'Refund'
        : draft.itemId
          ? 'Item'
          : isDutiesLineKey(draft.key) || creditedChargeOf(draft.key) !== undefined
            ? 'Other'
            : 'Shipping',
    itemId: draft.itemId,
    // An operator's credit belongs to no shipment.
    shipmentId: creditedChargeOf(draft.key) !== undefined ? null : draft.shipmentId,
    cost: { amount: formatMinorAsAmount(draft.cost), currency },
  }))
  return {
    id: ids.chargeId,
    chargeType: first ? 'Item' : total < 0n ? 'Refund' : 'Other',
    prodigiInvoiceNumber: null,
    totalCost: { amount: formatMinorAsAmount(total), currency },
    totalTax: { amount: formatMinorAsAmount(tax), currency },
    items,
  }
}

/** The charged lines become `target` (amounts and shipments both). */
export function applyLines(billing: BillingState, target: Record<string, PriceLine>): void {
  billing.lines = Object.fromEntries(Object.entries(target).filter(([, line]) => line.cost !== '0' || line.tax !== '0'))
}

/**
 * The charged lines without the shipping (and prepaid duties) of these shipments (a cancel after fulfilment has
 * started): a shipment that never ships crosses no border.
 */
export function withoutShipping(
  lines: Record<string, PriceLine>,
  shipmentIds: readonly string[],
): Record<string, PriceLine> {
  const dropped = new Set([...shipmentIds.map(shippingLineKey), ...shipmentIds.map(dutiesLineKey)])
  return Object.fromEntries(Object.entries(lines).filter(([key]) => !dropped.has(key)))
}

/**
 * The charged lines after the shipments `replaced` gave way to `added` (a shipping method change): every line of
 * a replaced shipment goes, the added shipments' lines come in.
 */
export function replaceShipmentLines(
  lines: Record<string, PriceLine>,
  replaced: readonly string[],
  added: Record<string, PriceLine>,
): Record<string, PriceLine> {
  const gone = new Set(replaced)
  const kept = Object.entries(lines).filter(([, line]) => !gone.has(line.shipmentId))
  return { ...Object.fromEntries(kept), ...added }
}

/**
 * A lab rejected a shipment and its items were allocated again: the charged lines follow the items to their new
 * shipments without any change of price (the merchant pays what was agreed; another lab's extra cost is
 * printroute's). A shipping line whose shipment no longer holds any charged item moves to the new shipment that
 * took the first of those items.
 */
export function followReallocatedItems(billing: BillingState, newShipmentOfItem: ReadonlyMap<string, string>): void {
  const lines = billing.lines
  const movedTo = new Map<string, string>()
  for (const line of Object.values(lines)) {
    const target = line.itemId ? newShipmentOfItem.get(line.itemId) : undefined
    if (!target || target === line.shipmentId) continue
    if (!movedTo.has(line.shipmentId)) movedTo.set(line.shipmentId, target)
    line.shipmentId = target
  }
  for (const [oldShipmentId, target] of movedTo) {
    const stillHoldsItems = Object.values(lines).some((line) => line.itemId && line.shipmentId === oldShipmentId)
    const shipping = lines[shippingLineKey(oldShipmentId)]
    if (stillHoldsItems || !shipping) continue
    delete lines[shippingLineKey(oldShipmentId)]
    const existing = lines[shippingLineKey(target)]
    lines[shippingLineKey(target)] = {
      itemId: null,
      shipmentId: target,
      cost: String(BigInt(shipping.cost) + BigInt(existing?.cost ?? '0')),
      tax: String(BigInt(shipping.tax) + BigInt(existing?.tax ?? '0')),
    }
  }
}
