// No function in src/ (tests aside) has an own body over 150 lines (docs/architecture.md, "Decisions"). A
// function's own body is the lines of its body minus those of the functions, methods and classes it declares by
// name inside it (each measured on its own); callbacks written in place (a route's handler, a `.map(...)`) and
// arrows kept in a variable count towards the function that holds them. Read with TypeScript's own parser;
// scratch sources show the measure can fail.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { glob } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import ts from 'typescript'
import { tier } from '../support/tiers.ts'

tier('pure')

const ROOT = join(import.meta.dirname, '..', '..')
const LIMIT = 150

interface LongFunction {
  name: string
  line: number
  ownLines: number
}

/**
 * A function or class declared by name (`function f`, `class C`, a method or accessor): measured on its own, not
 * towards the function that declares it. An arrow or function expression kept in a variable still counts towards
 * its container, so moving a block into `const f = () => {...}` does not shorten anything.
 */
function isNamedDeclaration(node: ts.Node): boolean {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  )
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source)
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source)
  return '(anonymous)'
}

/** Every function-like node of `text` whose own body is over `limit` lines. */
function longFunctions(fileName: string, text: string, limit = LIMIT): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line
  const span = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1
  const found: LongFunction[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration
      const body = fn.body as ts.Node
      let ownLines = span(body)
      // Subtract the outermost named declarations inside the body; deeper ones are inside those.
      const subtractNamed = (inner: ts.Node) => {
        if (isNamedDeclaration(inner)) ownLines -= span(inner)
        else ts.forEachChild(inner, subtractNamed)
      }
      ts.forEachChild(body, subtractNamed)
      if (ownLines > limit) {
        found.push({ name: functionName(fn, source), line: lineOf(fn.getStart(source)) + 1, ownLines })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

test('no function in src/ has an own body over 150 lines', async () => {
  const offenders: string[] = []
  for await (const path of glob('src/**/*.ts', { cwd: ROOT })) {
    if (path.endsWith('.test.ts')) continue
    const text = readFileSync(join(ROOT, path), 'utf8')
    for (const fn of longFunctions(path, text)) {
      offenders.push(`${relative('.', path)}:${fn.line} ${fn.name} (${fn.ownLines} lines)`)
    }
  }
  assert.deepEqual(offenders.sort(), [], `functions over ${LIMIT} lines of their own:\n${offenders.join('\n')}`)
})

test('the measure finds a long function and leaves out the named functions it declares', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `  call(${i})`).join('\n')
  const long = `function outer() {\n${lines(4)}\n  items.map(() => {\n${lines(3)}\n  })\n}\n`
  assert.deepEqual(
    longFunctions('long.ts', long, 8).map((fn) => fn.name),
    ['outer'],
  )
  const kept = `function outer() {\n${lines(4)}\n  const inner = () => {\n${lines(3)}\n  }\n}\n`
  assert.deepEqual(
    longFunctions('kept.ts', kept, 8).map((fn) => fn.name),
    ['outer'],
  )
  const split = `function outer() {\n${lines(4)}\n  function inner() {\n${lines(6)}\n  }\n}\n`
  assert.deepEqual(longFunctions('split.ts', split, 8), [])
  assert.deepEqual(
    longFunctions('split.ts', split, 6).map((fn) => fn.name),
    ['inner'],
  )
})
