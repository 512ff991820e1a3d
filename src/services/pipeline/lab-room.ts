// Whether labs have room for a Live order's new shipments (docs/allocation.md#lab-availability), read and counted
// inside the transaction that allocates them: the allocation step and the change of shipping method both plan new
// shipments, so both skip paused and full labs and count what they give, the same way.
import type { Clock } from '../../adapters/clock.ts'
import type { Queryable } from '../../adapters/database.ts'
import type { LabUnavailability } from '../../domain/allocation/model.ts'
import type { Catalogue } from '../../domain/catalogue.ts'
import { labDate, limitedLabCodes, unavailableLabs } from '../../domain/lab-availability.ts'
import type { PipelineOrder } from '../../domain/pipeline/pipeline-order.ts'
import {
  addJobsGiven,
  listLabAvailability,
  lockLabAvailability,
} from '../../repositories/lab-availability.repository.ts'
import type { LabQualitySource } from '../labs/lab-quality.service.ts'

/** What allocation needs of the labs' quality: the labs it leaves out. */
export type LabQualityGate = Pick<LabQualitySource, 'labsBelowThreshold'>

export interface LabRoom {
  /**
   * The labs a Live order may not be given now, read with the limited labs' rows locked for the transaction (in lab
   * code order, after the order's own row, as every allocation locks them); Sandbox work goes to the simulated
   * labs, which neither pause nor count.
   */
  unavailableLabsFor(order: PipelineOrder, tx: Queryable): Promise<Record<string, LabUnavailability>>
  /** Counts each planned shipment of a Live order as a job given to its lab on the lab's date. */
  countJobsGiven(order: PipelineOrder, tx: Queryable, planned: readonly { labCode: string }[]): Promise<void>
}

export function createLabRoom(deps: {
  clock: Clock
  catalogue: Catalogue
  /** The labs' quality rates (services/labs/lab-quality.service.ts); none left out for quality when absent. */
  labQuality?: LabQualityGate
}): LabRoom {
  const { clock, catalogue } = deps
  return {
    async unavailableLabsFor(order, tx) {
      if (order.environment !== 'live') return {}
      const now = clock.now()
      const states = await listLabAvailability(tx)
      const locked = await lockLabAvailability(tx, limitedLabCodes(catalogue, states, now), now)
      const lockedCodes = new Set(locked.map((state) => state.labCode))
      const current = [...states.filter((state) => !lockedCodes.has(state.labCode)), ...locked]
      // Read once per allocation (cached by the source), never per item.
      const belowQuality = (await deps.labQuality?.labsBelowThreshold(tx)) ?? []
      return unavailableLabs(catalogue, current, now, belowQuality)
    },

    async countJobsGiven(order, tx, planned) {
      if (order.environment !== 'live') return
      const now = clock.now()
      const jobsByLab = new Map<string, number>()
      for (const shipment of planned) jobsByLab.set(shipment.labCode, (jobsByLab.get(shipment.labCode) ?? 0) + 1)
      for (const [labCode, jobs] of [...jobsByLab].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const lab = catalogue.findLab(labCode)
        if (lab) await addJobsGiven(tx, lab.code, labDate(lab, now), jobs, now)
      }
    },
  }
}
