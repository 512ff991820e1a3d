// `printroute keys`: create, list and revoke an account's API keys.
import type { Command } from 'commander'
import { dataCommand, environmentOf, print, requireText, runDataOperation } from './command-support.ts'

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').summary('create, list and revoke API keys')

  dataCommand(
    keys,
    'keys create',
    {
      summary: 'create an API key for an account',
      description: 'Issues another key for an account and prints it (shown once).',
      options: [
        ['--account <ID>', 'the account (acc_...)'],
        ['--env <ENV>', 'sandbox or live'],
        ['--scopes <LIST>', 'comma-separated scopes (docs/api.md#api-keys); absent: every scope'],
        ['--expires-at <TIME>', 'when the key stops working (ISO 8601); absent: never'],
      ],
    },
    async (values, settings) => {
      const account = requireText(values.account, '--account')
      const environment = environmentOf(requireText(values.env, '--env'))
      const scopes =
        typeof values.scopes === 'string'
          ? values.scopes
              .split(',')
              .map((scope) => scope.trim())
              .filter((scope) => scope !== '')
          : undefined
      const expiresAt = typeof values.expiresAt === 'string' ? values.expiresAt : undefined
      const issued = await runDataOperation(settings(), 'createKey', {
        account,
        environment,
        ...(scopes ? { scopes } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      })
      print(issued.key)
    },
  )

  dataCommand(
    keys,
    'keys list',
    { summary: "list an account's keys (prefixes only)", options: [['--account <ID>', 'the account (acc_...)']] },
    async (values, settings) => {
      const account = requireText(values.account, '--account')
      const listed = await runDataOperation(settings(), 'listKeys', { account })
      for (const key of listed) {
        print(
          `${key.prefix}\t${key.environment}\tcreated ${key.created}\t${key.revoked ? `revoked ${key.revoked}` : 'active'}` +
            `\t${key.scopes ? key.scopes.join(',') : 'all scopes'}\t${key.expiresAt ? `expires ${key.expiresAt}` : 'no expiry'}`,
        )
      }
    },
  )

  dataCommand(
    keys,
    'keys revoke',
    {
      summary: 'revoke an API key by its visible prefix',
      description:
        'Revokes the key whose prefix is given (as keys list shows it, e.g. pr_live_AbCdEf12). The serving ' +
        'process refuses it at once; other processes on the same PostgreSQL within 5 seconds.',
      argument: ['<KEY_PREFIX>', 'the visible prefix of the key'],
    },
    async (_values, settings, prefix) => {
      const revoked = await runDataOperation(settings(), 'revokeKey', { prefix })
      print(`revoked ${revoked.revoked}`)
    },
  )
}
