// `printroute audit`: the audit trail, every account's and the instance's own.
import type { Command } from 'commander'
import { dataCommand, print, printJson, runDataOperation } from './command-support.ts'

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').summary('the audit trail: who changed what, and when')
  dataCommand(
    audit,
    'audit list',
    {
      summary: 'list the audit trail, newest first',
      description:
        'Lists the audit trail of every account, the labs and the catalogue, newest first (docs/audit.md): when, ' +
        'who, the action, the account and environment, what was changed, and before/after. Filters combine; ' +
        '--to is exclusive. When more entries follow, the last line says which --before continues. Works while ' +
        'serve runs.',
      options: [
        ['--account <ID>', 'only entries about this account (acc_...)'],
        ['--action <ACTION>', 'only these actions, comma-separated (e.g. key.created,key.revoked)'],
        ['--actor <KIND>', 'only changes made by operator, key, session, lab, cli or system'],
        ['--from <DATE>', 'only entries made at or after this date or date-time (UTC unless it says)'],
        ['--to <DATE>', 'only entries made before this date or date-time'],
        ['--top <N>', 'how many entries (1 to 100)', '20'],
        ['--before <ID>', 'continue with the entries older than this one (aud_...)'],
        ['--json', 'print {"entries", "hasMore", "nextBefore"} as JSON'],
      ],
    },
    async (values, settings) => {
      const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined)
      const top = Number(text('top'))
      const action = text('action')
      const page = await runDataOperation(settings(), 'listAudit', {
        ...(text('account') !== undefined ? { account: text('account') } : {}),
        ...(action !== undefined ? { actions: action.split(',').map((part) => part.trim()) } : {}),
        ...(text('actor') !== undefined ? { actor: text('actor') } : {}),
        ...(text('from') !== undefined ? { from: text('from') } : {}),
        ...(text('to') !== undefined ? { to: text('to') } : {}),
        ...(text('before') !== undefined ? { before: text('before') } : {}),
        top,
      })
      if (values.json) return printJson(page)
      for (const entry of page.entries) {
        const where = [entry.accountId, entry.environment].filter(Boolean).join(' ')
        const change = [
          entry.before === null ? '' : `before ${JSON.stringify(entry.before)}`,
          entry.after === null ? '' : `after ${JSON.stringify(entry.after)}`,
        ]
          .filter(Boolean)
          .join(' ')
        print(
          `${entry.id}\t${entry.at}\t${entry.actor.description}\t${entry.action}\t${where || '-'}\t` +
            `${entry.target ?? '-'}\t${change || '-'}`,
        )
      }
      if (page.nextBefore) print(`(more: --before ${page.nextBefore})`)
    },
  )
}
