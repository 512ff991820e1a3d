// The account's audit trail (docs/audit.md): who changed what and when, newest first.
import { Type } from 'typebox'
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from '../../domain/audit.ts'
import { ENVIRONMENTS } from '../../domain/environment.ts'
import { AUDIT_LIST_DEFAULT_TOP, AUDIT_LIST_MAX_TOP } from '../../domain/limits.ts'
import { CaseInsensitiveEnum, Nullable, named, OkOutcome, outcomeResponse, StringEnum } from './common.schema.ts'

const Recorded = (what: string) =>
  Type.Unknown({
    description: `${what}, as JSON (only the fields that changed; never a secret: keys by prefix); null where it does not apply.`,
  })

export const AuditEntrySchema = named(
  'AuditEntry',
  Type.Object({
    id: Type.String({ description: 'Entry ID, aud_<number>; a later entry has a higher number.' }),
    at: Type.String({ format: 'date-time', description: 'When the change was made.' }),
    actor: named(
      'AuditActor',
      Type.Object({
        kind: StringEnum(AUDIT_ACTOR_KINDS),
        description: Type.String({
          description:
            'Who, in words: "key pr_live_AbCd of acc_3", "dashboard session of key ...", "operator opr_2 (Dana)", ' +
            '"command line (user@host)", "lab uk6", "printroute".',
        }),
      }),
    ),
    action: StringEnum(AUDIT_ACTIONS),
    environment: Nullable(
      StringEnum(ENVIRONMENTS, 'The environment the change concerns; null when it concerns the whole account.'),
    ),
    target: Nullable(Type.String({ description: 'What was changed: an account ID, a key prefix, a lab code...' })),
    before: Recorded('The state before the change'),
    after: Recorded('The state after the change'),
  }),
)

export const ListAuditQuerySchema = Type.Object(
  {
    action: Type.Optional(
      Type.Array(CaseInsensitiveEnum(AUDIT_ACTIONS), {
        maxItems: AUDIT_ACTIONS.length,
        description: 'Only entries of these actions. Repeated or comma-separated.',
      }),
    ),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries made at or after this time.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries made before this time.' })),
    before: Type.Optional(
      Type.String({
        maxLength: 40,
        description: "An entry ID (aud_123): the page continues with older entries (the previous page's nextUrl).",
      }),
    ),
    top: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_LIST_MAX_TOP, default: AUDIT_LIST_DEFAULT_TOP })),
  },
  { additionalProperties: false },
)
export type ListAuditQuery = Type.Static<typeof ListAuditQuerySchema>

export const AuditListResponseSchema = outcomeResponse('AuditListResponse', OkOutcome, {
  entries: Type.Array(AuditEntrySchema),
  hasMore: Type.Boolean(),
  nextUrl: Nullable(Type.String({ description: 'The next (older) page; null on the last page.' })),
})
