// Posts callbacks through the same address rules as asset downloads (no private addresses unless allowed), and
// turns the fetcher's refusals into the outcomes the callbacks service schedules retries by.
import { createSafeFetcher, DownloadError } from './safe-fetcher.ts'

/**
 * What a post came to. The callbacks service's `CallbackPoster` has this shape; adapters do not import services
 * (docs/architecture.md, Boundaries), so app.ts is where the compiler checks that the two fit.
 */
export type CallbackPostOutcome =
  | { answered: true; status: number; body: string }
  | { answered: false; error: string; permanent: boolean }

export function createCallbackPoster(options: { allowPrivateAddresses: boolean }): {
  post(
    url: string,
    body: string,
    options: { headers: Record<string, string>; timeoutMs: number },
  ): Promise<CallbackPostOutcome>
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
