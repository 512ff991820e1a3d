// The import graph of src/ (docs/architecture.md, "Boundaries"), read with TypeScript's own parser, for the two
// rules Biome cannot hold:
// - no cycle between files. Biome's noImportCycles follows `import type` only because biome.jsonc sets
//   `ignoreTypes: false` (its default lets two files that each need the other's types pass); this test holds the
//   rule whatever the lint's options, and every edge counts: `import`, `import type`, `export ... from`,
//   `import('...')` in code or in a type, `import x = require(...)`.
// - services/ and jobs/ take adapters by their interfaces: every name they import from adapters/ is marked
//   `type`. Biome's allow-lists match import names by their spelling only (camelCase and UPPER_CASE are values,
//   PascalCase is taken for a type), so a class passes them unless it is named; the compiler knows which import
//   is type-only.
// Each rule is also run over a scratch copy holding a known violation, to show that it fails.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import ts from 'typescript'
import { tier } from '../support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Cycles known and owned by a change in progress, each the set of its files. Only exact matches are allowed:
 * a cycle that grows, or a new one, fails.
 */
const KNOWN_CYCLES: string[][] = []

interface ImportEdge {
  /** The specifier as written. */
  specifier: string
  /** Whether the compiler erases the import: `import type`, `export type ... from`, or every name marked `type`. */
  typeOnly: boolean
  /** The names imported (`*` for a namespace or the whole module, `default` for a default import). */
  names: { name: string; typeOnly: boolean }[]
  line: number
}

/** Every module a source file refers to, with whether each reference survives compilation. */
function importsOf(fileName: string, source: string): ImportEdge[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const edges: ImportEdge[] = []
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const clauseTypeOnly = clause?.isTypeOnly ?? false
      const names: ImportEdge['names'] = []
      if (clause?.name) names.push({ name: 'default', typeOnly: clauseTypeOnly })
      const bindings = clause?.namedBindings
      if (bindings && ts.isNamespaceImport(bindings)) names.push({ name: '*', typeOnly: clauseTypeOnly })
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          names.push({
            name: (element.propertyName ?? element.name).text,
            typeOnly: clauseTypeOnly || element.isTypeOnly,
          })
        }
      }
      // `import './x.ts'` runs the module: a value import of nothing in particular.
      if (!clause) names.push({ name: '*', typeOnly: false })
      edges.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: names.every((entry) => entry.typeOnly),
        names,
        line: lineOf(node),
      })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const names: ImportEdge['names'] = []
      const clause = node.exportClause
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          names.push({
            name: (element.propertyName ?? element.name).text,
            typeOnly: node.isTypeOnly || element.isTypeOnly,
          })
        }
      } else names.push({ name: '*', typeOnly: node.isTypeOnly })
      edges.push({
        specifier: node.moduleSpecifier.text,
        typeOnly: names.every((entry) => entry.typeOnly),
        names,
        line: lineOf(node),
      })
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      edges.push({
        specifier: node.moduleReference.expression.text,
        typeOnly: node.isTypeOnly,
        names: [{ name: '*', typeOnly: node.isTypeOnly }],
        line: lineOf(node),
      })
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      edges.push({
        specifier: node.arguments[0].text,
        typeOnly: false,
        names: [{ name: '*', typeOnly: false }],
        line: lineOf(node),
      })
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      edges.push({
        specifier: node.argument.literal.text,
        typeOnly: true,
        names: [{ name: '*', typeOnly: true }],
        line: lineOf(node),
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return edges
}

/** The non-test TypeScript files under `folder` of `root`, relative to `root`, sorted. */
async function sourceFiles(root: string, folder: string): Promise<string[]> {
  const files: string[] = []
  for await (const file of glob(`${folder}/**/*.ts`, { cwd: root })) {
    if (!file.endsWith('.test.ts')) files.push(file.split('\\').join('/'))
  }
  return files.sort()
}

/** The file a relative specifier names, relative to `root`; undefined for packages and built-ins. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const target = resolve(root, dirname(from), specifier)
  const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')]
  const found = candidates.find((candidate) => candidate.endsWith('.ts') && existsSync(candidate))
  return found === undefined ? undefined : relative(root, found).split('\\').join('/')
}

/** file -> the files it imports (any kind of import), over the non-test files of `folder`. */
async function importGraph(root: string, folder: string): Promise<Map<string, Set<string>>> {
  const graph = new Map<string, Set<string>>()
  for (const file of await sourceFiles(root, folder)) {
    const targets = new Set<string>()
    for (const edge of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      const target = resolveSpecifier(root, file, edge.specifier)
      if (target !== undefined && !target.endsWith('.test.ts')) targets.add(target)
    }
    graph.set(file, targets)
  }
  return graph
}

/**
 * The graph's cycles, one per strongly connected component (Tarjan's algorithm): its files, sorted, and one
 * path around it (`a -> b -> a`) to show where it closes.
 */
function cyclesOf(graph: Map<string, Set<string>>): { files: string[]; path: string }[] {
  const index = new Map<string, number>()
  const lowLink = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  let next = 0
  const connect = (file: string) => {
    index.set(file, next)
    lowLink.set(file, next)
    next += 1
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target)
        lowLink.set(file, Math.min(lowLink.get(file) as number, lowLink.get(target) as number))
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file) as number, index.get(target) as number))
      }
    }
    if (lowLink.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || graph.get(file)?.has(file)) components.push(component.sort())
  }
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file)
  return components.map((files) => ({ files, path: pathAround(graph, files) }))
}

/** The shortest way from the component's first file back to itself, staying inside the component. */
function pathAround(graph: Map<string, Set<string>>, files: string[]): string {
  const inside = new Set(files)
  const start = files[0] as string
  const cameFrom = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0 && !cameFrom.has(start)) {
    const file = queue.shift() as string
    for (const target of [...(graph.get(file) ?? [])].sort()) {
      if (!inside.has(target) || cameFrom.has(target)) continue
      cameFrom.set(target, file)
      queue.push(target)
    }
  }
  const between: string[] = []
  for (let file = cameFrom.get(start) as string; file !== start; file = cameFrom.get(file) as string) {
    between.unshift(file)
  }
  return [start, ...between, start].join(' -> ')
}

/** The cycles of `folder` under `root` that are not known and owned (KNOWN_CYCLES). */
async function unexpectedCycles(root: string, folder: string): Promise<string[]> {
  const known = new Set(KNOWN_CYCLES.map((files) => [...files].sort().join(' ')))
  return cyclesOf(await importGraph(root, folder))
    .filter((cycle) => !known.has(cycle.files.join(' ')))
    .map((cycle) => cycle.path)
}

/** Folders whose files may take only the types of adapters/ (biome.jsonc's services/ and jobs/ overrides). */
const TYPES_ONLY_FROM_ADAPTERS = /^src\/(services|jobs)\//

/** Imports from adapters/ in services/ and jobs/ that bring a value: `file:line name`. */
async function adapterValueImports(root: string): Promise<string[]> {
  const found: string[] = []
  for (const file of await sourceFiles(root, 'src')) {
    if (!TYPES_ONLY_FROM_ADAPTERS.test(file)) continue
    for (const edge of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      const target =
        resolveSpecifier(root, file, edge.specifier) ?? relative(root, resolve(root, dirname(file), edge.specifier))
      if (!target.startsWith('src/adapters/')) continue
      for (const entry of edge.names) if (!entry.typeOnly) found.push(`${file}:${edge.line} ${entry.name}`)
    }
  }
  return found
}

/** A scratch directory holding `files` (path -> content), removed when `use` is done. */
async function withScratch<T>(files: Record<string, string>, use: (root: string) => Promise<T>): Promise<T> {
  const root = mkdtempSync(join(tmpdir(), 'printroute-imports-'))
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true })
      writeFileSync(join(root, path), content)
    }
    return await use(root)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

test('src/ has no import cycle, type-only imports included', async () => {
  const graph = await importGraph(ROOT, 'src')
  assert.ok(graph.size > 100, `the files of src/ are read (${graph.size})`)
  assert.ok(
    [...graph.values()].reduce((sum, targets) => sum + targets.size, 0) > 500,
    'their relative imports are resolved',
  )
  assert.deepEqual(await unexpectedCycles(ROOT, 'src'), [], 'import cycles in src/ (each: one path around it)')
})

test('each entry of the known cycles is still a cycle of src/ (remove it once broken)', async () => {
  const cycles = new Set(cyclesOf(await importGraph(ROOT, 'src')).map((cycle) => cycle.files.join(' ')))
  assert.deepEqual(
    KNOWN_CYCLES.map((files) => [...files].sort().join(' ')).filter((files) => !cycles.has(files)),
    [],
  )
})

test('a cycle is found and named, whether closed by a value, a type-only or a re-exporting import', async () => {
  const found = await withScratch(
    {
      // Closed by `import type` alone: the case Biome's noImportCycles lets through by default.
      'src/domain/a.ts': "import type { B } from './b.ts'\nexport interface A { b: B }\n",
      'src/domain/b.ts': "import type { A } from './a.ts'\nexport interface B { a?: A }\n",
      // Three files, one edge of each kind.
      'src/services/x.service.ts': "import { y } from './y.service.ts'\nexport const x = () => y()\n",
      'src/services/y.service.ts': "export { z as y } from './z.service.ts'\n",
      'src/services/z.service.ts': "export type X = typeof import('./x.service.ts')\nexport const z = () => 1\n",
      // A type-only import that closes nothing.
      'src/services/w.service.ts': "import type { X } from './z.service.ts'\nexport type W = X\n",
      'src/domain/a.test.ts': "import { x } from '../services/x.service.ts'\n",
    },
    (root) => unexpectedCycles(root, 'src'),
  )
  assert.deepEqual(found, [
    'src/domain/a.ts -> src/domain/b.ts -> src/domain/a.ts',
    'src/services/x.service.ts -> src/services/y.service.ts -> src/services/z.service.ts -> src/services/x.service.ts',
  ])
})

test('services/ and jobs/ import only types from adapters/', async () => {
  assert.deepEqual(await adapterValueImports(ROOT), [], 'values imported from adapters/ (file:line name)')
})

test('a value imported from adapters/ by a service is found, whatever its case', async () => {
  const found = await withScratch(
    {
      'src/adapters/database.ts':
        'export interface Database {}\nexport class DatabaseUnavailableError extends Error {}\nexport const LIMIT = 1\n',
      'src/services/a.service.ts': [
        "import type { Database } from '../adapters/database.ts'",
        "import { type Database as D, DatabaseUnavailableError } from '../adapters/database.ts'",
        "import { LIMIT } from '../adapters/database.ts'",
        "export type { Database as E } from '../adapters/database.ts'",
        "export { DatabaseUnavailableError as F } from '../adapters/database.ts'",
        '',
      ].join('\n'),
      'src/services/pipeline/b.ts': "import * as database from '../../adapters/database.ts'\n",
      'src/jobs/c.ts': "import Default from '../adapters/job-queue.ts'\n",
      // Other folders are held by biome.jsonc's lists alone.
      'src/repositories/d.repository.ts': "import { DatabaseUnavailableError } from '../adapters/database.ts'\n",
    },
    adapterValueImports,
  )
  assert.deepEqual(found, [
    'src/jobs/c.ts:1 default',
    'src/services/a.service.ts:2 DatabaseUnavailableError',
    'src/services/a.service.ts:3 LIMIT',
    'src/services/a.service.ts:5 DatabaseUnavailableError',
    'src/services/pipeline/b.ts:1 *',
  ])
})

/** biome.jsonc as data (TypeScript's reader of tsconfig files takes its comments). */
function biomeConfig(): { overrides: { includes: string[]; linter?: unknown }[] } {
  const { config, error } = ts.parseConfigFileTextToJson('biome.jsonc', readFileSync(join(ROOT, 'biome.jsonc'), 'utf8'))
  assert.equal(error, undefined, 'biome.jsonc parses')
  return config
}

/** The names a module exports as values (classes, functions, constants, enumerations), types left out. */
function exportedValues(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)
  const names: string[] = []
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  for (const statement of source.statements) {
    if (!exported(statement)) {
      if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.exportClause) {
        if (ts.isNamedExports(statement.exportClause)) {
          for (const element of statement.exportClause.elements) if (!element.isTypeOnly) names.push(element.name.text)
        }
      }
      continue
    }
    if (ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isEnumDeclaration(statement)) {
      if (statement.name) names.push(statement.name.text)
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text)
      }
    }
  }
  return names
}

test("biome.jsonc's services/ and jobs/ lists refuse by name every value the adapters they may name export", () => {
  const lists = biomeConfig().overrides.flatMap((override) => {
    const folder = override.includes[0] as string
    if (!/^src\/(services|jobs)\//.test(folder)) return []
    const patterns = (override.linter as any).rules.style.noRestrictedImports.options.patterns as {
      group: string[]
      importNamePattern?: string
    }[]
    const names = patterns.find((pattern) => pattern.importNamePattern !== undefined)?.importNamePattern
    assert.ok(names, `${folder}: a pattern refuses values from adapters/ by name`)
    const adapters = patterns
      .flatMap((pattern) => pattern.group)
      .filter((entry) => /^!(\.\.\/)+adapters\//.test(entry))
      .map((entry) => `src/adapters/${entry.split('/').at(-1)}`)
    return [{ folder, refused: new RegExp(`^(?:${names})$`), adapters }]
  })
  assert.equal(lists.length, 3, 'services/, its subfolders and jobs/ have their lists')
  const passing = lists.flatMap(({ folder, refused, adapters }) =>
    adapters.flatMap((adapter) =>
      exportedValues(adapter)
        .filter((name) => !refused.test(name))
        .map((name) => `${folder}: ${adapter} ${name}`),
    ),
  )
  assert.ok(exportedValues('src/adapters/clock.ts').includes('ManualClock'), 'exported classes are found')
  assert.deepEqual(passing, [], 'values the importNamePattern lets through (add them to it)')
})
