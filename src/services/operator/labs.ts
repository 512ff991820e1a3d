// The operator's actions on labs: their keys for the lab API and portal, pauses, push endpoints. One function per
// action, called by the command line (operator.service.ts) and the console's labs section (console-sections.ts)
// alike; each front end turns the labs service's refusals into its own errors around them.

import type { LabKeyView } from '../../domain/lab-keys.ts'
import type { LabStatementContent, LabStatementSummary } from '../../domain/lab-statements.ts'
import type { LabPushChange, LabPushSettingsView } from '../labs/lab-pushes.service.ts'
import type { OperatorContext } from './context.ts'

/** What the lab actions run on: the command line's context, or the console's with its operator as actor. */
export type LabsDeps = Pick<OperatorContext, 'labs' | 'actor'>

/** A new key for a catalogue lab, shown this once, and its listing view. */
export async function createLabKey(
  deps: LabsDeps,
  input: { lab: string },
): Promise<{ key: string; created: LabKeyView }> {
  const issued = await deps.labs.createLabKey(input.lab, deps.actor)
  return { key: issued.key, created: issued.view }
}

/** A lab's keys, newest first: ids, prefixes and states, never a key. */
export async function listLabKeys(deps: Pick<LabsDeps, 'labs'>, input: { lab: string }): Promise<LabKeyView[]> {
  return deps.labs.listLabKeys(input.lab)
}

/** A new key for a lab; its other working keys work on for `overlapSeconds` (the labs service's default if absent). */
export async function rotateLabKey(
  deps: LabsDeps,
  input: { lab: string; overlapSeconds?: number },
): Promise<{ key: string; created: LabKeyView; replaced: LabKeyView[] }> {
  const rotated = await deps.labs.rotateLabKey(input.lab, input.overlapSeconds, deps.actor)
  return { key: rotated.key, created: rotated.view, replaced: rotated.replaced }
}

/** Revokes a lab's key by id (`lbk_N`) or prefix: its next lab API call is 401, its portal sessions end now. */
export async function revokeLabKey(
  deps: LabsDeps,
  input: { lab: string; keyId: string },
): Promise<{ key: LabKeyView; wasRevoked: boolean; sessionsEnded: number }> {
  return deps.labs.revokeLabKey(input.lab, input.keyId, deps.actor)
}

/** Pauses a catalogue lab (no new work goes to it) or resumes it; whether it was paused before. */
export async function setLabPaused(
  deps: LabsDeps,
  input: { lab: string; paused: boolean },
): Promise<{ wasPaused: boolean }> {
  return deps.labs.setPaused(input.lab, input.paused === true, deps.actor)
}

/** Sets, rotates or removes a lab's push endpoint; `secret` only when a new one was made (shown this once). */
export async function configureLabPush(
  deps: Pick<OperatorContext, 'labPushes' | 'actor'>,
  input: { lab: string } & LabPushChange,
): Promise<LabPushSettingsView & { secret?: string }> {
  const change: LabPushChange = {
    ...(typeof input.pushUrl === 'string' ? { pushUrl: input.pushUrl } : {}),
    ...(input.rotateSecret === true ? { rotateSecret: true } : {}),
    ...(input.removePush === true ? { removePush: true } : {}),
  }
  return deps.labPushes.configure(input.lab, change, deps.actor)
}

/** A lab's push settings (never the secret, only its start) and delivery health. */
export async function showLabPush(
  deps: Pick<OperatorContext, 'labPushes'>,
  input: { lab: string },
): Promise<LabPushSettingsView> {
  return deps.labPushes.show(input.lab)
}

/** What the statement actions run on. */
export type LabStatementsDeps = Pick<OperatorContext, 'labStatements'>

/**
 * A lab's payables statement of a month (docs/billing.md#lab-payables-statements): issued now (audited as the
 * actor's), or the one already issued; its PDF and CSV, drawn from its fixed content.
 */
export async function labStatement(
  deps: Pick<OperatorContext, 'labStatements' | 'actor'>,
  input: { lab: string; month: string },
): Promise<{ statement: LabStatementContent; issued: boolean; pdf: Uint8Array; csv: string }> {
  const { statement, issued } = await deps.labStatements.issue(input.lab, input.month, deps.actor)
  return { statement, issued, pdf: await deps.labStatements.pdf(statement), csv: deps.labStatements.csv(statement) }
}

/** A lab's statements, newest month first. */
export async function listLabStatements(
  deps: LabStatementsDeps,
  input: { lab: string },
): Promise<LabStatementSummary[]> {
  return deps.labStatements.list(input.lab)
}

/** One of a lab's statements as a file; undefined for a number the lab has no statement of. */
export async function labStatementFile(
  deps: LabStatementsDeps,
  input: { lab: string; number: string; format: 'pdf' | 'csv' },
): Promise<{ fileName: string; contentType: string; body: Uint8Array | string } | undefined> {
  const statement = await deps.labStatements.read(input.number, input.lab)
  if (!statement) return undefined
  return input.format === 'pdf'
    ? {
        fileName: `${statement.number}.pdf`,
        contentType: 'application/pdf',
        body: await deps.labStatements.pdf(statement),
      }
    : {
        fileName: `${statement.number}.csv`,
        contentType: 'text/csv; charset=utf-8',
        body: deps.labStatements.csv(statement),
      }
}
