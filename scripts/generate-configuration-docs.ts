// Rewrites the settings table of docs/configuration.md from the settings table in src/config.ts
// (`npm run docs:config`). test/config.docs.test.ts fails when the page and the code disagree.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { replaceSettingsTable } from '../src/config.ts'

const page = join(import.meta.dirname, '..', 'docs', 'configuration.md')
writeFileSync(page, replaceSettingsTable(readFileSync(page, 'utf8')))
console.log(`rewrote the settings table of ${page}`)
