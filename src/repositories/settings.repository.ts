// Instance-wide settings shared by every process (the file-URL signing secret).
import type { Queryable } from '../adapters/database.ts'

/** The setting's value, created with `initial` by whichever process asks first. */
export async function getOrCreateSetting(db: Queryable, name: string, initial: string): Promise<string> {
  await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, initial])
  const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])
  return rows[0]?.value ?? initial
}

/** The setting's value, or undefined when it was never set. */
export async function readSetting(db: Queryable, name: string): Promise<string | undefined> {
  const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])
  return rows[0]?.value
}

/** Sets (or replaces) a setting; the value it had before, if any. */
export async function writeSetting(db: Queryable, name: string, value: string): Promise<string | undefined> {
  const rows = await db.query<{ before: string | null }>(
    `WITH previous AS (SELECT value FROM settings WHERE name = $1 FOR UPDATE)
     INSERT INTO settings (name, value) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
     RETURNING (SELECT value FROM previous) AS before`,
    [name, value],
  )
  return rows[0]?.before ?? undefined
}
