// Account settings: callback URL, pause window, callback signing secret (docs/api.md "Account settings").
import { Type } from 'typebox'
import { MAX_PAUSE_WINDOW_SECONDS, MAX_SIGNING_OVERLAP_SECONDS } from '../../services/accounts.service.ts'
import { Nullable, NullableUrlString, named, Outcome, TraceParent } from './common.schema.ts'

const SettingsSchema = named(
  'AccountSettings',
  Type.Object({
    callbackUrl: Nullable(Type.String()),
    pauseWindowSeconds: Type.Integer(),
    signingSecret: Type.String({
      description: 'Callbacks are signed with this secret (Standard Webhooks, whsec_...).',
    }),
    previousSigningSecretExpiresAt: Nullable(Type.String()),
  }),
)

export const SettingsResponseSchema = named(
  'AccountSettingsResponse',
  Type.Object({
    outcome: Outcome('AccountSettingsOutcome', ['Ok', 'Updated'] as const, 'Ok (read) or Updated (change).'),
    settings: SettingsSchema,
    traceParent: TraceParent,
  }),
)

export const PatchSettingsSchema = named(
  'AccountSettingsChange',
  Type.Object(
    {
      callbackUrl: Type.Optional(NullableUrlString('Account-wide callback URL (http or https), or null for none.')),
      pauseWindowSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAUSE_WINDOW_SECONDS })),
      rotateSigningSecret: Type.Optional(Type.Boolean()),
      signingSecretOverlapSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_SIGNING_OVERLAP_SECONDS,
          description: 'With rotateSigningSecret: how long the old secret keeps signing too (default 86400).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
