// Money on the wire ("12.34") as exact minor units, for sums a test compares with the pricing code's.

/** "12.34" -> 1234n; amounts on the wire always carry two decimals. */
export const minorUnits = (amount: string): bigint => BigInt(amount.replace('.', ''))
