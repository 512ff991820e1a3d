// The dashboard session cookie's name: the dashboard sets and clears the cookie, the API's authentication
// accepts it like the key it was made from, and the reference page's try-it console reads it. A name on the
// wire that both sides share, as the Sandbox's scenario header is: here, so that neither imports the other.
import type { Environment } from './environment.ts'

/** Per environment: both ports are on one host, and browsers share cookies across the ports of a host. */
export function sessionCookieName(environment: Environment): string {
  return `printroute_${environment}_session`
}
