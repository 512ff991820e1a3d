// Account settings: callback URL, pause window, callback signing secret (docs/api.md "Account settings"). The
// callback URL and the signing secret are the caller's environment's; the pause window is the account's.
import { Type } from 'typebox'
import { ADDRESS_VALIDATION_MODES } from '../../domain/address-rules.ts'
import { MAX_PAUSE_WINDOW_SECONDS, MAX_SIGNING_OVERLAP_SECONDS } from '../../domain/limits.ts'
import { CALLBACK_EVENT_SETS } from '../../domain/order-events.ts'
import { SANDBOX_SCENARIOS } from '../../domain/sandbox-scenarios.ts'
import {
  CaseInsensitiveEnum,
  Nullable,
  NullableUrlString,
  named,
  Outcome,
  outcomeResponse,
  StringEnum,
} from './common.schema.ts'

const SettingsSchema = named(
  'AccountSettings',
  Type.Object({
    environment: Type.String({ description: "sandbox or live: the caller's environment, whose settings these are." }),
    callbackUrl: Nullable(Type.String({ description: "This environment's callback URL." })),
    pauseWindowSeconds: Type.Integer({ description: "The account's pause window (both environments)." }),
    signingSecret: Type.String({
      description: "This environment's callbacks are signed with this secret (Standard Webhooks, whsec_...).",
    }),
    previousSigningSecretExpiresAt: Nullable(Type.String()),
    sandboxScenario: Type.Optional(
      Nullable(
        StringEnum(
          SANDBOX_SCENARIOS,
          'Sandbox settings only (absent on Live): the scenario new Sandbox orders take when they name none (docs/sandbox.md), or null.',
        ),
      ),
    ),
    addressValidation: StringEnum(
      ADDRESS_VALIDATION_MODES,
      "This environment's: an order whose address has a problem that stops delivery is created with the issue " +
        'order.recipient.AddressUnverified (warn, the default) or refused with 400 ValidationFailed (refuse); off ' +
        'checks no address. Problems that do not stop delivery are advisories on the order in warn and refuse.',
    ),
    callbackEvents: StringEnum(
      CALLBACK_EVENT_SETS,
      "This environment's: which events its callback URLs (the account's and orders' own) get: all (the default) " +
        "or prodigi (only the Prodigi Print API's event types). Webhook endpoints filter by their own eventTypes.",
    ),
  }),
)

export const SettingsResponseSchema = outcomeResponse(
  'AccountSettingsResponse',
  Outcome('AccountSettingsOutcome', ['Ok', 'Updated'] as const, 'Ok (read) or Updated (change).'),
  { settings: SettingsSchema },
)

export const PatchSettingsSchema = named(
  'AccountSettingsChange',
  Type.Object(
    {
      callbackUrl: Type.Optional(
        NullableUrlString("This environment's callback URL (http or https), or null for none; an order's own wins."),
      ),
      pauseWindowSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_PAUSE_WINDOW_SECONDS,
          description: "The account's pause window; changed with a Live key only.",
        }),
      ),
      rotateSigningSecret: Type.Optional(
        Type.Boolean({ description: "Replace this environment's signing secret (the other environment's stays)." }),
      ),
      signingSecretOverlapSeconds: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: MAX_SIGNING_OVERLAP_SECONDS,
          description: 'With rotateSigningSecret: how long the old secret keeps signing too (default 86400).',
        }),
      ),
      sandboxScenario: Type.Optional(
        Nullable(
          CaseInsensitiveEnum(
            SANDBOX_SCENARIOS,
            'Sandbox key only: the scenario new Sandbox orders take when they name none (docs/sandbox.md); null for none.',
          ),
        ),
      ),
      addressValidation: Type.Optional(
        CaseInsensitiveEnum(
          ADDRESS_VALIDATION_MODES,
          "This environment's, for an address with a problem that stops delivery: warn (create the order with " +
            'the issue order.recipient.AddressUnverified), refuse (400 ValidationFailed naming each field and its ' +
            'suggestion) or off (check no address).',
        ),
      ),
      callbackEvents: Type.Optional(
        CaseInsensitiveEnum(
          CALLBACK_EVENT_SETS,
          "This environment's: all (every event type) or prodigi (only the Prodigi Print API's event types) to its " +
            "callback URLs, the account's and orders' own.",
        ),
      ),
    },
    { additionalProperties: false },
  ),
)
