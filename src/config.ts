// Every setting of printroute, read once from command-line flags and environment variables, validated,
// and documented in docs/configuration.md. Flags win over environment variables, which win over defaults.
import { resolve } from 'node:path'
import { parseDurationSeconds } from './domain/duration.ts'

export interface DatabaseSettings {
  /** Directory of the embedded database and stored files. */
  dataDir: string
  /** An external PostgreSQL server instead of the embedded database. */
  databaseUrl: string | null
}

export interface ServeSettings extends DatabaseSettings {
  host: string
  livePort: number
  sandboxPort: number
  catalogueFile: string | null
  requestTimeoutMs: number
  logLevel: string
}

export class SettingsError extends Error {}

type Flags = Record<string, string | boolean | undefined>

function text(flags: Flags, flag: string, envName: string | null, fallback: string): string
function text(flags: Flags, flag: string, envName: string | null, fallback: null): string | null
function text(flags: Flags, flag: string, envName: string | null, fallback: string | null): string | null {
  const fromFlag = flags[flag]
  if (typeof fromFlag === 'string') return fromFlag
  const fromEnv = envName ? process.env[envName] : undefined
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  return fallback
}

function port(value: string, name: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 0 || number > 65535) {
    throw new SettingsError(`${name} must be a port number (0-65535), got "${value}"`)
  }
  return number
}

export function readDatabaseSettings(flags: Flags): DatabaseSettings {
  return {
    dataDir: resolve(text(flags, 'data-dir', 'PRINTROUTE_DATA_DIR', './data')),
    databaseUrl: text(flags, 'database-url', 'DATABASE_URL', null),
  }
}

export function readServeSettings(flags: Flags): ServeSettings {
  const timeout = text(flags, 'request-timeout', 'PRINTROUTE_REQUEST_TIMEOUT', '60s')
  let requestTimeoutSeconds: number
  try {
    requestTimeoutSeconds = parseDurationSeconds(timeout)
  } catch (error) {
    throw new SettingsError(`--request-timeout: ${(error as Error).message}`)
  }
  if (requestTimeoutSeconds < 1) throw new SettingsError('--request-timeout must be at least 1s')
  const catalogue = text(flags, 'catalogue', 'PRINTROUTE_CATALOGUE', null)
  return {
    ...readDatabaseSettings(flags),
    host: text(flags, 'host', 'PRINTROUTE_HOST', '127.0.0.1'),
    livePort: port(text(flags, 'port', 'PORT', '8080'), '--port'),
    sandboxPort: port(text(flags, 'sandbox-port', 'PRINTROUTE_SANDBOX_PORT', '8081'), '--sandbox-port'),
    catalogueFile: catalogue ? resolve(catalogue) : null,
    requestTimeoutMs: requestTimeoutSeconds * 1000,
    logLevel: text(flags, 'log-level', 'PRINTROUTE_LOG_LEVEL', 'info'),
  }
}
