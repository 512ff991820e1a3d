// docs/architecture.md describes the code as it is: its layout names every folder of src/ and every service
// and repository file, names no file that does not exist, and its jobs table has one row per job queue with the
// file that runs it and the section of the docs that describes it. Its Boundaries table is biome.jsonc's
// allow-lists, entry for entry, and its Decisions name only files and folders that exist.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, posix, relative } from 'node:path'
import { test } from 'node:test'
import ts from 'typescript'
import { QUEUE_NAMES } from '../../src/jobs/registry.ts'
import { tier } from '../support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..', '..')
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')

function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`)
  assert.ok(start >= 0, `docs/architecture.md has a "## ${heading}" section`)
  const end = DOC.indexOf('\n## ', start + 1)
  return DOC.slice(start, end < 0 ? undefined : end)
}

/** The layout's code block: the folder tree with what each folder holds. */
function layoutBlock(): string {
  const block = section('Layout').match(/```\n([\s\S]*?)```/)
  assert.ok(block, 'the Layout section has a code block')
  return block[1] as string
}

/** Every file and folder under `directory` (relative to the repository), tests and data left out. */
function walk(directory: string): { folders: string[]; files: string[] } {
  const folders: string[] = []
  const files: string[] = []
  for (const entry of readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name))
    if (entry.isDirectory()) folders.push(path)
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path)
  }
  return { folders: folders.sort(), files: files.sort() }
}

test('the layout names every folder of src/ and every service and repository file', () => {
  const layout = layoutBlock()
  const { folders, files } = walk('src')
  assert.deepEqual(
    folders.filter((folder) => !layout.includes(`${folder}/`)),
    [],
    'folders of src/ missing from the layout (write them as src/<folder>/)',
  )
  const named = files.filter((file) => /^src\/(services|repositories)\//.test(file))
  assert.ok(named.length > 20, `service and repository files are found (${named.length})`)
  assert.deepEqual(
    named.filter((file) => !layout.includes(basename(file, '.ts'))),
    [],
    'service and repository files missing from the layout',
  )
})

test('every file and folder the layout names exists', () => {
  const layout = layoutBlock()
  const everyFile = new Set(
    ['src', 'test', 'bench', 'scripts', 'sdk', 'bin'].flatMap((folder) => {
      const { files } = walk(folder)
      return [...files, ...readdirSync(join(ROOT, folder)).map((name) => join(folder, name))].map((file) =>
        basename(file),
      )
    }),
  )
  const missingPaths = [...layout.matchAll(/\b((?:src|test|bench|scripts|sdk|bin|migrations|samples)\/[\w./-]*)/g)]
    .map((match) => (match[1] as string).replace(/[.,;:]+$/, ''))
    .filter((path) => !existsSync(join(ROOT, path)))
  assert.deepEqual(missingPaths, [], 'paths in the layout that do not exist')
  // A whole file name, not the end of a pattern such as <resource>.routes.ts.
  const missingFiles = [...layout.matchAll(/(?<![\w.<>-])([\w-][\w.-]*\.(?:ts|js))\b/g)]
    .map((match) => match[1] as string)
    .filter((name) => !everyFile.has(name))
  assert.deepEqual(missingFiles, [], 'file names in the layout that no file has')
})

test('the jobs table has one row per job queue, naming a file that exists and a documented section', () => {
  const rows = section('Jobs')
    .split('\n')
    .filter((line) => /^\| `[\w-]+` \|/.test(line))
    .map((line) => line.split('|').map((cell) => cell.trim()))
  const jobs = rows.map((cells) => (cells[1] as string).replaceAll('`', ''))
  assert.deepEqual([...jobs].sort(), [...QUEUE_NAMES].sort(), 'one row per job queue (src/jobs/registry.ts)')
  for (const cells of rows) {
    const [, job, , file, docs] = cells as [string, string, string, string, string]
    const path = file.match(/`([\w./-]+\.ts)`/)?.[1]
    assert.ok(path && existsSync(join(ROOT, 'src', path)), `${job}: the handler file ${file} exists under src/`)
    const link = docs.match(/\]\(([\w.-]+\.md)#([\w-]+)\)/)
    assert.ok(link, `${job}: the docs cell links a section (${docs})`)
    const [, doc, anchor] = link as unknown as [string, string, string]
    const headings = readFileSync(join(ROOT, 'docs', doc), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) =>
        line
          .replace(/^#+\s*/, '')
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .replace(/\s/g, '-'),
      )
    assert.ok(headings.includes(anchor), `${job}: docs/${doc} has a heading #${anchor}`)
  }
})

/** One row of the Boundaries table: the folder (or root file) and what it may import, as biome.jsonc names them. */
interface BoundaryList {
  folder: string
  mayImport: string[]
}

/**
 * biome.jsonc's boundary allow-lists, one per folder of src/ (a folder's own files and its subfolders' lists are
 * joined). Each `!` entry of the `**` pattern becomes what the table names: a folder of src/ as `services/`, a file
 * as `adapters/clock.ts`, a package or built-in as written; `./*` (and `../*` from a subfolder) is the folder
 * itself. The catch-all list for folders without one (`src/**`) is left out: the prose before the table says it.
 */
function boundaryLists(): BoundaryList[] {
  const { config, error } = ts.parseConfigFileTextToJson('biome.jsonc', readFileSync(join(ROOT, 'biome.jsonc'), 'utf8'))
  assert.equal(error, undefined, 'biome.jsonc parses')
  const lists = new Map<string, Set<string>>()
  for (const override of config.overrides as { includes: string[]; linter?: any }[]) {
    const include = override.includes[0] as string
    const patterns = override.linter?.rules?.style?.noRestrictedImports?.options?.patterns as
      | { group: string[]; importNamePattern?: string; message?: string }[]
      | undefined
    if (!include.startsWith('src/') || include === 'src/**' || !patterns) continue
    const allowList = patterns.find((pattern) => pattern.group[0] === '**' && pattern.importNamePattern === undefined)
    assert.ok(allowList, `${include}: an allow-list (a "**" pattern)`)
    // The folder the override's files sit in; a subfolder (`src/x/*/**`) stands as `src/x/_`.
    const base = include
      .replace(/\/\*\/\*\*$/, '/_')
      .replace(/\/(\*\*|\*\.ts)$/, '')
      .replace(/\/[\w.-]+\.ts$/, '')
    const folder = include.replace(/^src\//, '').replace(/(\*\/)?\*\*$|\*\.ts$/, '')
    const named = lists.get(folder) ?? new Set<string>()
    for (const entry of allowList.group.slice(1)) {
      const allowed = entry.replace(/^!/, '')
      if (!allowed.startsWith('.')) {
        named.add(allowed)
        continue
      }
      const path = posix.join(base, allowed)
      if (path.split('/').includes('_')) continue // the subfolder's own files: part of the folder itself
      named.add(path.replace(/^src\//, '').replace(/\*$/, ''))
    }
    lists.set(folder, named)
  }
  return [...lists].map(([folder, named]) => ({ folder, mayImport: [...named].sort() }))
}

/** The names in backticks of a table cell or a bullet. */
const quoted = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)

test("the Boundaries table lists each folder's allow-list of biome.jsonc, entry for entry", () => {
  const rows = section('Boundaries')
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map((cells) => ({ folder: quoted(cells[1] as string)[0] as string, mayImport: quoted(cells[2] as string).sort() }))
  const lists = boundaryLists()
  assert.ok(lists.length >= 10, `biome.jsonc's boundary lists are read (${lists.length})`)
  assert.deepEqual(
    rows.map((row) => row.folder).sort(),
    lists.map((list) => list.folder).sort(),
    'one row per folder with a list in biome.jsonc',
  )
  for (const row of rows) {
    const list = lists.find((candidate) => candidate.folder === row.folder)
    assert.deepEqual(
      { folder: row.folder, mayImport: [...new Set(row.mayImport)] },
      list,
      `${row.folder}: the row names exactly its list`,
    )
  }
})

test('every file and folder a Decision names exists', () => {
  const bullets = section('Decisions').split(/\n- /).slice(1)
  assert.ok(bullets.length > 15, `the decisions are read (${bullets.length})`)
  const srcFiles = walk('src').files
  const missing: string[] = []
  for (const bullet of bullets) {
    const title = bullet.match(/^\*\*(.+?)\*\*/)?.[1] ?? bullet.slice(0, 40)
    const files = quoted(bullet).filter((name) => /^[\w./-]+\.(ts|js|sql|css|json)$/.test(name))
    for (const file of files) {
      const found = file.includes('/')
        ? [file, join('src', file)].some((path) => existsSync(join(ROOT, path)))
        : srcFiles.some((path) => basename(path) === file)
      if (!found) missing.push(`${title}: ${file}`)
    }
    for (const folder of quoted(bullet).filter((name) => /^[\w-]+(\/[\w-]+)*\/$/.test(name))) {
      if (![folder, join('src', folder)].some((path) => existsSync(join(ROOT, path))))
        missing.push(`${title}: ${folder}`)
    }
    for (const [, doc] of bullet.matchAll(/\]\(([\w.-]+\.md)(?:#[\w-]+)?\)/g)) {
      if (!existsSync(join(ROOT, 'docs', doc as string))) missing.push(`${title}: docs/${doc}`)
    }
  }
  assert.deepEqual(missing, [], 'files named by a decision that do not exist (Decision: file)')
})
