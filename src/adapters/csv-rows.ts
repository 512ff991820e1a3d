// Reading a CSV file record by record (csv-parse, streaming): an import never holds the whole file, only the record
// being read. RFC 4180 quoting (a quote inside a quoted field doubled; a stray quote inside an unquoted field kept as
// written), a UTF-8 byte order mark removed, CRLF or LF line ends, rows of any length (the import checks them
// against the header), empty lines skipped.
import { Readable } from 'node:stream'
import { CsvError, parse } from 'csv-parse'

/** A record of the file: its fields as written, and its number (the header is record 1). */
export interface CsvRecord {
  record: number
  fields: string[]
}

/** Why the rest of a file could not be read: the record it happened at, in the parser's words. */
export class CsvReadError extends Error {
  override name = 'CsvReadError'
  readonly record: number
  readonly parserCode: string

  constructor(message: string, record: number, parserCode: string) {
    super(message)
    this.record = record
    this.parserCode = parserCode
  }
}

/** The records of `source`, one at a time; a file the parser cannot go on with ends in CsvReadError. */
export async function* readCsvRecords(source: Readable, maxFieldCharacters: number): AsyncGenerator<CsvRecord> {
  const parser = source.pipe(
    parse({
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: maxFieldCharacters,
      info: true,
    }),
  )
  // A stream error of the source (a read failing) ends the parser too.
  source.once('error', (error) => parser.destroy(error))
  let last = 0
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { records: number } }>) {
      last = info.records
      yield { record: info.records, fields: record }
    }
  } catch (error) {
    if (error instanceof CsvError) throw new CsvReadError(error.message, last + 1, error.code)
    throw error
  } finally {
    if (!source.destroyed) source.destroy()
  }
}

/** The first record of an uploaded body (a file's header), undefined when it has none. */
export async function readCsvHeader(body: Buffer, maxFieldCharacters: number): Promise<string[] | undefined> {
  for await (const record of readCsvRecords(Readable.from([body]), maxFieldCharacters)) return record.fields
  return undefined
}
