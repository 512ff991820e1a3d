// The five shipping methods of the specification, slowest to fastest. Accepted in any letter case on the
// wire, always returned in this spelling (docs/wire-contract.md#enumerations).
export const SHIPPING_METHODS = ['Budget', 'Standard', 'StandardPlus', 'Express', 'Overnight'] as const
export type ShippingMethod = (typeof SHIPPING_METHODS)[number]

export const SIZING_MODES = ['fillPrintArea', 'fitPrintArea', 'stretchToPrintArea'] as const
export type SizingMode = (typeof SIZING_MODES)[number]

/** Returns the canonical spelling of `value` among `allowed`, matched case-insensitively, or undefined. */
export function canonicalSpelling<T extends string>(allowed: readonly T[], value: string): T | undefined {
  const lower = value.toLowerCase()
  return allowed.find((candidate) => candidate.toLowerCase() === lower)
}
