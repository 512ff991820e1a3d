// `printroute claims list|show|resolve`: the operator's claims queue and decisions (docs/claims.md#resolutions), the
// same functions the console's claims section calls (services/operator/claims.ts), each decision recorded in the
// audit trail. Like every data command they run in the `serve` holding the embedded database (admin channel), or
// here on PostgreSQL.
import type { Command } from 'commander'
import { CLAIM_DECISIONS } from '../domain/claim-resolution.ts'
import { CLAIM_STATUSES } from '../domain/claims.ts'
import { dataCommand, print, printJson, runDataOperation, UsageError, type Values } from './command-support.ts'

const JSON_OPTION = ['--json', 'print the result as JSON'] as const
const CLAIM = ['<CLAIM_ID>', 'the claim (clm_123)'] as const

const text = (values: Values, name: string): string => (typeof values[name] === 'string' ? values[name] : '')

export function registerClaimCommands(program: Command): void {
  const claims = program
    .command('claims')
    .summary("list, show and resolve merchants' claims about shipped work (operator)")

  dataCommand(
    claims,
    'claims list',
    {
      summary: 'list claims: Pending first, then oldest first',
      description:
        'Lists claims (at most 200), Pending first and oldest first, with their order, account, lab, categories and ' +
        'what the merchant prefers. Works while serve runs.',
      options: [
        ['--status <STATUS>', `only claims in this status (${CLAIM_STATUSES.join(', ')})`],
        ['--account <ACCOUNT_ID>', "only this account's claims (acc_...)"],
        ['--lab <LAB_CODE>', "only claims against this lab's work"],
        JSON_OPTION,
      ],
    },
    async (values, settings) => {
      const found = await runDataOperation(settings(), 'listClaims', {
        ...(text(values, 'status') ? { status: text(values, 'status') } : {}),
        ...(text(values, 'account') ? { account: text(values, 'account') } : {}),
        ...(text(values, 'lab') ? { lab: text(values, 'lab') } : {}),
      })
      if (values.json) return printJson(found)
      if (found.length === 0) return print('no claims')
      for (const claim of found) {
        print(
          [
            claim.id,
            claim.status,
            claim.orderId,
            claim.accountId,
            claim.environment,
            `lab ${claim.labCode}`,
            claim.categories.join(','),
            `prefers ${claim.preferredResolution ?? '-'}`,
            claim.createdAt,
          ].join('\t'),
        )
      }
    },
  )

  dataCommand(
    claims,
    'claims show',
    {
      summary: 'show a claim: its items, photos, the lab and its answer, the decision',
      description: 'Shows one claim as the console does. Works while serve runs.',
      argument: CLAIM,
      options: [JSON_OPTION],
    },
    async (values, settings, claim) => {
      const detail = await runDataOperation(settings(), 'showClaim', { claim })
      if (values.json) return printJson(detail)
      const lines = [
        `${detail.id}: ${detail.status} (version ${detail.version})`,
        `order ${detail.orderId} (${detail.orderStage ?? 'unknown'}), account ${detail.accountId}, ${detail.environment}`,
        `lab ${detail.labCode}; the lab's answer: ${
          detail.labAnswer
            ? `${detail.labAnswer.answer}${detail.labAnswer.comment ? ` ("${detail.labAnswer.comment}")` : ''}`
            : 'none yet'
        }`,
        `the merchant prefers: ${detail.preferredResolution ?? 'no preference'}`,
        ...detail.items.map((item, index) => {
          const photos = detail.view.items[index]?.evidence ?? []
          return `  ${item.itemId} (${item.sku ?? '?'}) in ${item.shipmentId}: ${item.category}: ${item.description}${
            photos.length > 0 ? ` [photos ${photos.join(', ')}]` : ''
          }`
        }),
      ]
      const resolution = detail.view.resolution
      if (resolution) {
        lines.push(
          `resolved ${resolution.type} at ${resolution.resolvedAt} by ${detail.resolvedBy ?? '?'}` +
            (resolution.reprintShipmentId ? `: reprint ${resolution.reprintShipmentId}` : '') +
            (resolution.creditNote
              ? `: credit note ${resolution.creditNote} of ${resolution.amount?.amount} ${resolution.amount?.currency}`
              : '') +
            (resolution.note ? ` ("${resolution.note}")` : ''),
        )
      }
      if (detail.view.rejection) {
        lines.push(`rejected at ${detail.view.rejection.rejectedAt}: ${detail.view.rejection.reason}`)
      }
      print(lines.join('\n'))
    },
  )

  dataCommand(
    claims,
    'claims resolve',
    {
      summary: 'decide a Pending claim: Reprint, Refund, Credit or Reject',
      description:
        'Reprint: a new shipment on the same order for the claimed items (the whole parcel for a missing one), at ' +
        'another lab when the lab was at fault, charged nothing. Refund or Credit: one credit note of --amount ' +
        '(tax included), by default what the claimed items were charged. Reject: --note is the reason, shown to ' +
        'the merchant. Recorded in the audit trail; the merchant gets a claim event. Works while serve runs.',
      argument: CLAIM,
      options: [
        ['--resolution <RESOLUTION>', `${CLAIM_DECISIONS.join(', ')} (required)`],
        ['--note <TEXT>', 'a note shown to the merchant; the reason of a Reject (required for Reject)'],
        ['--amount <AMOUNT>', 'Refund or Credit: how much, tax included, e.g. 5.00 (default: what the items cost)'],
        JSON_OPTION,
      ],
    },
    async (values, settings, claim) => {
      const resolution = text(values, 'resolution')
      if (resolution === '') throw new UsageError('--resolution is required')
      if (resolution === 'Reject' && text(values, 'note').trim() === '') {
        throw new UsageError('--note is required to reject a claim (the reason, shown to the merchant)')
      }
      const result = await runDataOperation(settings(), 'resolveClaim', {
        claim,
        resolution,
        ...(text(values, 'note') ? { note: text(values, 'note') } : {}),
        ...(text(values, 'amount') ? { amount: text(values, 'amount') } : {}),
      })
      if (values.json) return printJson(result)
      const done = result.claim.status === 'Rejected' ? 'rejected' : `resolved ${result.claim.resolution?.type}`
      print(
        `${result.claim.id} on ${result.orderId}: ${done}` +
          (result.reprint ? `; reprint ${result.reprint.shipmentId} at lab ${result.reprint.labCode}` : '') +
          (result.creditNote
            ? `; credit note ${result.creditNote} of ${result.amount?.amount} ${result.amount?.currency}`
            : ''),
      )
    },
  )
}
