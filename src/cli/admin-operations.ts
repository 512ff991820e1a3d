// What the data commands of the CLI do: the operator service's actions (services/operator/operator.service.ts)
// and `migrate`, as operations with plain JSON inputs and results, so the same code runs in the command's own
// process (the data directory is free, or the database is PostgreSQL) and inside a running `serve` reached
// through the admin channel (src/adapters/admin-channel.ts).
import { hostname, userInfo } from 'node:os'
import type { Database } from '../adapters/database.ts'
import { migrate } from '../adapters/migrator.ts'
import type { AuditActor } from '../domain/audit.ts'
import { OperatorRefusal } from '../domain/operator-refusal.ts'
import { OperationError } from '../services/operator/operation-error.ts'
import {
  createOperatorService,
  type OperatorContext,
  type OperatorService,
} from '../services/operator/operator.service.ts'
import { refusalInCommandWords } from './operator-refusal-words.ts'

/** What the operations run on: the operator service's context, and the database `migrate` migrates. */
export interface OperationContext extends OperatorContext {
  db: Database
}

/**
 * The command line as an audit actor: this host and the user running it. Through the admin channel the serving
 * process names itself, which is the same host and user (only its owner may use the channel's socket).
 */
export function commandLineActor(): AuditActor {
  return { kind: 'cli', host: hostname(), user: userInfo().username }
}

/** What the data commands do, run on the database here or in the serving process over the admin channel. */
export interface AdminOperations extends OperatorService {
  /** Applies the migrations not applied yet; their names. */
  migrate(): Promise<{ applied: string[] }>
}

export function createAdminOperations(context: OperationContext): AdminOperations {
  return {
    async migrate(): Promise<{ applied: string[] }> {
      const result = await migrate(context.db)
      return { applied: result.applied }
    },
    ...createOperatorService(context),
  }
}

export type OperationName = keyof AdminOperations

/** Runs an operation by name with a JSON input (the admin channel's handler). */
export async function runOperation(operations: AdminOperations, name: string, input: unknown): Promise<unknown> {
  if (!Object.hasOwn(operations, name)) throw new OperationError(`unknown operation ${name}`, 2)
  const operation = operations[name as OperationName] as (input: unknown) => Promise<unknown>
  try {
    return await operation(input)
  } catch (error) {
    // A refusal the operator can fix, in the command line's words (the console has its own): exit 2.
    if (error instanceof OperatorRefusal) throw new OperationError(refusalInCommandWords(error), 2)
    throw error
  }
}
