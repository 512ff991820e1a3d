// The commands that read or write data: migrate, accounts (and their suspension), keys, lab keys, lab pauses, lab
// push endpoints, catalogue versions, invoices, the audit trail and the console's operators, one file per command
// group. Each parses its flags, runs one operation (in a running `serve` through the admin channel, or here) and
// prints the result.
import type { Command } from 'commander'
import { registerAccountCommands } from './accounts.ts'
import { registerAuditCommands } from './audit.ts'
import { registerCatalogueCommands } from './catalogue.ts'
import { addSettingOptions, print, runDataOperation, settingsFor } from './command-support.ts'
import { registerInvoiceCommands } from './invoices.ts'
import { registerKeyCommands } from './keys.ts'
import { registerLabCommands } from './labs.ts'
import { registerOperatorCommands } from './operators.ts'
import { registerRevenueCommands } from './revenue.ts'

/** Registers the data commands in the order `printroute --help` lists them. */
export function registerDataCommands(program: Command): void {
  const migrate = program
    .command('migrate')
    .summary('apply pending database migrations')
    .description('Applies pending SQL migrations (serve and worker also do this at start).')
  addSettingOptions(migrate, 'migrate').action(async () => {
    const result = await runDataOperation(settingsFor(migrate, 'migrate'), 'migrate', undefined)
    print(result.applied.length ? `applied ${result.applied.join(', ')}` : 'database is up to date')
  })

  registerAccountCommands(program)
  registerInvoiceCommands(program)
  registerKeyCommands(program)
  registerLabCommands(program)
  registerCatalogueCommands(program)
  registerAuditCommands(program)
  registerRevenueCommands(program)
  registerOperatorCommands(program)
}
