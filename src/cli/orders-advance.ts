// `printroute orders advance ORDER_ID [--to InProduction|Shipped|Complete|Delivered]`: the Sandbox's test clock
// for one order (docs/sandbox.md#advance) from the command line, through POST /v4.0/sandbox/orders/{id}/advance
// with a Sandbox key. Prints the outcome and the order's state after it (the same line `orders watch` prints).
import type { Command } from 'commander'
import { ADVANCE_TARGETS, type AdvanceTarget } from '../domain/sandbox-scenarios.ts'
import { addConnectionOptions, connectionOf, createApiConnection } from './api-connection.ts'
import { print, printJson, requireText, UsageError } from './command-support.ts'
import { describeOrder } from './orders-watch.ts'

/** The target a --to value names, in any letter case (as the API takes it). */
function targetOf(value: unknown): AdvanceTarget | undefined {
  if (value === undefined) return undefined
  const target = ADVANCE_TARGETS.find((candidate) => candidate.toLowerCase() === String(value).toLowerCase())
  if (!target) throw new UsageError(`--to must be one of ${ADVANCE_TARGETS.join(', ')}, got "${String(value)}"`)
  return target
}

export function registerAdvanceCommand(orders: Command): void {
  const advance = orders
    .command('advance')
    .summary('move a Sandbox order one lab step on, or to InProduction, Shipped, Complete or Delivered')
    .description(
      "Runs the simulated labs' next step on each of the order's shipments now (or every step up to --to; after " +
        'shipping, the steps are the carrier scans up to Delivered), with the same order changes and callbacks ' +
        'their timers would cause; an order waiting for payment ' +
        'authorisation (scenario paymentRequired) is authorised. Sandbox keys only (docs/sandbox.md#advance).',
    )
    .argument('<ORDER_ID>', 'the order (ord_123)')
    .option('--to <STAGE>', `how far: ${ADVANCE_TARGETS.join(', ')} (default: one lab step)`)
    .option('--json', 'print the answer as the API gives it: {"outcome", "order", "traceParent"}')
  addConnectionOptions(advance).action(async (orderIdArgument: string, values: Record<string, unknown>) => {
    const orderId = requireText(orderIdArgument, 'ORDER_ID')
    if (!/^ord_\d{1,15}$/.test(orderId)) throw new UsageError(`"${orderId}" is not an order ID (ord_123)`)
    const to = targetOf(values.to)
    const api = createApiConnection(connectionOf(values))
    const answer = await api.post<{ outcome: string; order: Parameters<typeof describeOrder>[0] }>(
      `/sandbox/orders/${orderId}/advance`,
      to === undefined ? {} : { to },
    )
    if (values.json) return printJson(answer)
    print(`${orderId}  ${answer.outcome}  ${describeOrder(answer.order)}`)
  })
}
