/** The two environments every account has: Live fulfils and bills; Sandbox never does. */
export type Environment = 'sandbox' | 'live'
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'live']

export function environmentName(environment: Environment): string {
  return environment === 'live' ? 'Live' : 'Sandbox'
}

/** The port a base URL is reached on: the one it names, else its scheme's default. */
export function portOfBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return url.port || (url.protocol === 'https:' ? '443' : '80')
  } catch {
    return '?'
  }
}

/**
 * What a key of `keyEnvironment` sent to the address of `addressEnvironment` is told: which environment the key
 * belongs to and where that environment is served (its configured public URL, so the port a person copies is
 * the one that answers).
 */
export function otherEnvironmentKeyMessage(
  keyEnvironment: Environment,
  addressEnvironment: Environment,
  publicUrl: (environment: Environment) => string,
): string {
  const key = environmentName(keyEnvironment)
  const address = environmentName(addressEnvironment)
  const right = publicUrl(keyEnvironment)
  return (
    `The X-API-Key is a ${key} key, and this is the ${address} address (port ` +
    `${portOfBaseUrl(publicUrl(addressEnvironment))}): send ${key} keys to the ${key} address, ${right} ` +
    `(port ${portOfBaseUrl(right)}), or use a ${address} key here`
  )
}
