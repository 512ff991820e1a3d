// Where an application keeps its stored files: the data directory, or an S3-compatible bucket.
import { type BlobStore, createFileSystemBlobStore } from '../adapters/blob-store.ts'
import type { ApplicationOptions } from './options.ts'

/** The blob store, and the S3 store itself when it is one (closed with the application). */
export async function openBlobStore(
  options: Pick<ApplicationOptions, 'blobStoreUrl' | 'filesDir'>,
): Promise<{ files: BlobStore; s3: { close(): void } | null }> {
  // Stored files: the data directory, or an S3-compatible bucket checked now rather than at the first upload.
  // The S3 client (the AWS SDK) is loaded only when a bucket is configured.
  const s3 = options.blobStoreUrl
    ? await import('../adapters/s3-blob-store.ts').then(({ createS3BlobStore, parseS3Url }) =>
        createS3BlobStore(parseS3Url(options.blobStoreUrl as string)),
      )
    : null
  if (s3) await s3.checkAccess()
  const files: BlobStore = s3 ?? createFileSystemBlobStore(options.filesDir)
  return { files, s3 }
}
