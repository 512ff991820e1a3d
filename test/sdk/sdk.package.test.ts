// The SDK as a merchant gets it: `npm pack` (which builds sdk/dist with tsc), the tarball installed offline into a
// fresh project (the package has no dependencies, so no registry is needed), then a plain .mjs importing
// `printroute-client` creates a quote against a live Sandbox server, and a TypeScript file type-checks against
// the packed declarations (and fails where it should).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { promisify } from 'node:util'
import { listenOnLoopback, startTestApp, type TestApp } from '../support/test-app.ts'
import { tier } from '../support/tiers.ts'

tier('http')

const run = promisify(execFile)
const repository = join(import.meta.dirname, '..', '..')
const sdkDir = join(repository, 'sdk')
const tsc = join(repository, 'node_modules', 'typescript', 'bin', 'tsc')
const { version } = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as { version: string }

/** npm with the test's own node first on the PATH (the project's node, which the prepack's tsc runs on). */
function npm(args: string[], cwd: string) {
  const path = `${join(repository, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    env: { ...process.env, PATH: path },
  })
}

describe('the printroute-client package', () => {
  let t: TestApp
  let sandboxUrl: string
  let work: string
  let project: string

  before(async () => {
    t = await startTestApp()
    sandboxUrl = (await listenOnLoopback(t)).sandbox
    work = mkdtempSync(join(tmpdir(), 'printroute-sdk-pack-'))
    project = join(work, 'merchant-app')
  })
  after(async () => {
    await t.close()
    rmSync(work, { recursive: true, force: true })
  })

  test('packs to a tarball with only the built files, installs offline, and quotes from a plain .mjs', async () => {
    const packed = JSON.parse((await npm(['pack', '--json', '--pack-destination', work], sdkDir)).stdout) as {
      filename: string
      files: { path: string }[]
    }[]
    const tarball = packed[0]?.filename
    assert.equal(tarball, `printroute-client-${version}.tgz`)
    const files = packed[0]?.files.map((file) => file.path).sort()
    assert.ok(files?.includes('dist/index.js') && files.includes('dist/index.d.ts'), String(files))
    assert.ok(files?.includes('README.md') && files.includes('package.json'), String(files))
    assert.deepEqual(
      files?.filter(
        (file) => !/^dist\/[\w-]+\.(js|d\.ts)$/.test(file) && !['README.md', 'package.json'].includes(file),
      ),
      [],
      'nothing but dist, the README and package.json',
    )

    rmSync(project, { recursive: true, force: true })
    await run('mkdir', ['-p', project])
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'merchant-app', private: true, type: 'module' }),
    )
    await npm(['install', '--offline', join(work, tarball ?? '')], project)

    writeFileSync(
      join(project, 'quote.mjs'),
      `import { PrintrouteClient, PrintrouteError } from 'printroute-client'
const client = new PrintrouteClient({ apiKey: process.env.PRINTROUTE_API_KEY, baseUrl: process.env.PRINTROUTE_URL })
const answer = await client.quotes.create({
  destinationCountryCode: 'GB',
  items: [{ sku: 'GLOBAL-CAN-10x10', copies: 1, attributes: { wrap: 'ImageWrap' }, assets: [{}] }],
})
let refused
try {
  await client.products.get('NO-SUCH-SKU')
} catch (error) {
  refused = error instanceof PrintrouteError ? error.outcome : String(error)
}
console.log(JSON.stringify({ outcome: answer.outcome, methods: answer.quotes.map((quote) => quote.shipmentMethod), refused }))
`,
    )
    const { stdout } = await run(process.execPath, ['quote.mjs'], {
      cwd: project,
      env: { ...process.env, PRINTROUTE_API_KEY: t.account.sandboxKey, PRINTROUTE_URL: sandboxUrl },
    })
    const result = JSON.parse(stdout)
    assert.equal(result.outcome, 'Created')
    assert.ok(result.methods.includes('Standard'), stdout)
    assert.equal(result.refused, 'EntityNotFound')
  })

  test("the packed declarations type a merchant's TypeScript, and refuse what the API would", async () => {
    // Uses the project installed by the test above (node:test runs a file's tests in order).
    writeFileSync(
      join(project, 'app.ts'),
      `import { PrintrouteClient, PrintrouteError, verifyCallback, type Order, type QuoteResponse } from 'printroute-client'
const client = new PrintrouteClient({ apiKey: 'pr_sandbox_x', baseUrl: 'http://127.0.0.1:8081' })
export async function check(): Promise<string> {
  const quote: QuoteResponse = await client.quotes.create({ destinationCountryCode: 'GB', items: [] })
  const order: Order = await client.orders.get('ord_1')
  const stage: 'InProgress' | 'Complete' | 'Cancelled' = order.status.stage
  for await (const listed of client.orders.iterate({ status: 'inProgress' })) console.log(listed.id)
  const event = await verifyCallback('{}', new Headers(), 'whsec_x')
  const error = new PrintrouteError({ outcome: 'X', statusCode: 400 })
  // @ts-expect-error: a quote needs its destination
  await client.quotes.create({ items: [] })
  // @ts-expect-error: orders have no such field
  console.log(order.noSuchField)
  return quote.outcome + stage + event.data.order.id + error.traceParent
}
`,
    )
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom', 'dom.asynciterable'],
          types: [],
          strict: true,
          noEmit: true,
        },
        files: ['app.ts'],
      }),
    )
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    )
    assert.equal(checked.code, 0, checked.output)
  })
})
