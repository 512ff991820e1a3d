// Durations on the command line and in settings: "100ms", "1.5s", "30m", "2h", "1d", "0", or a plain number
// of seconds (what the flags took before units existed, kept so existing configurations mean the same).
const UNIT_MILLISECONDS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** Parses a duration into whole milliseconds; throws a readable error for anything else. */
export function parseDurationMilliseconds(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|[smhd])?\s*$/i.exec(text)
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 100ms, 1.5s, 30m, 2h, 1d or 0)`)
  const [, amount = '0', unit = 's'] = match
  const milliseconds = Number(amount) * (UNIT_MILLISECONDS[unit.toLowerCase()] ?? 1000)
  if (!Number.isSafeInteger(Math.round(milliseconds))) throw new Error(`"${text}" is too long a duration`)
  return Math.round(milliseconds)
}

/** A duration in seconds, fractions of a second kept ("1.5s" -> 1.5, "100ms" -> 0.1). */
export function parseDurationSeconds(text: string): number {
  return parseDurationMilliseconds(text) / 1000
}

export function formatDurationSeconds(seconds: number): string {
  if (seconds === 0) return '0'
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`
  }
  return `${Math.round(seconds * 1000)}ms`
}
