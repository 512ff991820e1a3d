// `printroute revenue`: Live revenue, refunds, lab cost and margin of a range of days, grouped by day, week, month,
// account, lab or product (docs/billing.md#revenue-and-margin): the figures of the console's Revenue section.
import type { Command } from 'commander'
import { REVENUE_GROUPINGS, type RevenueReportView, revenueCsv } from '../domain/revenue.ts'
import { dataCommand, note, print, printJson, runDataOperation } from './command-support.ts'

const COLUMNS = ['orders', 'revenue', 'refunds', 'net revenue', 'lab cost', 'margin', 'rate'] as const

/** One table per currency, its columns aligned: the group, then the figures, then the currency's total. */
export function revenueText(report: RevenueReportView): string {
  const blocks = report.currencies.map((block) => {
    const rows = [...block.groups, { key: 'Total', figures: block.total }].map((group) => [
      group.key,
      String(group.figures.orders),
      group.figures.revenue,
      group.figures.refunds,
      group.figures.netRevenue,
      group.figures.labCost,
      group.figures.margin,
      group.figures.marginRate ?? '-',
    ])
    const table = [[report.by, ...COLUMNS], ...rows]
    const widths = table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? []
    const lines = table.map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    return [block.currency, ...lines].join('\n')
  })
  return blocks.join('\n\n')
}

export function registerRevenueCommands(program: Command): void {
  dataCommand(
    program,
    'revenue',
    {
      summary: 'Live revenue, lab cost and margin of a range of days',
      description:
        'Sums the Live invoices and credit notes issued, and the shipments handed to labs, from --from to --to ' +
        '(UTC days, --to not included, at most 366 days), grouped as --by says: revenue and refunds (untaxed, ' +
        'duties left out), lab cost, margin and margin rate, one table per currency (docs/billing.md). The same ' +
        "figures as the console's Revenue section. Works while serve runs.",
      options: [
        ['--from <DATE>', 'the first day, YYYY-MM-DD (UTC)'],
        ['--to <DATE>', 'the day after the last, YYYY-MM-DD (not included)'],
        ['--by <GROUPING>', `group by ${REVENUE_GROUPINGS.join(', ')}`, 'month'],
        ['--csv', 'print CSV (one row per group, a Total row per currency)'],
        ['--json', 'print the report as JSON'],
      ],
    },
    async (values, settings) => {
      const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined)
      const report = await runDataOperation(settings(), 'revenueReport', {
        ...(text('from') !== undefined ? { from: text('from') } : {}),
        ...(text('to') !== undefined ? { to: text('to') } : {}),
        ...(text('by') !== undefined ? { by: text('by') } : {}),
      })
      if (values.json) return printJson(report)
      if (values.csv) {
        process.stdout.write(revenueCsv(report))
        return
      }
      if (report.currencies.length === 0) {
        note(`no Live invoices, credit notes or hand-offs from ${report.from} to ${report.to}`)
        return
      }
      print(revenueText(report))
    },
  )
}
