// `printroute labs`: the catalogue's labs, their keys for the lab API and portal, their pauses and push endpoints
// (`labs simulate` is labs-simulate.ts).
import type { Command } from 'commander'
import type { LabKeyView } from '../domain/lab-keys.ts'
import type { LabPushSettingsView } from '../services/labs/lab-pushes.service.ts'
import {
  dataCommand,
  durationSeconds,
  note,
  type OptionSpec,
  print,
  printJson,
  requireText,
  runDataOperation,
} from './command-support.ts'

/** The option every lab command takes. */
const LAB_OPTION: OptionSpec = ['--lab <CODE>', "the lab's code in the catalogue (see printroute labs list)"]

export function registerLabCommands(program: Command): void {
  const labs = program.command('labs').summary("the catalogue's labs and their keys for the lab API")

  dataCommand(
    labs,
    'labs list',
    {
      summary: "list the catalogue's labs",
      description:
        'Lists the labs of the catalogue with their country, currency and the number of products each makes.',
    },
    async (_values, settings) => {
      const { loadCatalogue } = await import('../catalogue/catalogue.loader.ts')
      const catalogue = loadCatalogue(settings().catalogueFile ?? undefined)
      for (const lab of catalogue.labs) {
        const products = catalogue.products.filter((product) =>
          product.variants.some((variant) => variant.offers.some((offer) => offer.lab.code === lab.code)),
        )
        print(`${lab.code}\t${lab.countryCode}\t${lab.currency}\t${products.length} products\t${lab.name}`)
      }
    },
  )

  registerLabKeyCommands()

  dataCommand(
    labs,
    'labs statement',
    {
      summary: "a lab's payables statement of a month (self-billing; PDF and CSV)",
      description:
        "Issues the lab's payables statement of MONTH (YYYY-MM, UTC, ended): the Live jobs it shipped that month at " +
        'the costs agreed when each was handed over, numbered SB-<LAB>-000001 without gaps per lab; or shows the ' +
        "one already issued (a month has one statement per lab). A month in which nothing of the lab's was shipped, " +
        'cancelled or rejected gets no statement (one of only cancelled or rejected work gets one owing nothing). ' +
        'Each issue is audited (lab.statementIssued). --pdf and --csv write its files. Works while serve runs.',
      options: [
        LAB_OPTION,
        ['--month <YYYY-MM>', 'the month, in UTC'],
        ['--pdf <FILE>', 'write the statement as PDF to FILE'],
        ['--csv <FILE>', 'write the statement as CSV to FILE'],
        ['--json', 'print the statement summary as JSON'],
      ],
    },
    async (values, settings) => {
      const lab = requireText(values.lab, '--lab')
      const month = requireText(values.month, '--month')
      const pdfFile = typeof values.pdf === 'string' ? values.pdf : undefined
      const csvFile = typeof values.csv === 'string' ? values.csv : undefined
      const result = await runDataOperation(settings(), 'labStatement', {
        lab,
        month,
        pdf: pdfFile !== undefined,
        csv: csvFile !== undefined,
      })
      const { writeFileSync } = await import('node:fs')
      if (pdfFile !== undefined && result.pdf !== undefined) writeFileSync(pdfFile, Buffer.from(result.pdf, 'base64'))
      if (csvFile !== undefined && result.csv !== undefined) writeFileSync(csvFile, result.csv)
      const { pdf: _pdf, csv: _csv, ...summary } = result
      if (values.json === true) return printJson(summary)
      if (!result.issued) note(`${result.number} was already issued for ${result.lab} ${result.month}`)
      const totals = result.totals.map((total) => `${total.total} ${total.currency}`).join(', ')
      print(
        `${result.number}\t${result.lab}\t${result.month}\t${result.owed} jobs owed\t${totals}` +
          (result.notOwed > 0 ? `\t${result.notOwed} not owed (cancelled or rejected)` : ''),
      )
      if (pdfFile !== undefined) note(`wrote ${pdfFile}`)
      if (csvFile !== undefined) note(`wrote ${csvFile}`)
    },
  )

  /** labs keys: create, list, rotate and revoke keys for the lab API and portal. */
  function registerLabKeyCommands(): void {
    const labKeys = labs.command('keys').summary('create, list, rotate and revoke keys for the lab API and portal')
    dataCommand(
      labKeys,
      'labs keys create',
      {
        summary: 'create a lab key for the lab API',
        description:
          'Prints a key (shown once) with which a production lab reads its jobs and reports progress on the Live ' +
          'address under /labs/v1.',
        options: [LAB_OPTION],
      },
      async (values, settings) => {
        const lab = requireText(values.lab, '--lab')
        const issued = await runDataOperation(settings(), 'createLabKey', { lab })
        print(issued.key)
      },
    )

    dataCommand(
      labKeys,
      'labs keys list',
      {
        summary: "list a lab's keys (prefixes only)",
        description:
          "Lists a lab's keys, newest first: id, prefix, created, last used (to the minute; the lab API's calls), " +
          'state (active; expiring until a time, when a rotation replaced it; expired; revoked). Never a key. Works ' +
          'while serve runs.',
        options: [LAB_OPTION, ['--json', 'print the keys as JSON']],
      },
      async (values, settings) => {
        const lab = requireText(values.lab, '--lab')
        const keys = await runDataOperation(settings(), 'listLabKeys', { lab })
        if (values.json === true) return printJson(keys)
        if (keys.length === 0) note(`lab ${lab} has no keys: printroute labs keys create --lab ${lab}`)
        for (const key of keys) print(labKeyLine(key))
      },
    )

    dataCommand(
      labKeys,
      'labs keys rotate',
      {
        summary: 'replace a lab key: a new key now, the old ones for an overlap',
        description:
          "Prints a new key for the lab (shown once). The lab's other working keys keep working for the overlap " +
          '(--overlap, 24h by default, at most 30d; 0 ends them now), then its lab API calls are 401 and its portal ' +
          'sessions end. Works while serve runs.',
        options: [
          LAB_OPTION,
          ['--overlap <DURATION>', 'how long the old keys keep working (e.g. 1h, 24h, 7d, 0)', '24h'],
        ],
      },
      async (values, settings) => {
        const lab = requireText(values.lab, '--lab')
        const overlapSeconds = durationSeconds(values.overlap, '--overlap')
        const rotated = await runDataOperation(settings(), 'rotateLabKey', {
          lab,
          ...(overlapSeconds !== undefined ? { overlapSeconds } : {}),
        })
        print(rotated.key)
        note(`new key ${rotated.created.id} (${rotated.created.prefix}), shown this once`)
        for (const old of rotated.replaced) {
          note(`${old.id} (${old.prefix}) works until ${old.expiresAt}`)
        }
      },
    )

    dataCommand(
      labKeys,
      'labs keys revoke',
      {
        summary: 'revoke a lab key',
        description:
          'Revokes the key KEY_ID (lbk_..., as labs keys list shows it; its prefix pr_lab_... works too). Its next ' +
          'lab API call is 401 in every process, and its lab portal sessions end now. Cannot be undone. Works while ' +
          'serve runs.',
        argument: ['<KEY_ID>', 'the key: its id (lbk_...) or its prefix'],
        options: [LAB_OPTION],
      },
      async (values, settings, keyId) => {
        const lab = requireText(values.lab, '--lab')
        const result = await runDataOperation(settings(), 'revokeLabKey', { lab, keyId })
        if (result.wasRevoked) print(`${result.key.id} (${result.key.prefix}) was already revoked`)
        else {
          const sessions = result.sessionsEnded
          print(
            `revoked ${result.key.id} (${result.key.prefix})` +
              (sessions > 0 ? `; ${sessions} portal session${sessions === 1 ? '' : 's'} ended` : ''),
          )
        }
      },
    )
  }

  dataCommand(
    labs,
    'labs configure',
    {
      summary: "set, rotate or remove a lab's push endpoint",
      description:
        "Sets where a lab's jobs are pushed (--push-url), as signed CloudEvents (docs/pipeline.md, Jobs pushed to " +
        'labs). The first URL makes the signing secret and prints it once; setting another URL keeps it. ' +
        '--rotate-secret prints a new secret once; the old one keeps signing beside it for 24 hours. ' +
        "--remove-push stops the pushes (the catalogue's push URL too) and forgets the secrets. Works while serve runs.",
      options: [
        LAB_OPTION,
        ['--push-url <URL>', "the lab's push endpoint (http or https)"],
        ['--rotate-secret', 'make a new signing secret (printed once); the old one signs too for 24 hours'],
        ['--remove-push', 'stop pushing to the lab'],
      ],
    },
    async (values, settings) => {
      const lab = requireText(values.lab, '--lab')
      const result = await runDataOperation(settings(), 'configureLabPush', {
        lab,
        ...(values.pushUrl !== undefined ? { pushUrl: String(values.pushUrl) } : {}),
        ...(values.rotateSecret === true ? { rotateSecret: true } : {}),
        ...(values.removePush === true ? { removePush: true } : {}),
      })
      printLabPush(result)
      if (result.secret) {
        print(`signing secret:  ${result.secret}`)
        print('(shown this once: give it to the lab, which verifies each push with it)')
      }
    },
  )

  dataCommand(
    labs,
    'labs show',
    {
      summary: "a lab's push endpoint and how its pushes are doing",
      description:
        "Shows a lab's push URL and where it comes from (the operator or the catalogue), the start of its signing " +
        'secret (never the secret), and its pushes: pending, delivered, failed, the last attempt. Works while serve runs.',
      options: [LAB_OPTION],
    },
    async (values, settings) => {
      const lab = requireText(values.lab, '--lab')
      printLabPush(await runDataOperation(settings(), 'showLabPush', { lab }))
    },
  )

  for (const paused of [true, false]) {
    dataCommand(
      labs,
      paused ? 'labs pause' : 'labs resume',
      {
        summary: paused ? 'stop giving a lab new work' : 'give a paused lab new work again',
        description: paused
          ? 'Pauses a lab: allocation gives it no new Live work (the routing says LabPaused) until it is resumed. ' +
            'Work it already has stays with it. Works while serve runs.'
          : 'Resumes a paused lab: allocation uses it again from the next order. Works while serve runs.',
        options: [LAB_OPTION],
      },
      async (values, settings) => {
        const lab = requireText(values.lab, '--lab')
        const result = await runDataOperation(settings(), 'setLabPaused', { lab, paused })
        if (paused) print(result.wasPaused ? `lab ${result.lab} was already paused` : `paused lab ${result.lab}`)
        else print(result.wasPaused ? `resumed lab ${result.lab}` : `lab ${result.lab} was not paused`)
      },
    )
  }
}

/** A lab key as `labs keys list` prints it: tab-separated id, prefix, created, last used, state. */
function labKeyLine(key: LabKeyView): string {
  const state =
    key.state === 'revoked'
      ? `revoked ${key.revoked}`
      : key.state === 'expiring'
        ? `expiring ${key.expiresAt}`
        : key.state === 'expired'
          ? `expired ${key.expiresAt}`
          : 'active'
  return `${key.id}\t${key.prefix}\tcreated ${key.created}\t${key.lastUsed ? `last used ${key.lastUsed}` : 'never used'}\t${state}`
}

/** A lab's push settings as `labs configure` and `labs show` print them (never the secret itself). */
function printLabPush(view: LabPushSettingsView): void {
  const from = view.source === null ? '' : ` (from the ${view.source === 'operator' ? 'operator' : 'catalogue'})`
  const health = view.health
  const last =
    health.lastAttemptAt === null
      ? 'none'
      : `${health.lastAttemptAt} ${health.lastHttpStatus === null ? (health.lastError ?? '') : `HTTP ${health.lastHttpStatus}`}`
  print(`lab ${view.lab}`)
  print(`push url:        ${view.url ?? (view.removed ? 'none (removed)' : 'none (the lab polls)')}${from}`)
  print(`secret:          ${view.secretPrefix ?? 'none yet'}`)
  if (view.previousSecretExpiresAt) print(`previous secret: signs too until ${view.previousSecretExpiresAt}`)
  print(`pushes:          ${health.pending} pending, ${health.delivered} delivered, ${health.failed} failed`)
  print(`last attempt:    ${last}`)
}
