// Durations on the command line and in settings: "30m", "2s", "1h", "1d", "0", or a plain number of seconds.
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 }

/** Parses a duration into whole seconds; throws a readable error for anything else. */
export function parseDurationSeconds(text: string): number {
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(text)
  if (!match) throw new Error(`"${text}" is not a duration (use e.g. 30s, 30m, 2h, 1d or 0)`)
  const [, amount = '0', unit = ''] = match
  return Number(amount) * (UNIT_SECONDS[unit.toLowerCase()] ?? 1)
}

export function formatDurationSeconds(seconds: number): string {
  if (seconds === 0) return '0'
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`
  }
  return `${seconds}s`
}
