// The labs' quality rates (docs/allocation.md#lab-quality): upheld claims per 1,000 items shipped over the last 90
// days, read once and reused for LAB_QUALITY_CACHE_SECONDS by every allocation, quote, routing and page of this
// process, so allocation (hot code) never reads them per item or per order. The decision itself is pure
// (domain/lab-quality.ts), made against the catalogue served at the time of the call.
import type { Clock } from '../../adapters/clock.ts'
import type { Queryable } from '../../adapters/database.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { CLAIM_CATEGORIES } from '../../domain/claims.ts'
import {
  LAB_QUALITY_CACHE_SECONDS,
  type LabQuality,
  type LabQualityCounts,
  labQualityOf,
  labQualityWindowStart,
  labsBelowQuality,
} from '../../domain/lab-quality.ts'
import { readLabQualityCounts } from '../../repositories/lab-claims.repository.ts'

export interface LabQualitySource {
  /**
   * The labs of the catalogue whose rate is above their threshold now: allocation leaves them out. `db`: the
   * transaction the caller holds, read through when the counts are not cached (PGlite has one connection).
   */
  labsBelowThreshold(db?: Queryable): Promise<string[]>
  /** Every lab of the catalogue with its quality, in catalogue order (the console, the portal). */
  all(): Promise<LabQuality[]>
  /** One lab's quality. */
  of(labCode: string): Promise<LabQuality | undefined>
}

/** The claim categories in which an upheld claim counts against the lab. */
const AT_FAULT_CATEGORIES = CLAIM_CATEGORIES.filter((category) => category.labAtFault).map((entry) => entry.category)

export function createLabQualitySource(deps: {
  db: Queryable
  clock: Clock
  catalogue: Catalogue
  /** How long counts are reused; LAB_QUALITY_CACHE_SECONDS by default. */
  cacheSeconds?: number
}): LabQualitySource {
  const { db, clock, catalogue } = deps
  const cacheMs = (deps.cacheSeconds ?? LAB_QUALITY_CACHE_SECONDS) * 1000
  let cached: { readAt: number; counts: Promise<LabQualityCounts[]> } | undefined

  function counts(through: Queryable = db): Promise<LabQualityCounts[]> {
    const now = clock.now()
    if (cached && now.getTime() - cached.readAt < cacheMs && now.getTime() >= cached.readAt) return cached.counts
    const read = readLabQualityCounts(through, labQualityWindowStart(now), AT_FAULT_CATEGORIES)
    cached = { readAt: now.getTime(), counts: read }
    // A failed read is not kept: the next call reads again.
    read.catch(() => {
      if (cached?.counts === read) cached = undefined
    })
    return read
  }

  async function all(): Promise<LabQuality[]> {
    const byCode = new Map((await counts()).map((entry) => [entry.labCode, entry]))
    return catalogue.labs.map((lab) => labQualityOf(lab, byCode.get(lab.code)))
  }

  return {
    async labsBelowThreshold(through) {
      // No threshold anywhere (the usual catalogue): nothing to read.
      if (!catalogue.labs.some((lab) => lab.qualityThreshold !== null)) return []
      return labsBelowQuality(catalogue, await counts(through))
    },
    all,
    async of(labCode) {
      return (await all()).find((quality) => quality.labCode === labCode)
    },
  }
}
