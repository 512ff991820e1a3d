// `printroute catalogue`: catalogue versions: import, list, diff, activate, export.

import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import type { Command } from 'commander'
import { CATALOGUE_DIFF_SECTION_TITLES, type CatalogueDiff } from '../domain/catalogue-diff.ts'
import {
  addSettingOptions,
  print,
  printJson,
  runDataOperation,
  settingsFor,
  UsageError,
  type Values,
} from './command-support.ts'

function diffText(diff: CatalogueDiff): string {
  if (diff.total === 0) return `catalogue versions ${diff.from} and ${diff.to} are the same`
  const lines = [`catalogue version ${diff.from} -> ${diff.to}: ${diff.total} change${diff.total === 1 ? '' : 's'}`]
  for (const { section, changes } of diff.sections) {
    if (changes.length === 0) continue
    lines.push('', `${CATALOGUE_DIFF_SECTION_TITLES[section]}:`)
    for (const change of changes) {
      if (change.change === 'added') lines.push(`  + ${change.key}: ${change.after}`)
      else if (change.change === 'removed') lines.push(`  - ${change.key}: ${change.before}`)
      else lines.push(`  ~ ${change.key}: ${change.before} -> ${change.after}`)
    }
  }
  if (diff.priceListAccounts.length > 0) {
    lines.push('', `Accounts whose price list version ${diff.to} does not have:`)
    for (const account of diff.priceListAccounts) {
      const instead = account.fallsBackTo === null ? "the labs' costs" : `default list ${account.fallsBackTo}`
      lines.push(`  ${account.accountId}: ${account.priceList} -> ${instead}`)
    }
  }
  return lines.join('\n')
}

export function registerCatalogueCommands(program: Command): void {
  const catalogue = program
    .command('catalogue')
    .summary('catalogue versions: import, list, diff, activate, export')
    .description(
      'The catalogue is stored as numbered versions, one of them active; every process serves the active one and ' +
        'switches within seconds of an activation (docs/catalogue.md#versions). Works while serve runs.',
    )

  const importCommand = catalogue
    .command('import')
    .summary('validate a catalogue file and store it as a new version')
    .description(
      'Validates FILE (the schema and every cross-check) and stores it as a new version; on any problem nothing is ' +
        'stored and every problem is listed (exit 2). The same text as a stored version is that version. With ' +
        '--activate, the version becomes the active one.',
    )
    .argument('<FILE>', 'the catalogue file (JSON)')
    .option('--activate', 'make the version the active one')
    .option('--json', 'print {"version", "created", "active"} as JSON')
  addSettingOptions(importCommand, 'catalogue import').action(async (file: string, values: Values) => {
    let content: string
    try {
      content = readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`)
    }
    const imported = await runDataOperation(settingsFor(importCommand, 'catalogue import'), 'importCatalogue', {
      content,
      sourceName: basename(file),
      activate: values.activate === true,
    })
    if (values.json) return printJson(imported)
    const what = imported.created ? 'imported as' : 'already stored as'
    print(`${file}: ${what} catalogue version ${imported.version}${imported.active ? ' (active)' : ''}`)
    for (const warning of imported.warnings ?? []) print(`warning: ${warning}`)
  })

  const list = catalogue
    .command('list')
    .summary('list catalogue versions')
    .option('--json', 'print the versions as JSON')
  addSettingOptions(list, 'catalogue list').action(async (values: Values) => {
    const versions = await runDataOperation(settingsFor(list, 'catalogue list'), 'listCatalogues', undefined)
    if (values.json) return printJson(versions)
    for (const version of versions) {
      print(
        `${version.active ? '*' : ' '} ${version.version}\t${version.importedAt}\t${version.importedBy}\t` +
          `${version.sourceName}\t${version.bytes} bytes\tsha256 ${version.sha256.slice(0, 12)}`,
      )
    }
  })

  const diff = catalogue
    .command('diff')
    .summary('what changed between two catalogue versions')
    .description(
      'Lists products, prices, labs, shipping rates, zones, tax rates, currencies and price lists added, removed or ' +
        'changed from A to B, and the accounts whose price list B does not have.',
    )
    .argument('<A>', 'the version compared from')
    .argument('<B>', 'the version compared to')
    .option('--json', 'print the changes as JSON')
  addSettingOptions(diff, 'catalogue diff').action(async (from: string, to: string, values: Values) => {
    const changes = await runDataOperation(settingsFor(diff, 'catalogue diff'), 'diffCatalogues', {
      from: from as unknown as number,
      to: to as unknown as number,
    })
    if (values.json) return printJson(changes)
    print(diffText(changes))
  })

  const activate = catalogue
    .command('activate')
    .summary('make a stored catalogue version the active one')
    .description('Every process (API and workers) switches to it within a few seconds, without a restart.')
    .argument('<N>', 'the version')
  addSettingOptions(activate, 'catalogue activate').action(async (version: string) => {
    const result = await runDataOperation(settingsFor(activate, 'catalogue activate'), 'activateCatalogue', {
      version: version as unknown as number,
    })
    print(
      result.previous === result.version
        ? `catalogue version ${result.version} is already the active one`
        : `catalogue version ${result.version} is active (was ${result.previous ?? 'none'})`,
    )
    for (const warning of result.warnings ?? []) print(`warning: ${warning}`)
  })

  const exportCommand = catalogue
    .command('export')
    .summary("print a catalogue version's file")
    .description('Writes the version exactly as it was imported, to stdout or to --output FILE.')
    .argument('<N>', 'the version')
    .option('--output <FILE>', 'write it to this file instead of stdout')
  addSettingOptions(exportCommand, 'catalogue export').action(async (version: string, values: Values) => {
    const exported = await runDataOperation(settingsFor(exportCommand, 'catalogue export'), 'exportCatalogue', {
      version: version as unknown as number,
    })
    if (typeof values.output === 'string') {
      writeFileSync(values.output, exported.content)
      print(`catalogue version ${exported.version} written to ${values.output}`)
    } else {
      process.stdout.write(exported.content)
    }
  })
}
