// A lab's quality (docs/allocation.md#lab-quality): claims upheld against it per 1,000 items it shipped over the last
// 90 days, and whether that keeps it from new Live work. Pure: the quality source reads the counts
// (repositories/lab-claims.repository.ts), the allocation is given the labs this rules out.
import type { Catalogue } from './catalogue.ts'
import type { Lab } from './catalogue.types.ts'

/** The window the rate looks back over. */
export const LAB_QUALITY_WINDOW_DAYS = 90
/**
 * Below this many items shipped in the window a lab is never left out: a lab's first few claims say little about
 * it, and one upheld claim among ten items would otherwise be a rate of 100.
 */
export const LAB_QUALITY_MIN_ITEMS_SHIPPED = 50
/** How long a process reuses the counts it read: allocation is hot, and a rate moves slowly. */
export const LAB_QUALITY_CACHE_SECONDS = 60

/** What a lab's rate is computed from, over the window. */
export interface LabQualityCounts {
  labCode: string
  /** Claimed items of Resolved claims against the lab in a category where the lab is at fault (resolved in the window). */
  upheldItems: number
  /** Items of the lab's Live shipments it shipped in the window. */
  itemsShipped: number
}

/** A lab's quality as the console and the lab portal show it. */
export interface LabQuality extends LabQualityCounts {
  /** Upheld claims per 1,000 items shipped, to one decimal; null when the lab shipped nothing in the window. */
  ratePerThousand: number | null
  /** The catalogue's threshold; null when none is set. */
  threshold: number | null
  /** Whether the rate leaves the lab out of allocation now (QualityBelowThreshold). */
  belowThreshold: boolean
}

/** The start of the window ending at `now`. */
export function labQualityWindowStart(now: Date): Date {
  return new Date(now.getTime() - LAB_QUALITY_WINDOW_DAYS * 86_400_000)
}

/** Upheld claims per 1,000 items shipped, to one decimal; null without items shipped. */
export function qualityRatePerThousand(counts: Pick<LabQualityCounts, 'upheldItems' | 'itemsShipped'>): number | null {
  if (counts.itemsShipped <= 0) return null
  return Math.round((counts.upheldItems * 10_000) / counts.itemsShipped) / 10
}

/**
 * Whether the lab's rate is above its threshold: never without a threshold, and never below the minimum volume
 * (LAB_QUALITY_MIN_ITEMS_SHIPPED). Compared unrounded, so a rate just above the threshold counts as above it.
 */
export function isBelowQualityThreshold(
  lab: Pick<Lab, 'qualityThreshold'>,
  counts: Pick<LabQualityCounts, 'upheldItems' | 'itemsShipped'> | undefined,
): boolean {
  if (lab.qualityThreshold === null || !counts) return false
  if (counts.itemsShipped < LAB_QUALITY_MIN_ITEMS_SHIPPED) return false
  return (counts.upheldItems * 1000) / counts.itemsShipped > lab.qualityThreshold
}

/** The lab's quality from its counts (a lab without counts shipped nothing and had nothing upheld). */
export function labQualityOf(
  lab: Pick<Lab, 'code' | 'qualityThreshold'>,
  counts: LabQualityCounts | undefined,
): LabQuality {
  const own = counts ?? { labCode: lab.code, upheldItems: 0, itemsShipped: 0 }
  return {
    labCode: lab.code,
    upheldItems: own.upheldItems,
    itemsShipped: own.itemsShipped,
    ratePerThousand: qualityRatePerThousand(own),
    threshold: lab.qualityThreshold,
    belowThreshold: isBelowQualityThreshold(lab, own),
  }
}

/** The catalogue's labs whose rate is above their threshold: what the allocation leaves out. */
export function labsBelowQuality(catalogue: Catalogue, counts: readonly LabQualityCounts[]): string[] {
  const byCode = new Map(counts.map((entry) => [entry.labCode, entry]))
  return catalogue.labs.filter((lab) => isBelowQualityThreshold(lab, byCode.get(lab.code))).map((lab) => lab.code)
}
