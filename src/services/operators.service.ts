// Operators: the people who run printroute's console (docs/admin.md). An operator is a name and a token
// (`pr_operator_...`) shown once at creation; the database keeps only its SHA-256 and a visible prefix, like API
// keys. Revoking an operator ends its console sessions at the next request (sessions are looked up every time).
// Creating and revoking are recorded in the audit trail, in the same transaction.
import type { Clock } from '../adapters/clock.ts'
import type { Database } from '../adapters/database.ts'
import type { AuditActor } from '../domain/audit.ts'
import { formatId, parseId } from '../domain/ids.ts'
import { refusedCharacter } from '../domain/text.ts'
import { appendAuditEvent } from '../repositories/audit.repository.ts'
import {
  insertOperator,
  listOperators,
  type OperatorRow,
  revokeOperator,
} from '../repositories/operators.repository.ts'
import { hashSecretKey, newSecretKey } from './secret-keys.ts'

/** Longest operator name accepted: it is shown in the console and in every audit entry the operator makes. */
export const MAX_OPERATOR_NAME_LENGTH = 100

/** An operator as listings show it: never the token or its hash. */
export interface OperatorView {
  id: string
  name: string
  prefix: string
  created: string
  revoked: string | null
}

export class OperatorError extends Error {}

export interface OperatorsService {
  /** Creates an operator; its token is returned this once. */
  createOperator(name: string, actor: AuditActor): Promise<{ operator: OperatorView; token: string }>
  /** Every operator, revoked ones too, oldest first. */
  listOperators(): Promise<OperatorView[]>
  /** Revokes an operator (`opr_N`): its sessions end at their next request. */
  revokeOperator(operatorId: string, actor: AuditActor): Promise<OperatorView>
}

function toView(row: OperatorRow): OperatorView {
  return {
    id: formatId('opr', row.id),
    name: row.name,
    prefix: row.prefix,
    created: row.createdAt.toISOString(),
    revoked: row.revokedAt ? row.revokedAt.toISOString() : null,
  }
}

export function createOperatorsService(deps: { db: Database; clock: Clock }): OperatorsService {
  const { db, clock } = deps
  return {
    async createOperator(name, actor) {
      const trimmed = name.trim()
      if (trimmed === '') throw new OperatorError('The operator name must not be empty')
      if (trimmed.length > MAX_OPERATOR_NAME_LENGTH) {
        throw new OperatorError(`The operator name must be at most ${MAX_OPERATOR_NAME_LENGTH} characters`)
      }
      const refused = refusedCharacter(trimmed, false)
      if (refused !== undefined) throw new OperatorError(`The operator name must not contain ${refused}`)
      const { key: token, prefix } = newSecretKey('operator')
      const now = clock.now()
      const row = await db.transaction(async (tx) => {
        const made = await insertOperator(tx, {
          name: trimmed,
          tokenHash: hashSecretKey(token),
          prefix,
          createdAt: now,
        })
        const view = toView(made)
        await appendAuditEvent(
          tx,
          {
            actor,
            action: 'operator.created',
            accountId: null,
            environment: null,
            target: view.id,
            after: { name: view.name, prefix: view.prefix },
          },
          now,
        )
        return made
      })
      return { operator: toView(row), token }
    },

    async listOperators() {
      return (await listOperators(db)).map(toView)
    },

    async revokeOperator(operatorId, actor) {
      const id = parseId('opr', operatorId)
      if (id === undefined) throw new OperatorError(`"${operatorId}" is not an operator ID (expected opr_<number>)`)
      const now = clock.now()
      const revoked = await db.transaction(async (tx) => {
        const row = await revokeOperator(tx, id, now)
        if (!row) return undefined
        await appendAuditEvent(
          tx,
          {
            actor,
            action: 'operator.revoked',
            accountId: null,
            environment: null,
            target: formatId('opr', row.id),
            before: { name: row.name, prefix: row.prefix, revoked: null },
            after: { name: row.name, prefix: row.prefix, revoked: now.toISOString() },
          },
          now,
        )
        return row
      })
      if (!revoked) throw new OperatorError(`No active operator ${operatorId}`)
      return toView(revoked)
    },
  }
}
