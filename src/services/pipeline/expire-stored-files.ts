// Scheduled job expire-stored-files: the customer's files and the print files made from them are deleted once
// past their retention.
import type { Clock } from '../../adapters/clock.ts'
import type { FileStore, PipelineSettings } from './ports.ts'

/**
 * Kept copies of assets (and the print files made from them) are deleted after this many days
 * (specification, "Limits": image retention 30 days, then automatic deletion).
 */
export const ASSET_RETENTION_DAYS = 30
/**
 * What the retention job deletes: the customer's files and the full-resolution print files made from them.
 * Thumbnails and print-file previews stay: they are reduced images (at most 400 and 800 px) that orders keep
 * showing for as long as they are read, and nothing a lab could print from.
 */
const EXPIRING_PREFIXES = ['assets/', 'print-files/'] as const

export interface ExpireStoredFilesDeps {
  clock: Clock
  files: Pick<FileStore, 'listOlderThan' | 'delete'>
  settings: Pick<PipelineSettings, 'assetRetentionDays'>
}

/** Deletes kept copies and print files older than the retention period; returns how many. */
export function createExpireStoredFiles(deps: ExpireStoredFilesDeps): () => Promise<number> {
  return async () => {
    const cutoff = new Date(deps.clock.now().getTime() - deps.settings.assetRetentionDays * 86_400_000)
    let deleted = 0
    for (const prefix of EXPIRING_PREFIXES) {
      for await (const key of deps.files.listOlderThan(prefix, cutoff)) {
        await deps.files.delete(key)
        deleted += 1
      }
    }
    return deleted
  }
}
