// The catalogue a process serves, switchable without a restart (docs/catalogue.md#switching). Services keep
// holding a `Catalogue`: what they hold is a Proxy that hands every member access to the version served now.
// `Catalogue` keeps its indexes in #private fields, which only the real object may read, so its methods are
// handed out bound to that object.
//
// The rule: the served version changes only between two turns of the event loop (the watcher's timer
// switches it), so a synchronous computation (matching an order, pricing, allocating) sees one version from
// start to end. Work that awaits in between and must stay on one version takes `pinnedCatalogue(catalogue)`
// first and uses that.
import type { Catalogue } from './catalogue.ts'

/** How many versions besides the served one a process keeps in memory for work recorded with them. */
export const KEPT_CATALOGUE_VERSIONS = 4

export interface LiveCatalogue {
  /** What services hold: always the version served now. */
  readonly catalogue: Catalogue
  /** The version served now. */
  readonly version: number
  /** The served catalogue itself (its `version` answered), stable across later switches. */
  current(): Catalogue
  /** Serves `catalogue` as `version` from now on; the one served before stays readable through `kept`. */
  switchTo(catalogue: Catalogue, version: number): void
  /** A version this process has served or loaded, if it still keeps it. */
  kept(version: number): Catalogue | undefined
  /** Keeps a version loaded for older work (an in-flight order's), without serving it. */
  keep(catalogue: Catalogue, version: number): Catalogue
}

const liveTargets = new WeakMap<object, () => Catalogue>()

/** Members of `catalogue` with `this` bound to it, made once per catalogue and member. */
const boundMembers = new WeakMap<Catalogue, Map<PropertyKey, unknown>>()

function memberOf(catalogue: Catalogue, property: PropertyKey): unknown {
  const value = Reflect.get(catalogue, property, catalogue)
  if (typeof value !== 'function') return value
  let bound = boundMembers.get(catalogue)
  if (!bound) {
    bound = new Map()
    boundMembers.set(catalogue, bound)
  }
  let member = bound.get(property)
  if (!member) {
    member = value.bind(catalogue)
    bound.set(property, member)
  }
  return member
}

/** `catalogue` answering `version` as its version (the stored number it was loaded as). */
export function versionedCatalogue(catalogue: Catalogue, version: number): Catalogue {
  return new Proxy(catalogue, {
    get: (target, property) => (property === 'version' ? version : memberOf(target, property)),
  })
}

/** A live catalogue serving `initial` as `version`. */
export function createLiveCatalogue(initial: Catalogue, version: number): LiveCatalogue {
  let served = versionedCatalogue(initial, version)
  let servedVersion = version
  const kept = new Map<number, Catalogue>([[version, served]])

  const keep = (catalogue: Catalogue, number: number): Catalogue => {
    const versioned = catalogue.version === number ? catalogue : versionedCatalogue(catalogue, number)
    kept.delete(number)
    kept.set(number, versioned)
    // The oldest kept first out, never the served one.
    for (const old of kept.keys()) {
      if (kept.size <= KEPT_CATALOGUE_VERSIONS + 1) break
      if (old !== servedVersion) kept.delete(old)
    }
    return versioned
  }

  const current = () => served
  const proxy = new Proxy(initial, {
    get: (_target, property) => memberOf(served, property),
    has: (_target, property) => Reflect.has(served, property),
  })
  liveTargets.set(proxy, current)
  return {
    catalogue: proxy,
    get version() {
      return servedVersion
    },
    current,
    switchTo(catalogue, number) {
      servedVersion = number
      served = keep(catalogue, number)
    },
    kept: (number) => kept.get(number),
    keep,
  }
}

/**
 * The version `catalogue` serves now, fixed: for work that awaits between its reads and must not see two
 * versions. A catalogue that is not live is returned as it is.
 */
export function pinnedCatalogue(catalogue: Catalogue): Catalogue {
  return liveTargets.get(catalogue)?.() ?? catalogue
}
