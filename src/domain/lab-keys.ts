// A lab key as the command line and the console list it: services/labs/labs.service.ts builds it,
// dashboard/admin/labs.pages.ts shows it.

/**
 * A lab key's state: `active`; `expiring` (a rotation replaced it, it works until `expiresAt`); `expired` (its
 * overlap is over); `revoked`. Only `active` and `expiring` keys are accepted.
 */
export type LabKeyState = 'active' | 'expiring' | 'expired' | 'revoked'

/** A lab key as `labs keys list` and the console show it: never the key, only its visible prefix. */
export interface LabKeyView {
  /** `lbk_N`: what `labs keys revoke` and the console name it by. */
  id: string
  lab: string
  prefix: string
  state: LabKeyState
  created: string
  /** The key's last lab API call, to the minute; null: none recorded. */
  lastUsed: string | null
  /** Until when a rotated key works; null: it does not expire. */
  expiresAt: string | null
  revoked: string | null
}
