// How far apart two strings are, for "did you mean" answers: the optimal string alignment distance (Levenshtein's
// insertions, deletions and substitutions, plus a swap of two neighbouring characters, each counting 1), so
// that "CFMP" is one step from "CFPM" as a person mistypes it.

/** The optimal string alignment distance between `a` and `b`, by UTF-16 code unit, case-sensitive. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  // Three rows of the dynamic programme: the one before the previous is needed for swaps.
  let beforePrevious = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (beforePrevious[j - 2] as number) + 1)
      }
      current[j] = best
    }
    ;[beforePrevious, previous, current] = [previous, current, beforePrevious]
  }
  return previous[b.length] as number
}

export interface NearestOptions {
  /** How many to return at most. */
  limit: number
  /** The largest distance still counted as near, given the length of the value looked for. */
  maxDistance: (valueLength: number) => number
}

/**
 * The candidates nearest to `value`, letter case ignored: within `maxDistance`, nearest first (ties in the
 * candidates' own order), at most `limit`. A candidate equal to `value` but for case is at distance 0.
 */
export function nearestMatches(value: string, candidates: readonly string[], options: NearestOptions): string[] {
  const wanted = value.toLowerCase()
  const furthest = options.maxDistance(wanted.length)
  const near: { candidate: string; distance: number; position: number }[] = []
  candidates.forEach((candidate, position) => {
    // The distance is at least the difference in length: most candidates are ruled out without the programme.
    if (Math.abs(candidate.length - wanted.length) > furthest) return
    const distance = editDistance(wanted, candidate.toLowerCase())
    if (distance <= furthest) near.push({ candidate, distance, position })
  })
  near.sort((x, y) => x.distance - y.distance || x.position - y.position)
  return near.slice(0, options.limit).map((entry) => entry.candidate)
}
