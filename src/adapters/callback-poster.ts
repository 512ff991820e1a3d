// Posts callbacks through the same address rules as asset downloads (no private addresses unless allowed), and
// turns the fetcher's refusals into the outcomes the callbacks service schedules retries by.
import type { CallbackPoster } from '../services/callbacks.service.ts'
import { createSafeFetcher, DownloadError } from './safe-fetcher.ts'

export function createCallbackPoster(options: { allowPrivateAddresses: boolean }): {
  post: CallbackPoster
  close(): Promise<void>
} {
  const fetcher = createSafeFetcher({
    allowPrivateAddresses: options.allowPrivateAddresses,
    userAgent: 'printroute (callbacks)',
  })
  return {
    async post(url, body, postOptions) {
      try {
        const answer = await fetcher.post(url, body, postOptions)
        return { answered: true, status: answer.status, body: answer.body }
      } catch (error) {
        if (!(error instanceof DownloadError)) throw error
        // A refused address or a malformed URL does not get better by waiting.
        const permanent = error.code === 'ForbiddenAddress' || error.code === 'InvalidUrl'
        return { answered: false, error: error.message, permanent }
      }
    },
    close: () => fetcher.close(),
  }
}
