// `printroute operators`: create, list and revoke operators of the console (/admin/).
import type { Command } from 'commander'
import {
  addSettingOptions,
  print,
  printJson,
  requireText,
  runDataOperation,
  settingsFor,
  type Values,
} from './command-support.ts'

export function registerOperatorCommands(program: Command): void {
  const operators = program.command('operators').summary('create, list and revoke operators of the console (/admin/)')

  const create = operators
    .command('create')
    .summary('create an operator and print its token (shown once)')
    .description(
      'Creates an operator of the console (docs/admin.md) and prints its token (pr_operator_...) once: printroute ' +
        'keeps only its hash. The operator signs in at /admin/ with it. Works while serve runs.',
    )
    .option('--name <NAME>', "the operator's name, shown in the console and the audit trail (required)")
  addSettingOptions(create, 'operators create').action(async (values: Values) => {
    const name = requireText(values.name, '--name')
    const made = await runDataOperation(settingsFor(create, 'operators create'), 'createOperator', { name })
    print(
      `operator ${made.operator.id} (${made.operator.name})
` +
        `token: ${made.token}
` +
        'The token is shown once; printroute keeps only its hash. Sign in at /admin/ with it.',
    )
  })

  const list = operators
    .command('list')
    .summary('list operators (token prefixes only)')
    .option('--json', 'print the operators as JSON')
  addSettingOptions(list, 'operators list').action(async (values: Values) => {
    const found = await runDataOperation(settingsFor(list, 'operators list'), 'listOperators', undefined)
    if (values.json) return printJson(found)
    for (const operator of found) {
      print(
        `${operator.id}	${operator.prefix}	created ${operator.created}	` +
          `${operator.revoked ? `revoked ${operator.revoked}` : 'active'}	${operator.name}`,
      )
    }
  })

  const revoke = operators
    .command('revoke')
    .summary('revoke an operator: its console sessions end at once')
    .description(
      'Revokes an operator: its token no longer signs in, and its console sessions end at their next request, in ' +
        'every process. Works while serve runs.',
    )
    .option('--operator <ID>', 'the operator (opr_...)')
  addSettingOptions(revoke, 'operators revoke').action(async (values: Values) => {
    const operator = requireText(values.operator, '--operator')
    const revoked = await runDataOperation(settingsFor(revoke, 'operators revoke'), 'revokeOperator', { operator })
    print(`revoked ${revoked.id} (${revoked.name})`)
  })
}
