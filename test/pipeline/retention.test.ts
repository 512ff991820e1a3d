// Kept copies of assets are deleted after the retention period by the scheduled job's service function.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createFileSystemBlobStore } from '../../src/adapters/blob-store.ts'
import { ManualClock } from '../../src/adapters/clock.ts'
import { createPipelineService, type PipelineDeps } from '../../src/services/pipeline/index.ts'
import { tier } from '../support/tiers.ts'

tier('sql')

test('asset copies and print files older than the retention period are deleted; newer ones, thumbnails and previews stay', async () => {
  const root = mkdtempSync(join(tmpdir(), 'printroute-retention-'))
  try {
    const files = createFileSystemBlobStore(root)
    const clock = new ManualClock(new Date('2026-06-01T00:00:00Z'))
    const old = new Date('2026-04-01T00:00:00Z') // 61 days before
    const recent = new Date('2026-05-20T00:00:00Z') // 12 days before
    const keys = {
      oldAsset: 'assets/ord_1/ast_1',
      oldPrint: 'print-files/ord_1/shp_1/ast_1.jpg',
      oldThumbnail: 'thumbnails/ord_1/ast_1.jpg',
      oldPreview: 'previews/ord_1/shp_1/ast_1.jpg',
      recentAsset: 'assets/ord_2/ast_2',
    }
    for (const key of Object.values(keys)) await files.put(key, Buffer.from(key), 'application/octet-stream')
    for (const key of [keys.oldAsset, keys.oldPrint, keys.oldThumbnail, keys.oldPreview])
      utimesSync(join(root, key), old, old)
    utimesSync(join(root, keys.recentAsset), recent, recent)

    const pipeline = createPipelineService({
      files,
      clock,
      settings: { assetRetentionDays: 30 },
    } as unknown as PipelineDeps)
    assert.equal(await pipeline.expireStoredFiles(), 2)
    assert.equal(await files.exists(keys.oldAsset), false)
    assert.equal(await files.exists(keys.oldPrint), false)
    assert.equal(await files.exists(keys.oldThumbnail), true)
    assert.equal(await files.exists(keys.oldPreview), true)
    assert.equal(await files.exists(keys.recentAsset), true)
    assert.equal(await pipeline.expireStoredFiles(), 0, 'a second run finds nothing more')
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
