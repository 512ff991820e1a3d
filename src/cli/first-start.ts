// What `printroute serve` says on a start with no account yet. With the embedded database (or
// `--demo-account`) it makes a demo account: at a terminal its keys and a first order to paste are printed
// once, in the log; otherwise (a service manager, a container, a pipe into a log collector) the keys never
// enter the log stream: they go to a file only the owner can read in the data directory, the first order to a
// script beside it, and the log names both. On PostgreSQL without `--demo-account` no account is made: the
// log says how to create one.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Environment } from '../domain/environment.ts'
import { firstOrderCommands } from './first-order.ts'

/** The demo account's keys, in the data directory (mode 0600). */
export const FIRST_START_KEYS_FILE = 'first-start-keys.txt'
/** The first order as a shell script, in the data directory (mode 0700: it holds the Sandbox key). */
export const FIRST_ORDER_SCRIPT = 'first-order.sh'

export interface DemoAccount {
  accountId: string
  keys: Record<Environment, string>
  sandboxUrl: string
}

function keysLines(demo: DemoAccount): string[] {
  return [
    `Demo account ${demo.accountId} created. Its API keys, shown this once (printroute keeps only their hashes;`,
    `\`npx printroute keys create --account ${demo.accountId} --env sandbox\` makes another at any time):`,
    '',
    `  Sandbox: ${demo.keys.sandbox}`,
    `  Live:    ${demo.keys.live}`,
    '',
  ]
}

const COMPLETES = 'Complete in about 10 seconds, with a sample image printroute serves itself.'

function dashboardLine(demo: DemoAccount): string {
  return `Or watch it in the dashboard: open ${demo.sandboxUrl}/dashboard/ and sign in with the Sandbox key.`
}

/** The banner printed at a terminal: the keys, the first order to paste, the dashboard. */
export function demoBanner(demo: DemoAccount): string {
  return [
    ...keysLines(demo),
    'Place a first order on the Sandbox and watch it: paste these lines into a shell. It reaches stage',
    COMPLETES,
    '',
    firstOrderCommands(demo.sandboxUrl, demo.keys.sandbox),
    '',
    dashboardLine(demo),
    '',
  ].join('\n')
}

/** Writes `text` to `path` readable (and with `mode` 0700, runnable) by the owner only, replacing any file. */
function writeOwnerOnly(path: string, text: string, mode: 0o600 | 0o700): void {
  // A file left from an earlier start may have other permissions: a new one is made.
  rmSync(path, { force: true })
  writeFileSync(path, text, { mode, flag: 'wx' })
  // The umask can only have taken bits away; set exactly these.
  chmodSync(path, mode)
}

/**
 * Writes the keys and the first-order script into the data directory; returns the log message naming them,
 * which holds no secret.
 */
export function writeDemoAccountFiles(
  dataDir: string,
  demo: DemoAccount,
): { message: string; keysFile: string; script: string } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const keysFile = join(dataDir, FIRST_START_KEYS_FILE)
  const script = join(dataDir, FIRST_ORDER_SCRIPT)
  writeOwnerOnly(
    keysFile,
    [...keysLines(demo), `The first order on the Sandbox: sh ${script}`, dashboardLine(demo), ''].join('\n'),
    0o600,
  )
  writeOwnerOnly(
    script,
    [
      '#!/bin/sh',
      `# printroute's first order on the Sandbox at ${demo.sandboxUrl}: places it, then lists it (run again to watch).`,
      firstOrderCommands(demo.sandboxUrl, demo.keys.sandbox),
      '',
    ].join('\n'),
    0o700,
  )
  const message = [
    `Demo account ${demo.accountId} created. Its API keys are in ${keysFile}, readable only by this user`,
    '(they are not logged; printroute keeps only their hashes, so keep the keys elsewhere and delete the file).',
    `Place a first order on the Sandbox and watch it: sh ${script} (or paste its lines). It reaches stage`,
    COMPLETES,
    dashboardLine(demo),
  ].join('\n')
  return { message, keysFile, script }
}

/** The line of a start on PostgreSQL with no account and no `--demo-account`. */
export function noAccountMessage(): string {
  return (
    'No account yet. Create one with `npx printroute accounts create --name NAME` (same DATABASE_URL): it prints ' +
    "the account's Sandbox and Live keys once. Or start once with --demo-account for a demo account."
  )
}

/**
 * The line `serve` logs at start until the operator has set the seller printed on invoices (docs/billing.md#the-seller):
 * the command and the console page that set it. Undefined once it is set.
 */
export function sellerUnsetLine(configured: boolean, consoleUrl: string): string | undefined {
  if (configured) return undefined
  return (
    'no seller is set for invoices: documents name printroute and this instance. Set it before taking real orders: ' +
    `printroute invoices seller --name NAME --address LINE, or the console's Seller page at ${consoleUrl}/admin/invoices/seller`
  )
}
