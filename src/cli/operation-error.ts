// The operator service's refusals (services/operator/) are the command line's errors: one class, one exit code.
export { OperationError } from '../services/operator/operation-error.ts'
