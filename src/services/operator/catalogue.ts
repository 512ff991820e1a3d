// The operator's actions on catalogue versions: import, list, diff, activate, export.
import type { CatalogueDiff } from '../../domain/catalogue-diff.ts'
import type { CatalogueVersionView } from '../../domain/catalogue-versions.ts'
import type { CatalogueImport } from '../catalogue-versions.service.ts'
import { type OperatorContext, refused, translated } from './context.ts'

/** A catalogue version number from the command line: a whole number from 1. */
function catalogueVersionOf(value: unknown, what: string): number {
  const text = String(value)
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw refused(`${what} must be a catalogue version number (1, 2, ...), got "${text}"`)
  return Number(text)
}

export async function importCatalogue(
  context: OperatorContext,
  input: {
    content: string
    sourceName: string
    activate?: boolean
  },
): Promise<CatalogueImport> {
  if (typeof input.content !== 'string') throw refused('the catalogue file is missing')
  const sourceName = typeof input.sourceName === 'string' && input.sourceName !== '' ? input.sourceName : 'catalogue'
  return translated(
    () =>
      context.catalogueVersions.import(input.content, sourceName, context.actor, {
        activate: input.activate === true,
      }),
    2,
  )
}

export async function listCatalogues(context: OperatorContext): Promise<CatalogueVersionView[]> {
  return context.catalogueVersions.list()
}

export async function diffCatalogues(
  context: OperatorContext,
  input: { from: number; to: number },
): Promise<CatalogueDiff> {
  const from = catalogueVersionOf(input.from, 'A')
  const to = catalogueVersionOf(input.to, 'B')
  return translated(() => context.catalogueVersions.diff(from, to), 2)
}

export async function activateCatalogue(
  context: OperatorContext,
  input: { version: number },
): Promise<{ version: number; previous: number | null }> {
  const version = catalogueVersionOf(input.version, 'N')
  return translated(() => context.catalogueVersions.activate(version, context.actor), 2)
}

export async function exportCatalogue(
  context: OperatorContext,
  input: { version: number },
): Promise<{ version: number; content: string }> {
  const version = catalogueVersionOf(input.version, 'N')
  return { version, content: await translated(() => context.catalogueVersions.export(version), 2) }
}
