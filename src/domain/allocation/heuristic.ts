// The heuristic (allocation.ts uses it above EXACT_ALLOCATION_MAX_ITEMS items): two starting allocations, each
// improved by local search until no move helps.
import {
  type AllocationProblem,
  type ItemFacts,
  type LabFacts,
  type SearchResult,
  shipmentCostInBase,
} from './problem.ts'

/** Improvement rounds after which the heuristic stops even if a move still helps; every round strictly improves. */
export const HEURISTIC_MAX_ROUNDS = 1_000

/** An allocation being improved: which lab each item goes to, with every lab's shipment kept up to date. */
class AllocationState {
  readonly problem: AllocationProblem
  /** Lab index (rank) per item; -1 while unassigned. */
  readonly labOf: Int32Array
  totalCost = 0n
  shipmentCount = 0
  readonly #lineTotals: bigint[]
  /** Per lab, per class rank: how many of its items have that class. */
  readonly #classCounts: Int32Array[]
  readonly #itemCounts: Int32Array
  readonly #costs: bigint[]

  constructor(problem: AllocationProblem) {
    this.problem = problem
    const labCount = problem.labs.length
    this.labOf = new Int32Array(problem.items.length).fill(-1)
    this.#lineTotals = new Array<bigint>(labCount).fill(0n)
    this.#classCounts = problem.labs.map(() => new Int32Array(problem.catalogue.shippingClasses.length))
    this.#itemCounts = new Int32Array(labCount)
    this.#costs = new Array<bigint>(labCount).fill(0n)
  }

  canMake(lab: number, item: number): boolean {
    return (this.problem.labs[lab] as LabFacts).lineCosts[item] !== undefined
  }

  itemCount(lab: number): number {
    return this.#itemCounts[lab] as number
  }

  /** What the lab's shipment would cost (base minor units) with `item` added. */
  costWith(lab: number, item: number): bigint {
    const lineTotal = (this.#lineTotals[lab] as bigint) + this.#lineCost(lab, item)
    const largest = Math.max(this.#largestClass(lab, -1), (this.problem.items[item] as ItemFacts).classRank)
    return shipmentCostInBase(this.problem, lab, lineTotal, largest)
  }

  /** What the shipment of the lab `item` is assigned to would cost without it. */
  costWithout(item: number): bigint {
    const lab = this.labOf[item] as number
    const lineTotal = (this.#lineTotals[lab] as bigint) - this.#lineCost(lab, item)
    const largest = this.#largestClass(lab, (this.problem.items[item] as ItemFacts).classRank)
    return shipmentCostInBase(this.problem, lab, lineTotal, largest)
  }

  cost(lab: number): bigint {
    return this.#costs[lab] as bigint
  }

  /** Moves `item` to `lab` (or assigns it, when unassigned). */
  move(item: number, lab: number): void {
    const from = this.labOf[item] as number
    if (from === lab) return
    const classRank = (this.problem.items[item] as ItemFacts).classRank
    if (from >= 0) {
      this.#setCost(from, this.costWithout(item))
      this.#lineTotals[from] = (this.#lineTotals[from] as bigint) - this.#lineCost(from, item)
      this.#count(from, classRank, -1)
    }
    this.#setCost(lab, this.costWith(lab, item))
    this.#lineTotals[lab] = (this.#lineTotals[lab] as bigint) + this.#lineCost(lab, item)
    this.#count(lab, classRank, 1)
    this.labOf[item] = lab
  }

  #lineCost(lab: number, item: number): bigint {
    const lineCost = (this.problem.labs[lab] as LabFacts).lineCosts[item]
    if (lineCost === undefined) throw new Error(`allocation: lab ${lab} cannot make item ${item}`)
    return lineCost
  }

  /** Adds `change` (1 or -1) items of class `classRank` to the lab, keeping the shipment count right. */
  #count(lab: number, classRank: number, change: number): void {
    const counts = this.#classCounts[lab] as Int32Array
    counts[classRank] = (counts[classRank] as number) + change
    const before = this.#itemCounts[lab] as number
    this.#itemCounts[lab] = before + change
    if (before === 0) this.shipmentCount++
    else if (before + change === 0) this.shipmentCount--
  }

  #setCost(lab: number, cost: bigint): void {
    this.totalCost += cost - (this.#costs[lab] as bigint)
    this.#costs[lab] = cost
  }

  /** Rank of the lab's largest class, counting one item fewer of class `removed` (-1: none removed). */
  #largestClass(lab: number, removed: number): number {
    const counts = this.#classCounts[lab] as Int32Array
    for (let classRank = counts.length - 1; classRank >= 0; classRank--) {
      if ((counts[classRank] as number) - (classRank === removed ? 1 : 0) > 0) return classRank
    }
    return -1
  }
}

/** A snapshot of an allocation's objective: total cost, then shipment count, then the labs in item order. */
interface Objective {
  readonly totalCost: bigint
  readonly shipmentCount: number
  readonly labOf: Int32Array
}

function compareObjectives(a: Objective, b: Objective): number {
  if (a.totalCost !== b.totalCost) return a.totalCost < b.totalCost ? -1 : 1
  if (a.shipmentCount !== b.shipmentCount) return a.shipmentCount - b.shipmentCount
  for (let item = 0; item < a.labOf.length; item++) {
    const difference = (a.labOf[item] as number) - (b.labOf[item] as number)
    if (difference !== 0) return difference
  }
  return 0
}

function snapshot(state: AllocationState): Objective {
  return { totalCost: state.totalCost, shipmentCount: state.shipmentCount, labOf: state.labOf.slice() }
}

export function allocateByLocalSearch(problem: AllocationProblem): SearchResult {
  let best: Objective | undefined
  for (const start of [greedyStart(problem), fewestLabsStart(problem)]) {
    improveLocally(start)
    const result = snapshot(start)
    if (!best || compareObjectives(result, best) < 0) best = result
  }
  const { labOf, totalCost } = best as Objective
  return { labOfItem: [...labOf], cost: totalCost }
}

/**
 * Start 1: items from the largest shipping class down (request order within a class), each to the lab where it
 * adds least to the total (ties: a lab already shipping, then the lower code).
 */
function greedyStart(problem: AllocationProblem): AllocationState {
  const state = new AllocationState(problem)
  const order = problem.items.map((_, item) => item)
  order.sort((a, b) => (problem.items[b] as ItemFacts).classRank - (problem.items[a] as ItemFacts).classRank || a - b)
  for (const item of order) state.move(item, cheapestLabFor(state, item, -1))
  return state
}

/**
 * Start 2: few shipments. Repeatedly take the lab that can make the most still-unassigned items (ties: lower code)
 * and give it all of them.
 */
function fewestLabsStart(problem: AllocationProblem): AllocationState {
  const state = new AllocationState(problem)
  let unassigned = problem.items.length
  while (unassigned > 0) {
    let bestLab = -1
    let bestCount = 0
    for (let lab = 0; lab < problem.labs.length; lab++) {
      let count = 0
      for (let item = 0; item < problem.items.length; item++) {
        if (state.labOf[item] === -1 && state.canMake(lab, item)) count++
      }
      if (count > bestCount) {
        bestLab = lab
        bestCount = count
      }
    }
    // Every item has a candidate lab (checked before), so some lab always takes at least one.
    if (bestCount === 0) throw new Error('allocation: an item has no lab')
    for (let item = 0; item < problem.items.length; item++) {
      if (state.labOf[item] === -1 && state.canMake(bestLab, item)) state.move(item, bestLab)
    }
    unassigned -= bestCount
  }
  return state
}

/** The lab (other than `excluded`) where `item` adds least; ties: a lab already shipping, then the lower code. */
function cheapestLabFor(state: AllocationState, item: number, excluded: number): number {
  let bestLab = -1
  let bestIncrease = 0n
  let bestOpensShipment = true
  for (let lab = 0; lab < state.problem.labs.length; lab++) {
    if (lab === excluded || lab === state.labOf[item] || !state.canMake(lab, item)) continue
    const increase = state.costWith(lab, item) - state.cost(lab)
    const opensShipment = state.itemCount(lab) === 0
    if (
      bestLab === -1 ||
      increase < bestIncrease ||
      (increase === bestIncrease && !opensShipment && bestOpensShipment)
    ) {
      bestLab = lab
      bestIncrease = increase
      bestOpensShipment = opensShipment
    }
  }
  return bestLab
}

/**
 * Variable-neighbourhood descent. Each round takes the best single-item move (one item to another lab); when none
 * improves the objective, the best compound move: empty a lab by sending each of its items where it adds least,
 * merge a lab's whole shipment into another lab, or gather into one lab every item it can make. A move is taken
 * only if it strictly improves (cost, shipments, labs in item order), so the descent ends; HEURISTIC_MAX_ROUNDS
 * bounds it anyway.
 */
function improveLocally(state: AllocationState): void {
  for (let round = 0; round < HEURISTIC_MAX_ROUNDS; round++) {
    if (applyBestItemMove(state)) continue
    if (!applyBestCompoundMove(state)) return
  }
}

function applyBestItemMove(state: AllocationState): boolean {
  const { problem } = state
  const current = snapshot(state)
  let bestItem = -1
  let bestLab = -1
  let bestCost = current.totalCost
  let bestShipments = current.shipmentCount
  for (let item = 0; item < problem.items.length; item++) {
    const from = state.labOf[item] as number
    const costWithout = state.costWithout(item)
    const emptiesLab = state.itemCount(from) === 1
    for (let lab = 0; lab < problem.labs.length; lab++) {
      if (lab === from || !state.canMake(lab, item)) continue
      const totalCost =
        current.totalCost + (costWithout - state.cost(from)) + (state.costWith(lab, item) - state.cost(lab))
      const shipmentCount = current.shipmentCount - (emptiesLab ? 1 : 0) + (state.itemCount(lab) === 0 ? 1 : 0)
      // Compare the allocation after this move with the best so far (initially: no move at all).
      let order = totalCost < bestCost ? -1 : totalCost > bestCost ? 1 : shipmentCount - bestShipments
      if (order === 0) order = compareSingleMoves(state, item, lab, bestItem, bestLab)
      if (order < 0) {
        bestItem = item
        bestLab = lab
        bestCost = totalCost
        bestShipments = shipmentCount
      }
    }
  }
  if (bestItem === -1) return false
  state.move(bestItem, bestLab)
  return true
}

/**
 * Lexicographic order of the lab-per-item vectors after moving `item` to `lab` versus after moving `otherItem` to
 * `otherLab` (otherItem -1: no move). Each differs from the current vector in one place only.
 */
function compareSingleMoves(
  state: AllocationState,
  item: number,
  lab: number,
  otherItem: number,
  otherLab: number,
): number {
  if (otherItem === item) return lab - otherLab
  if (otherItem === -1 || item < otherItem) return lab - (state.labOf[item] as number)
  return (state.labOf[otherItem] as number) - otherLab
}

function applyBestCompoundMove(state: AllocationState): boolean {
  const { problem } = state
  const labCount = problem.labs.length
  const itemCount = problem.items.length
  let best = snapshot(state)
  let improved = false

  /** Applies a move, keeps its result if it beats the best so far, and restores the state. */
  const tryMove = (apply: () => void): void => {
    const before = state.labOf.slice()
    apply()
    const result = snapshot(state)
    if (compareObjectives(result, best) < 0) {
      best = result
      improved = true
    }
    before.forEach((lab, item) => {
      state.move(item, lab)
    })
  }

  for (let from = 0; from < labCount; from++) {
    const itemsOfLab: number[] = []
    for (let item = 0; item < itemCount; item++) if (state.labOf[item] === from) itemsOfLab.push(item)
    if (itemsOfLab.length === 0) continue
    // Empty `from`, each item going where it adds least.
    if (itemsOfLab.every((item) => problem.labs.some((_, lab) => lab !== from && state.canMake(lab, item)))) {
      tryMove(() => {
        for (const item of itemsOfLab) state.move(item, cheapestLabFor(state, item, from))
      })
    }
    // Merge `from` into another lab that makes all of its items.
    for (let into = 0; into < labCount; into++) {
      if (into === from || state.itemCount(into) === 0) continue
      if (!itemsOfLab.every((item) => state.canMake(into, item))) continue
      tryMove(() => {
        for (const item of itemsOfLab) state.move(item, into)
      })
    }
  }
  // Gather into one lab everything it can make.
  for (let into = 0; into < labCount; into++) {
    tryMove(() => {
      for (let item = 0; item < itemCount; item++) if (state.canMake(into, item)) state.move(item, into)
    })
  }

  if (!improved) return false
  best.labOf.forEach((lab, item) => {
    state.move(item, lab)
  })
  return true
}
