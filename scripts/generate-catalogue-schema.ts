// Rewrites docs/catalogue.schema.json from the catalogue's schema in src/catalogue/catalogue.schema.ts
// (`npm run docs:catalogue-schema`). src/catalogue/catalogue.schema.test.ts fails when the two disagree.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { catalogueSchemaJson } from '../src/catalogue/catalogue.schema.ts'

const file = join(import.meta.dirname, '..', 'docs', 'catalogue.schema.json')
writeFileSync(file, catalogueSchemaJson())
console.log(`wrote ${file}`)
