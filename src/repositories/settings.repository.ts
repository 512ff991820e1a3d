// Instance-wide settings shared by every process (the file-URL signing secret).
import type { Queryable } from '../adapters/database.ts'

/** The setting's value, created with `initial` by whichever process asks first. */
export async function getOrCreateSetting(db: Queryable, name: string, initial: string): Promise<string> {
  await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, initial])
  const rows = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name])
  return rows[0]?.value ?? initial
}
