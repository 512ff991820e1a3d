// A stored catalogue version as the console and the command line list it: services/catalogue-versions.service.ts
// builds it, dashboard/admin/catalogue.pages.ts shows it.

/** A stored catalogue version. */
export interface CatalogueVersionView {
  version: number
  sourceName: string
  sha256: string
  bytes: number
  importedAt: string
  importedBy: string
  active: boolean
  /** When it was made the active version (the last time); null for any but the active one. */
  activatedAt: string | null
  activatedBy: string | null
}

/** What importing a catalogue file gave: the version its text is stored as. */
export interface CatalogueImport {
  version: number
  /** False when the same text was already stored: `version` is that one. */
  created: boolean
  /** Whether it is the active version now (it was, or `activate` made it so). */
  active: boolean
  /** What the catalogue allows but the operator should know (a fixed price below a lab's cost); absent: none. */
  warnings?: string[]
}
