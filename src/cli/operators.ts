// `printroute operators`: create, list and revoke operators of the console (/admin/).
import type { Command } from 'commander'
import { dataCommand, print, printJson, requireText, runDataOperation } from './command-support.ts'

export function registerOperatorCommands(program: Command): void {
  const operators = program.command('operators').summary('create, list and revoke operators of the console (/admin/)')

  dataCommand(
    operators,
    'operators create',
    {
      summary: 'create an operator and print its token (shown once)',
      description:
        'Creates an operator of the console (docs/admin.md) and prints its token (pr_operator_...) once: printroute ' +
        'keeps only its hash. The operator signs in at /admin/ with it. Works while serve runs.',
      options: [['--name <NAME>', "the operator's name, shown in the console and the audit trail (required)"]],
    },
    async (values, settings) => {
      const name = requireText(values.name, '--name')
      const made = await runDataOperation(settings(), 'createOperator', { name })
      print(
        `operator ${made.operator.id} (${made.operator.name})
` +
          `token: ${made.token}
` +
          'The token is shown once; printroute keeps only its hash. Sign in at /admin/ with it.',
      )
    },
  )

  dataCommand(
    operators,
    'operators list',
    { summary: 'list operators (token prefixes only)', options: [['--json', 'print the operators as JSON']] },
    async (values, settings) => {
      const found = await runDataOperation(settings(), 'listOperators', undefined)
      if (values.json) return printJson(found)
      for (const operator of found) {
        print(
          `${operator.id}	${operator.prefix}	created ${operator.created}	` +
            `${operator.revoked ? `revoked ${operator.revoked}` : 'active'}	${operator.name}`,
        )
      }
    },
  )

  dataCommand(
    operators,
    'operators revoke',
    {
      summary: 'revoke an operator: its console sessions end at once',
      description:
        'Revokes an operator: its token no longer signs in, and its console sessions end at their next request, in ' +
        'every process. Works while serve runs.',
      options: [['--operator <ID>', 'the operator (opr_...)']],
    },
    async (values, settings) => {
      const operator = requireText(values.operator, '--operator')
      const revoked = await runDataOperation(settings(), 'revokeOperator', { operator })
      print(`revoked ${revoked.id} (${revoked.name})`)
    },
  )
}
