// Approval of the orders a storefront channel or a CSV import creates (docs/channels.md#approval,
// docs/imports.md#approval), as pure rules. `automatic` creates the order at once (what a channel or an import did
// before the setting existed); `delayed` (channels) creates it held before production for `delayHours`, with the
// order's own `holdUntil`, so the merchant can look at it first; `manual` creates it as a draft the merchant confirms.
import { addFailure, type Failures } from './failures.ts'
import { MAX_HOLD_DAYS } from './limits.ts'

export const CHANNEL_APPROVAL_MODES = ['automatic', 'delayed', 'manual'] as const
export type ChannelApprovalMode = (typeof CHANNEL_APPROVAL_MODES)[number]

export const IMPORT_APPROVAL_MODES = ['automatic', 'manual'] as const
export type ImportApprovalMode = (typeof IMPORT_APPROVAL_MODES)[number]

/** The longest delay: an order's own hold may name at most MAX_HOLD_DAYS ahead. */
export const MAX_APPROVAL_DELAY_HOURS = MAX_HOLD_DAYS * 24

export interface ChannelApproval {
  mode: ChannelApprovalMode
  /** Only for `delayed`: hours from the order's create to its start, 1..MAX_APPROVAL_DELAY_HOURS. */
  delayHours?: number
}

export const AUTOMATIC_APPROVAL: ChannelApproval = { mode: 'automatic' }

/**
 * The approval a request names, checked: `delayHours` a whole number 1..336 with `delayed` and absent otherwise.
 * Failures are added under `approval.mode` / `approval.delayHours`; undefined when any was added.
 */
export function checkChannelApproval(
  input: { mode?: unknown; delayHours?: unknown },
  failures: Failures,
): ChannelApproval | undefined {
  const before = Object.keys(failures).length
  const mode = input.mode
  if (!CHANNEL_APPROVAL_MODES.includes(mode as ChannelApprovalMode)) {
    addFailure(failures, 'approval.mode', {
      code: mode === undefined || mode === null ? 'Required' : 'InvalidValue',
      providedValue: mode ?? null,
      validValues: [...CHANNEL_APPROVAL_MODES],
    })
    return undefined
  }
  const delayHours = input.delayHours
  if (mode === 'delayed') {
    if (delayHours === undefined || delayHours === null) {
      addFailure(failures, 'approval.delayHours', { code: 'Required', providedValue: null })
    } else if (typeof delayHours !== 'number' || !Number.isInteger(delayHours)) {
      addFailure(failures, 'approval.delayHours', { code: 'InvalidFormat', providedValue: delayHours })
    } else if (delayHours < 1) {
      addFailure(failures, 'approval.delayHours', {
        code: 'MustBeGreaterThanOrEqualTo',
        providedValue: delayHours,
        comparisonValue: 1,
      })
    } else if (delayHours > MAX_APPROVAL_DELAY_HOURS) {
      addFailure(failures, 'approval.delayHours', {
        code: 'MustBeLessThanOrEqualTo',
        providedValue: delayHours,
        comparisonValue: MAX_APPROVAL_DELAY_HOURS,
      })
    }
  } else if (delayHours !== undefined && delayHours !== null) {
    // A delay with another mode would be silently ignored: say so instead.
    addFailure(failures, 'approval.delayHours', {
      code: 'InvalidValue',
      providedValue: delayHours,
      comparisonValue: 'only with mode "delayed"',
    })
  }
  if (Object.keys(failures).length > before) return undefined
  return mode === 'delayed' ? { mode, delayHours: delayHours as number } : { mode: mode as ChannelApprovalMode }
}

/** How an order created at `now` under this approval is created: as a draft, held until an instant, or plainly. */
export function approvalCreateFields(approval: ChannelApproval, now: Date): { draft?: true; holdUntil?: string } {
  if (approval.mode === 'manual') return { draft: true }
  if (approval.mode === 'delayed' && approval.delayHours !== undefined) {
    return { holdUntil: new Date(now.getTime() + approval.delayHours * 3_600_000).toISOString() }
  }
  return {}
}
