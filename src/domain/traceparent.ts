// W3C trace-context `traceparent`: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>.
// Every response carries one; a valid incoming header keeps its trace id (docs/wire-contract.md#transport).
import { randomHex } from './random-hex.ts'

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/
const ALL_ZERO_TRACE = '0'.repeat(32)
const ALL_ZERO_PARENT = '0'.repeat(16)

/** The trace id of a valid incoming traceparent header, or undefined. */
export function incomingTraceId(header: string | undefined): string | undefined {
  if (!header) return undefined
  const match = TRACEPARENT.exec(header.trim().toLowerCase())
  if (!match || match[1] === ALL_ZERO_TRACE || match[2] === ALL_ZERO_PARENT) return undefined
  if (header.startsWith('ff')) return undefined
  return match[1]
}

/** The trace id of a request: the caller's when its traceparent header is valid, else a fresh random one. */
export function requestTraceId(incomingHeader?: string): string {
  return incomingTraceId(incomingHeader) ?? randomHex(16)
}

/** A traceparent in trace `traceId` with a fresh span id. */
export function traceparentFor(traceId: string): string {
  return `00-${traceId}-${randomHex(8)}-01`
}

/** A traceparent for this request: the caller's trace id when given, a fresh span id always. */
export function newTraceparent(incomingHeader?: string): string {
  return traceparentFor(requestTraceId(incomingHeader))
}

/** The trace id (32 hex) of a traceparent. */
export function traceIdOf(traceparent: string): string {
  return traceparent.split('-')[1] ?? ''
}
