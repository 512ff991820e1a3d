// docs/architecture.md describes the code as it is: its layout names every folder of src/ and every service
// and repository file, names no file that does not exist, and its jobs table has one row per job queue with the
// file that runs it and the section of the docs that describes it.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { test } from 'node:test'
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
