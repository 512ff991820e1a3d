// The operator's actions on labs: their keys for the lab API and portal, pauses, push endpoints.

import type { LabKeyView } from '../../domain/lab-keys.ts'
import type { LabPushChange, LabPushSettingsView } from '../labs/lab-pushes.service.ts'
import { type OperatorContext, refused, translated } from './context.ts'

export async function createLabKey(context: OperatorContext, input: { lab: string }): Promise<{ key: string }> {
  const issued = await translated(() => context.labs.createLabKey(input.lab, context.actor), 2)
  return { key: issued.key }
}

export async function listLabKeys(context: OperatorContext, input: { lab: string }): Promise<LabKeyView[]> {
  return translated(() => context.labs.listLabKeys(input.lab), 2)
}

export async function rotateLabKey(context: OperatorContext, input: { lab: string; overlapSeconds?: number }) {
  const overlap = input.overlapSeconds
  if (overlap !== undefined && typeof overlap !== 'number') throw refused('--overlap must be a duration')
  const rotated = await translated(() => context.labs.rotateLabKey(input.lab, overlap, context.actor), 2)
  return { key: rotated.key, created: rotated.view, replaced: rotated.replaced }
}

export async function revokeLabKey(context: OperatorContext, input: { lab: string; keyId: string }) {
  return translated(() => context.labs.revokeLabKey(input.lab, input.keyId, context.actor), 2)
}

export async function setLabPaused(
  context: OperatorContext,
  input: { lab: string; paused: boolean },
): Promise<{ lab: string; wasPaused: boolean }> {
  const result = await translated(() => context.labs.setPaused(input.lab, input.paused === true, context.actor), 2)
  return { lab: input.lab, wasPaused: result.wasPaused }
}

export async function configureLabPush(
  context: OperatorContext,
  input: { lab: string } & LabPushChange,
): Promise<LabPushSettingsView & { secret?: string }> {
  const change: LabPushChange = {
    ...(typeof input.pushUrl === 'string' ? { pushUrl: input.pushUrl } : {}),
    ...(input.rotateSecret === true ? { rotateSecret: true } : {}),
    ...(input.removePush === true ? { removePush: true } : {}),
  }
  return translated(() => context.labPushes.configure(input.lab, change, context.actor), 2)
}

export async function showLabPush(context: OperatorContext, input: { lab: string }): Promise<LabPushSettingsView> {
  return translated(() => context.labPushes.show(input.lab), 2)
}
