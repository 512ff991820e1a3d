// The operator's actions on catalogue versions: import, list, diff, activate, export. One function per action,
// called by the command line (operator.service.ts) and the console's catalogue section (console-sections.ts)
// alike; each front end turns the versions service's refusals into its own errors around them.
import type { CatalogueDiff } from '../../domain/catalogue-diff.ts'
import type { CatalogueImport, CatalogueVersionView } from '../../domain/catalogue-versions.ts'
import type { OperatorContext } from './context.ts'

/** What the catalogue actions run on: the command line's context, or the console's with its operator as actor. */
export type CatalogueDeps = Pick<OperatorContext, 'catalogueVersions' | 'actor'>

/** Validates and stores a catalogue file's text as a version (every problem listed on refusal); `activate`: makes it active. */
export async function importCatalogue(
  deps: CatalogueDeps,
  input: { content: string; sourceName: string; activate: boolean },
): Promise<CatalogueImport> {
  return deps.catalogueVersions.import(input.content, input.sourceName, deps.actor, { activate: input.activate })
}

/** Every catalogue version, oldest first, the active one marked. */
export async function listCatalogues(deps: Pick<CatalogueDeps, 'catalogueVersions'>): Promise<CatalogueVersionView[]> {
  return deps.catalogueVersions.list()
}

/** What changed from one catalogue version to another. */
export async function diffCatalogues(
  deps: Pick<CatalogueDeps, 'catalogueVersions'>,
  input: { from: number; to: number },
): Promise<CatalogueDiff> {
  return deps.catalogueVersions.diff(input.from, input.to)
}

/**
 * Makes a stored catalogue version the active one; the version active before, and `warnings` naming the accounts
 * whose own price list the version does not have (they fall back to its default list, or to the labs' costs).
 */
export async function activateCatalogue(
  deps: CatalogueDeps,
  input: { version: number },
): Promise<{ version: number; previous: number | null; warnings?: string[] }> {
  return deps.catalogueVersions.activate(input.version, deps.actor)
}

/** What activating a version would warn about, before it is activated (the console's confirmation). */
export async function catalogueActivationWarnings(
  deps: Pick<CatalogueDeps, 'catalogueVersions'>,
  input: { version: number },
): Promise<string[]> {
  return deps.catalogueVersions.activationWarnings(input.version)
}

/** A catalogue version's stored text. */
export async function exportCatalogue(
  deps: Pick<CatalogueDeps, 'catalogueVersions'>,
  input: { version: number },
): Promise<{ version: number; content: string }> {
  return { version: input.version, content: await deps.catalogueVersions.export(input.version) }
}
