// The catalogue a process starts with, and the watch that switches it to a newly activated version.

import { readCatalogueFile } from '../catalogue/catalogue.loader.ts'
import type { CatalogueVersionsService, StartingCatalogue } from '../services/catalogue-versions.service.ts'
import type { ApplicationOptions } from './options.ts'

/** What start-up serves when the database has no active version, or, when explicit, in any case. */
export function startingCatalogue(options: ApplicationOptions): StartingCatalogue {
  if (options.catalogue) {
    return {
      text: options.catalogueText ?? options.catalogue.fileText(),
      sourceName: options.catalogue.sourceName,
      catalogue: options.catalogue,
      explicit: true,
    }
  }
  return { ...readCatalogueFile(), explicit: false }
}

/**
 * Polls the active catalogue version and switches to a newly activated one (docs/catalogue.md#switching). One
 * check at a time; a failed check (the database away) is reported like a background job's error and tried
 * again at the next tick.
 */
export function watchActiveCatalogue(
  versions: CatalogueVersionsService,
  pollSeconds: number,
  onError: (error: Error) => void,
): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null
  const timer = setInterval(() => {
    if (running) return
    running = versions
      .refresh()
      .catch((error: Error) => onError(error))
      .finally(() => {
        running = null
      })
  }, pollSeconds * 1000)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
