// SQL of operators' notes on orders (migrations/0034_order_notes.sql): appended and read, never changed.
import type { Queryable } from '../adapters/database.ts'
import { type AuditActor, actorIdentity, describeActor } from '../domain/audit.ts'

export interface OrderNoteRow {
  id: number
  at: Date
  authorKind: 'operator' | 'cli'
  author: string
  authorDescription: string
  text: string
}

export async function insertOrderNote(
  db: Queryable,
  note: { orderNumber: number; at: Date; author: Extract<AuditActor, { kind: 'operator' | 'cli' }>; text: string },
): Promise<OrderNoteRow> {
  const rows = await db.query<OrderNoteRow>(
    `INSERT INTO order_notes (order_id, at, author_kind, author, author_description, body)
     VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id::int AS id, at, author_kind AS "authorKind", author, author_description AS "authorDescription",
               body AS text`,
    [note.orderNumber, note.at, note.author.kind, actorIdentity(note.author), describeActor(note.author), note.text],
  )
  return rows[0] as OrderNoteRow
}

/** The order's notes, oldest first. */
export async function listOrderNotes(db: Queryable, orderNumber: number): Promise<OrderNoteRow[]> {
  return db.query<OrderNoteRow>(
    `SELECT id::int AS id, at, author_kind AS "authorKind", author, author_description AS "authorDescription",
            body AS text
       FROM order_notes WHERE order_id = $1 ORDER BY id`,
    [orderNumber],
  )
}
