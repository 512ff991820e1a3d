// The printroute command line, built with commander: every command documents itself (`--help`, or
// `printroute help COMMAND`), a mistyped command or flag gets the nearest one suggested, and the settings'
// options come from the one settings table (src/config.ts).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Command, CommanderError } from 'commander'
import { registerClaimCommands } from './claims.ts'
import { registerDataCommands } from './data-commands.ts'
import { registerFileCommands } from './files.ts'
import { registerLabSimulateCommand } from './labs-simulate.ts'
import { registerListenCommand } from './listen.ts'
import { OperationError } from './operation-error.ts'
import { registerOrderActionCommands } from './order-actions.ts'
import { registerAdvanceCommand } from './orders-advance.ts'
import { registerOrderImportCommand } from './orders-import.ts'
import { registerOrderMoveCommand } from './orders-move.ts'
import { registerOrderCommands } from './orders-watch.ts'
import { registerProcessCommands } from './serve.ts'

const PACKAGE = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  version: string
}

export function buildProgram(): Command {
  const program = new Command('printroute')
    .description('printroute: a self-hostable print-on-demand order service')
    .version(PACKAGE.version, '-v, --version', 'print the version')
    .helpCommand('help [COMMAND...]', 'show the help of a command')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for the usage)')
    .configureHelp({ sortSubcommands: false, showGlobalOptions: false })
  registerProcessCommands(program)
  registerDataCommands(program)
  const labs = program.commands.find((command) => command.name() === 'labs')
  if (labs) registerLabSimulateCommand(labs)
  registerListenCommand(program)
  const orders = registerOrderCommands(program)
  registerAdvanceCommand(orders)
  registerOrderMoveCommand(orders)
  registerOrderActionCommands(orders)
  registerOrderImportCommand(orders)
  registerClaimCommands(program)
  registerFileCommands(program)
  // Every command, however deep, stops on errors here instead of exiting, and says what it did wrong.
  const exitOverrideAll = (command: Command) => {
    command.exitOverride()
    for (const child of command.commands) exitOverrideAll(child)
  }
  exitOverrideAll(program)
  return program
}

/** `printroute help accounts create` = `printroute accounts create --help`, at any depth. */
function expandHelp(argv: string[]): string[] {
  return argv[0] === 'help' && argv.length > 1 ? [...argv.slice(1), '--help'] : argv
}

/** Runs the command line; resolves to the exit code (a running `serve` or `worker` keeps the process alive). */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram()
  try {
    await program.parseAsync(expandHelp(argv), { from: 'user' })
    return 0
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version asked for are answers (0); help shown for a missing command is not (1 with no
      // command at all, 2 for a group without its subcommand); anything else commander refused is a usage error.
      if (error.exitCode === 0) return 0
      if (error.code === 'commander.help') return argv.length === 0 ? 1 : 2
      return 2
    }
    const name = commandNameOf(program, argv)
    const usage = error instanceof OperationError && error.exitCode === 2
    process.stderr.write(
      `printroute ${name}: ${(error as Error).message}\n${usage ? '(add --help for the usage)\n' : ''}`,
    )
    return usage ? 2 : 1
  }
}

/** The command words of argv (`accounts create`), for error messages. */
function commandNameOf(program: Command, argv: string[]): string {
  const words: string[] = []
  let command: Command | undefined = program
  for (const word of argv) {
    command = command?.commands.find((child) => child.name() === word)
    if (!command) break
    words.push(word)
  }
  return words.join(' ')
}
