// `printroute orders cancel|refund|retry|release|note ORDER_ID --reason TEXT`: the operator's actions on an order
// (docs/admin.md#acting-on-an-order), the same functions the console's order page calls
// (services/operator/orders.ts), each recorded in the audit trail with its reason. Like every data command they run
// in the `serve` holding the embedded database (admin channel), or here on PostgreSQL.
import type { Command } from 'commander'
import { dataCommand, print, printJson, runDataOperation, type Values } from './command-support.ts'

const REASON = ['--reason <TEXT>', 'why: kept in the audit trail (required)'] as const
const JSON_OPTION = ['--json', 'print the result as JSON'] as const
const ORDER = ['<ORDER_ID>', 'the order (ord_123)'] as const

const text = (values: Values, name: string): string => (typeof values[name] === 'string' ? values[name] : '')

/** Adds the operator's order actions to the `orders` group. */
export function registerOrderActionCommands(orders: Command): void {
  dataCommand(
    orders,
    'orders cancel',
    {
      summary: 'cancel an order, as its merchant would (operator action)',
      description:
        "Cancels the order as the merchant's cancel does: what is not yet with a lab is cancelled and refunded, " +
        'and a lab holding a shipment it has not started is asked to cancel it (the command waits for its answer ' +
        'as the API does). Refused when nothing can be cancelled any more. Works while serve runs.',
      argument: ORDER,
      options: [REASON, JSON_OPTION],
    },
    async (values, settings, order) => {
      const result = await runDataOperation(settings(), 'cancelOrder', { order, reason: text(values, 'reason') })
      if (values.json) return printJson(result)
      print(`${order}: ${result.outcome} (stage ${result.stage})`)
    },
  )

  dataCommand(
    orders,
    'orders refund',
    {
      summary: 'refund part of a charge of an order: a credit note (operator action)',
      description:
        'Credits --amount (tax included, in the charge currency) on one of the order charges (--charge, else its ' +
        'first), up to what the charge took and has not had back: a Refund charge on the order and its credit ' +
        'note (docs/billing.md#operator-credits), settled as the account is billed. Works while serve runs.',
      argument: ORDER,
      options: [
        ['--amount <AMOUNT>', 'how much, tax included, e.g. 5.00 (required)'],
        ['--charge <CHARGE_ID>', "the charge credited (default: the order's first charge)"],
        REASON,
        JSON_OPTION,
      ],
    },
    async (values, settings, order) => {
      const result = await runDataOperation(settings(), 'refundOrder', {
        order,
        reason: text(values, 'reason'),
        amount: text(values, 'amount'),
        ...(text(values, 'charge') ? { charge: text(values, 'charge') } : {}),
      })
      if (values.json) return printJson(result)
      print(
        `${order}: refunded ${result.amount} ${result.currency} of ${result.chargeId} as ${result.refundChargeId}` +
          (result.creditNote ? ` (credit note ${result.creditNote})` : ''),
      )
    },
  )

  dataCommand(
    orders,
    'orders retry',
    {
      summary: 'download again an asset whose download failed (operator action)',
      description:
        'Queues one more download of the asset (--asset, else every asset of the order whose download failed): ' +
        'the order goes back to its downloads and on from there when it succeeds. Works while serve runs; the ' +
        'download itself is made by the workers of serve or worker.',
      argument: ORDER,
      options: [['--asset <ASSET_ID>', 'only this asset (ast_...)'], REASON, JSON_OPTION],
    },
    async (values, settings, order) => {
      const result = await runDataOperation(settings(), 'retryDownload', {
        order,
        reason: text(values, 'reason'),
        ...(text(values, 'asset') ? { asset: text(values, 'asset') } : {}),
      })
      if (values.json) return printJson(result)
      print(`${order}: queued another download of ${result.assetIds.join(', ')}`)
    },
  )

  dataCommand(
    orders,
    'orders release',
    {
      summary: 'release an order held for payment or in its pause window (operator action)',
      description:
        'Starts the fulfilment of an order held now: one waiting for a payment is paid from the prepaid balance ' +
        "if it covers what is due, else goes on with what is due recorded as owed on the account's next invoice " +
        '(a ledger invoice-charge; the balance is unchanged; the audit trail says how much); a Sandbox order held ' +
        'by its scenario is authorised; one in its pause window starts at once. Works while serve runs.',
      argument: ORDER,
      options: [REASON, JSON_OPTION],
    },
    async (values, settings, order) => {
      const result = await runDataOperation(settings(), 'releaseOrder', { order, reason: text(values, 'reason') })
      if (values.json) return printJson(result)
      const parts = [
        result.payment === 'paidFromBalance' ? `paid ${result.amount} ${result.currency} from the balance` : '',
        result.payment === 'owedOnInvoice'
          ? `the balance did not cover it: ${result.amount} ${result.currency} recorded as owed on the account's next ` +
            'invoice (ledger: invoice-charge; the balance is unchanged)'
          : '',
        result.payment === 'onCredit'
          ? `let go on credit: its ${result.amount} ${result.currency} stays owed on the account's invoices ` +
            '(above its credit limit)'
          : '',
        result.payment === 'waived' ? 'Sandbox payment authorised (no money moves)' : '',
        result.pauseWindow ? 'pause window ended' : '',
      ]
      print(`${order}: ${parts.filter(Boolean).join(', ')}`)
    },
  )

  dataCommand(
    orders,
    'orders note',
    {
      summary: 'add a note to an order (shown on its console page)',
      description:
        'Adds a note to the order, shown on its page in the console with its author and time, and recorded in the ' +
        'audit trail. The note is the --reason text (--text says the same). Works while serve runs.',
      argument: ORDER,
      options: [['--reason <TEXT>', 'the note (required)'], ['--text <TEXT>', 'the note (as --reason)'], JSON_OPTION],
    },
    async (values, settings, order) => {
      const note = await runDataOperation(settings(), 'addOrderNote', {
        order,
        text: text(values, 'text') || text(values, 'reason'),
      })
      if (values.json) return printJson(note)
      print(`${order}: note ${note.id} added by ${note.author} at ${note.at}`)
    },
  )
}
