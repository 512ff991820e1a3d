// Polls until a probe returns something: for tests that watch the real workers move an order or a delivery on.

/**
 * Calls `probe` every `intervalMs` (100 ms) until it returns a value other than undefined; fails after
 * `timeoutMs`. A probe that costs the system under test much (many requests) asks less often. The default bound
 * only catches a hang: it is generous because a loaded machine (a CI run beside other work) once took more than
 * 30 s to carry Sandbox orders to Delivered.
 */
/** The default bound of `waitFor`: long enough that only a hang reaches it on a loaded machine. */
export const HANG_BOUND_MS = 90_000

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = HANG_BOUND_MS,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  throw new Error(`timed out waiting for ${what}`)
}
