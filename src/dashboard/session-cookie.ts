// The session cookie's name, shared by the dashboard (which sets and clears it) and the API's authentication
// (which accepts it like a key): its own module, so pages need not import the plugin that registers them.
import type { Environment } from '../domain/environment.ts'

/** Per environment: both ports are on one host, and browsers share cookies across the ports of a host. */
export function sessionCookieName(environment: Environment): string {
  return `printroute_${environment}_session`
}
