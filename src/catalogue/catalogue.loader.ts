// Reads and validates a catalogue file. Synchronous on purpose: it runs once at start-up (`printroute serve
// --catalogue FILE`), and a bad catalogue must stop the process before it accepts a single order.

import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Catalogue } from '../domain/catalogue.ts'
import { validateCatalogueFile } from './catalogue.validation.ts'

/** The catalogue bundled with printroute, built from spec/CATALOGUE-FACTS.md. */
export const SAMPLE_CATALOGUE_PATH = fileURLToPath(new URL('./sample-catalogue.json', import.meta.url))
const SAMPLE_CATALOGUE_NAME = 'sample-catalogue.json'

/**
 * A catalogue that cannot be used. The message has one line per problem:
 * `catalogue <source>: <path>: <reason>`; `problems` holds the `<path>: <reason>` parts.
 */
export class CatalogueError extends Error {
  readonly sourceName: string
  readonly problems: readonly string[]

  constructor(sourceName: string, problems: readonly string[]) {
    super(problems.map((problem) => `catalogue ${sourceName}: ${problem}`).join('\n'))
    this.name = 'CatalogueError'
    this.sourceName = sourceName
    this.problems = Object.freeze([...problems])
  }
}

/** Loads a catalogue file (default: the bundled sample). Throws CatalogueError when unreadable or invalid. */
export function loadCatalogue(filePath?: string): Catalogue {
  return readCatalogueFile(filePath).catalogue
}

/** Validates an already-parsed catalogue document and builds the indexed catalogue. */
export function parseCatalogue(json: unknown, sourceName: string): Catalogue {
  const { file, problems } = validateCatalogueFile(json)
  if (!file || problems.length > 0) throw new CatalogueError(sourceName, problems)
  return new Catalogue(file, sourceName)
}

/** A catalogue file's text with the catalogue read from it: what start-up stores as a version. */
export interface CatalogueFileText {
  text: string
  sourceName: string
  catalogue: Catalogue
}

/** Reads and validates a catalogue file (default: the bundled sample), keeping its text. Throws CatalogueError. */
export function readCatalogueFile(filePath?: string): CatalogueFileText {
  const path = filePath ?? SAMPLE_CATALOGUE_PATH
  const sourceName = filePath ?? SAMPLE_CATALOGUE_NAME
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new CatalogueError(sourceName, [`cannot be read: ${(error as Error).message}`])
  }
  return { text, sourceName, catalogue: parseCatalogueText(text, sourceName) }
}

/** Validates catalogue text (JSON, then the schema and cross-checks) and builds the catalogue. Throws CatalogueError. */
export function parseCatalogueText(text: string, sourceName: string): Catalogue {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new CatalogueError(sourceName, [`is not valid JSON: ${(error as Error).message}`])
  }
  return parseCatalogue(json, sourceName)
}

/** `parseCatalogueText` answering every problem instead of throwing (the catalogue versions service's parser). */
export function checkCatalogueText(
  text: string,
  sourceName: string,
): { catalogue: Catalogue; problems?: undefined } | { catalogue?: undefined; problems: readonly string[] } {
  try {
    return { catalogue: parseCatalogueText(text, sourceName) }
  } catch (error) {
    if (error instanceof CatalogueError) return { problems: error.problems }
    throw error
  }
}

/** The bundled sample's text as shipped (version 1 of a new database). */
export function readSampleCatalogueText(): { text: string; sourceName: string } {
  return { text: readFileSync(SAMPLE_CATALOGUE_PATH, 'utf8'), sourceName: SAMPLE_CATALOGUE_NAME }
}
