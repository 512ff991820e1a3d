// The actor tests pass to service methods that record an audit entry, when the test is not about who acted.
import type { AuditActor } from '../../src/domain/audit.ts'

export const TEST_ACTOR: AuditActor = { kind: 'cli', host: 'test-host', user: 'test' }
