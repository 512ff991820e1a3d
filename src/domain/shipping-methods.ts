// The five shipping methods of the specification, slowest to fastest. Accepted in any letter case on the
// wire, always returned in this spelling (docs/wire-contract.md#enumerations).
export const SHIPPING_METHODS = ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'] as const
export type ShippingMethod = (typeof SHIPPING_METHODS)[number]

/**
 * How urgently a lab should take a shipment up, from its shipping method (docs/pipeline.md#labs): a customer who
 * paid for a faster method expects the lab to hurry as well as the carrier.
 */
export const LAB_PRIORITIES = ['normal', 'high', 'urgent'] as const
export type LabPriority = (typeof LAB_PRIORITIES)[number]

const PRIORITY_OF_METHOD: Readonly<Record<ShippingMethod, LabPriority>> = {
  Budget: 'normal',
  Standard: 'normal',
  StandardPlus: 'high',
  Express: 'urgent',
  Overnight: 'urgent',
}

/** The lab priority of a shipping method in any letter case; `normal` for a name that is not a method. */
export function labPriorityOf(method: string): LabPriority {
  const canonical = canonicalSpelling(SHIPPING_METHODS, method)
  return canonical ? PRIORITY_OF_METHOD[canonical] : 'normal'
}

export const SIZING_MODES = ['fillPrintArea', 'fitPrintArea', 'stretchToPrintArea'] as const
export type SizingMode = (typeof SIZING_MODES)[number]

/** Returns the canonical spelling of `value` among `allowed`, matched case-insensitively, or undefined. */
export function canonicalSpelling<T extends string>(allowed: readonly T[], value: string): T | undefined {
  const lower = value.toLowerCase()
  return allowed.find((candidate) => candidate.toLowerCase() === lower)
}
