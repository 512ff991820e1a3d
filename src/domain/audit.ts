// The audit trail (docs/audit.md): who changed what, when, with before and after where it applies. Entries are
// appended in the transaction of the change they record and never changed or deleted (the database refuses both,
// migrations/0018_audit_trail.sql). Values recorded never hold a secret: a key is named by its prefix, a signing
// secret by whether it was rotated, never by its value.

import type { Environment } from './environment.ts'

/**
 * Who made a change: an operator of the console, a merchant's API key (`key`) or a dashboard session made from
 * one (`session`), a lab through the lab API or portal, the command line on a host, or printroute itself.
 */
export type AuditActor =
  | { kind: 'operator'; operatorId: string; name: string }
  | { kind: 'key'; accountId: number; keyPrefix: string }
  | { kind: 'session'; accountId: number; keyPrefix: string }
  | { kind: 'lab'; labCode: string }
  | { kind: 'cli'; host: string; user: string }
  | { kind: 'system' }

export type AuditActorKind = AuditActor['kind']
/** Every kind of actor, in the order the console's filter lists them. */
export const AUDIT_ACTOR_KINDS = [
  'operator',
  'key',
  'session',
  'lab',
  'cli',
  'system',
] as const satisfies readonly AuditActorKind[]

export function isAuditActorKind(value: string): value is AuditActorKind {
  return (AUDIT_ACTOR_KINDS as readonly string[]).includes(value)
}

/** Every action the trail records; the API's `action` filter takes these. */
export const AUDIT_ACTIONS = [
  'account.created',
  'account.settingsChanged',
  'account.suspended',
  'account.reactivated',
  'account.toppedUp',
  'account.cardSaved',
  'account.cardRemoved',
  'key.created',
  'key.revoked',
  'lab.keyCreated',
  'lab.keyRotated',
  'lab.keyRevoked',
  'lab.paused',
  'lab.resumed',
  'lab.pushConfigured',
  'lab.capacityReported',
  'lab.statementIssued',
  'catalogue.imported',
  'catalogue.activated',
  'invoice.issued',
  'creditNote.issued',
  'invoice.sellerChanged',
  'operator.created',
  'operator.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.disabled',
  'webhook.missedRedelivered',
  'idempotencyKey.refused',
  'order.shipmentMoved',
  'order.cancelled',
  'order.refunded',
  'order.downloadRetried',
  'order.released',
  'order.noteAdded',
  'claim.created',
  'claim.resolved',
  'claim.rejected',
  'payment.cardRefundFailed',
  'payment.refundedOutside',
  'payment.disputeOpened',
  'payment.disputeClosed',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value)
}

/** One change to record. `accountId` is the account it concerns (null: the instance's own, a lab or catalogue). */
export interface AuditRecord {
  actor: AuditActor
  action: AuditAction
  accountId: number | null
  environment: Environment | null
  /** What was changed, by its public name: `acc_3`, a key prefix, a lab code, `catalogue v4`, an invoice number. */
  target: string | null
  /** The state before and after the change (JSON-safe, no secrets); null where it does not apply. */
  before?: unknown
  after?: unknown
}

/** The actor as one line of text: `operator opr_2 (Dana)`, `key pr_live_ab12 of acc_3`, `lab LAB-UK`, ... */
export function describeActor(actor: AuditActor): string {
  switch (actor.kind) {
    case 'operator':
      return `operator ${actor.operatorId} (${actor.name})`
    case 'key':
      return `key ${actor.keyPrefix} of acc_${actor.accountId}`
    case 'session':
      return `dashboard session of key ${actor.keyPrefix} of acc_${actor.accountId}`
    case 'lab':
      return `lab ${actor.labCode}`
    case 'cli':
      return `command line (${actor.user}@${actor.host})`
    case 'system':
      return 'printroute'
  }
}

/** The actor's identity as stored in its own column (`actor`): the part after the kind. */
export function actorIdentity(actor: AuditActor): string {
  switch (actor.kind) {
    case 'operator':
      return actor.operatorId
    case 'key':
    case 'session':
      return actor.keyPrefix
    case 'lab':
      return actor.labCode
    case 'cli':
      return `${actor.user}@${actor.host}`
    case 'system':
      return 'printroute'
  }
}

/**
 * What a change of settings changed, for its audit entry: each field whose value differs, before and after (compared
 * as JSON, so lists and objects compare by content); a secret rotation is the fact `signingSecretRotated: true`, never
 * the secret. Undefined when nothing changed.
 */
export function settingsDifference(
  was: Readonly<Record<string, unknown>>,
  now: Readonly<Record<string, unknown>>,
  rotated: boolean,
): { before: Record<string, unknown> | null; after: Record<string, unknown> } | undefined {
  const before: Record<string, unknown> = {}
  const after: Record<string, unknown> = {}
  for (const field of Object.keys(now)) {
    if (JSON.stringify(was[field]) !== JSON.stringify(now[field])) {
      before[field] = was[field]
      after[field] = now[field]
    }
  }
  if (rotated) after.signingSecretRotated = true
  if (Object.keys(after).length === 0) return undefined
  return { before: Object.keys(before).length > 0 ? before : null, after }
}

/** One entry as the API and the console show it; before and after are the recorded JSON, parsed. */
export interface AuditEntry {
  /** `aud_<number>`: entries are numbered as they are appended, so a higher id is a later entry. */
  id: string
  at: string
  actor: { kind: AuditActorKind; description: string }
  action: AuditAction
  /** The account the change concerns (`acc_<number>`); null for the instance's own (labs, catalogue, operators). */
  accountId: string | null
  environment: Environment | null
  target: string | null
  before: unknown
  after: unknown
}

/** Which entries to read; every filter optional. `before`: an entry id, the page continues with older entries. */
export interface AuditQuery {
  accountId?: number
  actions?: readonly AuditAction[]
  actorKind?: AuditActorKind
  from?: Date
  to?: Date
  before?: string
  top?: number
}

export interface AuditPage {
  entries: AuditEntry[]
  hasMore: boolean
  /** The `before` of the next page (the id of this page's oldest entry); null on the last page. */
  nextBefore: string | null
}
