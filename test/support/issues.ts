// Order issues apart from LowResolution warnings: tests' small images print below most products' minimum
// resolution, and that warning (docs/api.md#resolution-warnings) neither stops nor holds an order.
import { ISSUE_CODES } from '../../src/domain/pipeline/pipeline-order.ts'

export function withoutResolutionWarnings<T extends { errorCode: string }>(issues: readonly T[]): T[] {
  return issues.filter((issue) => issue.errorCode !== ISSUE_CODES.lowResolution)
}
