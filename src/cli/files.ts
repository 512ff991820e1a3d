// `printroute files preflight URL --sku SKU [--print-area AREA] [--page-count N] [--wait]`: a file checked against a
// product (docs/api.md#preflight) from the command line, through POST /v4.0/files/preflight and, with --wait,
// GET /v4.0/files/preflight/{id} until it is inspected. An HTTP client of a printroute server, like `orders watch`.
import type { Command } from 'commander'
import {
  addConnectionOptions,
  connectionOf,
  createApiConnection,
  intervalMs,
  pause,
  stopSignal,
} from './api-connection.ts'
import { print, printJson, requireText, UsageError } from './command-support.ts'
import { OperationError } from './operation-error.ts'

/** A preflight as the API answers it: what this command prints. */
interface PreflightAnswer {
  id: string
  status: string
  pageCount: number | null
  checks: { code: string; severity: string; page?: number; message: string }[]
  fixes: { code: string; message: string }[]
  validSkus: string[]
}

const FINISHED = new Set(['Passed', 'PassedWithWarnings', 'Failed'])
/** The longest --wait waits for an inspection: the inspector's own limit is far below it. */
const WAIT_LIMIT_MS = 10 * 60 * 1000

function pageCountOf(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const text = String(value)
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1)
    throw new UsageError(`--page-count must be a whole number of pages, got "${text}"`)
  return Number(text)
}

/** The report as lines: the status, the pages, each check (errors first as the engine orders them), each fix. */
export function describePreflight(preflight: PreflightAnswer): string[] {
  const pages =
    preflight.pageCount === null ? '' : `  ${preflight.pageCount} page${preflight.pageCount === 1 ? '' : 's'}`
  const lines = [`${preflight.id}  ${preflight.status}${pages}`]
  for (const check of preflight.checks) {
    const where = check.page === undefined ? '' : ` (page ${check.page})`
    lines.push(`  ${check.severity.padEnd(7)} ${check.code}${where}: ${check.message}`)
  }
  for (const fix of preflight.fixes) lines.push(`  fix     ${fix.code}: ${fix.message}`)
  return lines
}

export function registerFileCommands(program: Command): Command {
  const files = program.command('files').summary('check a file against a product on a running printroute')
  const preflight = files
    .command('preflight')
    .summary('check a file (PDF or image) against a product: errors, warnings, the SKUs it fits')
    .description(
      'Sends the file to POST /v4.0/files/preflight and prints the preflight; with --wait, waits until it is ' +
        'inspected and prints the report, exiting 1 when it Failed (an error: no lab can print it as ordered). ' +
        'Talks to a printroute server with an API key (docs/api.md#preflight).',
    )
    .argument('<URL>', 'the file, at a public http(s) URL')
    .option('--sku <SKU>', 'the product the file is for')
    .option('--print-area <AREA>', 'the print area (default: default)')
    .option('--page-count <N>', 'the pages the file should have (books)')
    .option('--wait', 'wait for the report')
    .option('--json', 'print the preflight as the API gives it')
  addConnectionOptions(preflight, '1s').action(async (urlArgument: string, values: Record<string, unknown>) => {
    const url = requireText(urlArgument, 'URL')
    const sku = requireText(values.sku, '--sku')
    const pageCount = pageCountOf(values.pageCount)
    const every = intervalMs(values.pollInterval, '--poll-interval')
    const api = createApiConnection(connectionOf(values))
    const created = await api.post<{ preflight: PreflightAnswer }>('/files/preflight', {
      url,
      sku,
      ...(typeof values.printArea === 'string' ? { printArea: values.printArea } : {}),
      ...(pageCount === undefined ? {} : { pageCount }),
    })
    let current = created.preflight
    if (values.wait) {
      const stop = stopSignal()
      const deadline = Date.now() + WAIT_LIMIT_MS
      try {
        while (!FINISHED.has(current.status) && !stop.signal.aborted && Date.now() < deadline) {
          await pause(every, stop.signal)
          current = (await api.get<{ preflight: PreflightAnswer }>(`/files/preflight/${current.id}`)).preflight
        }
      } finally {
        stop.dispose()
      }
    }
    if (values.json) printJson(current)
    else for (const line of describePreflight(current)) print(line)
    if (values.wait && current.status === 'Failed') throw new OperationError(`${current.id} failed preflight`, 1)
  })
  return files
}
