// A real headless Chromium (Debian's `chromium` package, driven by playwright-core) for the dashboard's
// browser tests, with the accessibility check (axe-core) and the screenshots docs/dashboard.md shows.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'

/** Where Chromium is; CHROMIUM_PATH overrides (.ci/run installs Debian's package when it is missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

// Chromium features turned off for the tests. Headless Chromium still builds the address bar's suggestion
// popups, two WebUI renderer processes for every browser context: nothing here uses them, and they were about a
// third of a new context's CPU. Chromium keeps only the last --disable-features switch and Playwright passes a
// list of its own, so ours repeats Playwright's (playwright-core 1.65, pinned by the lockfile), and launchBrowser
// checks the command line Chromium was started with: an upgrade that changes Playwright's list fails there.
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
]
const DISABLED_FEATURES = [
  ...PLAYWRIGHT_DISABLED_FEATURES,
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
]

/** Command lines of the Chromiums this process started (their parent is this process), read from /proc. */
function startedChromiumCommandLines(): string[] {
  if (!existsSync('/proc/self/stat')) return []
  const commandLines: string[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent !== process.pid) continue
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ')
      if (commandLine.includes('--remote-debugging-pipe')) commandLines.push(commandLine)
    } catch {
      // The process ended while being read.
    }
  }
  return commandLines
}

/** Features an earlier --disable-features switch names that the last one (the one Chromium keeps) does not. */
function droppedDisabledFeatures(commandLine: string): string[] {
  const lists = [...commandLine.matchAll(/--disable-features=(\S*)/g)].map((match) => (match[1] ?? '').split(','))
  const kept = new Set(lists.at(-1))
  return lists.flat().filter((feature) => !kept.has(feature))
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ['--no-sandbox', `--disable-features=${DISABLED_FEATURES.join(',')}`],
  })
  const dropped = startedChromiumCommandLines().flatMap(droppedDisabledFeatures)
  if (dropped.length > 0) {
    await browser.close()
    throw new Error(
      `Chromium would run with Playwright's disabled features ${[...new Set(dropped)].join(', ')} turned back on: add them to PLAYWRIGHT_DISABLED_FEATURES in test/support/browser.ts`,
    )
  }
  return browser
}

/** How long the process's Chromium stays open after its last user, for a next test file to take it. */
const SHARED_BROWSER_IDLE_MS = 1_000

let sharedBrowser: { browser: Promise<Browser>; users: number; closing?: NodeJS.Timeout } | undefined

/**
 * The process's Chromium, for a test file (or a part of one) until `release`. A shard runs several test files
 * one after another in one process (test/run-suite.ts): the first launches Chromium, the next ones take it over
 * instead of launching their own. When the last user releases it, its browser contexts are closed at once and
 * Chromium a moment later, unless another file takes it meanwhile; nothing is left running at the process's end.
 */
export async function acquireBrowser(): Promise<{ browser: Browser; release(): Promise<void> }> {
  if (sharedBrowser === undefined) {
    const launched = { browser: launchBrowser(), users: 0 }
    launched.browser.catch(() => {
      if (sharedBrowser === launched) sharedBrowser = undefined
    })
    sharedBrowser = launched
  }
  const held = sharedBrowser
  clearTimeout(held.closing)
  held.users += 1
  const browser = await held.browser
  let released = false
  return {
    browser,
    async release() {
      if (released) return
      released = true
      held.users -= 1
      if (held.users > 0) return
      await Promise.all(browser.contexts().map((context) => context.close()))
      held.closing = setTimeout(() => {
        if (sharedBrowser === held) sharedBrowser = undefined
        browser.close().catch(() => {})
      }, SHARED_BROWSER_IDLE_MS)
    },
  }
}

export type Viewport = 'desktop' | 'phone'
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const

export async function newContext(browser: Browser, viewport: Viewport = 'desktop'): Promise<BrowserContext> {
  return browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'en-GB', timezoneId: 'UTC' })
}

/** Sizes an open page as a context of that viewport would be (the layout is the viewport's, as on a phone). */
export async function setViewport(page: Page, viewport: Viewport): Promise<void> {
  await page.setViewportSize(VIEWPORTS[viewport])
}

/** Signs in through the form, as a person does, and waits for the orders page. */
export async function signIn(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`)
  await page.getByLabel('API key').fill(apiKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(/\/dashboard\/orders/)
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/**
 * Runs axe-core in the page (WCAG 2.1 A and AA rules) and fails on serious or critical violations, listing
 * each with the elements concerned. Evaluated through the DevTools protocol, so the page's CSP stays on.
 */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  const violations = (await page.evaluate(`${axeSource}
    ;axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })
      .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`)) as AxeViolation[]
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
  assert.deepEqual(
    serious.map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    ),
    [],
    `accessibility violations on ${label}`,
  )
}

/** Every <img> on the page has loaded real pixels (none broken, none still loading). */
export async function assertImagesLoaded(page: Page): Promise<number> {
  // Page code as strings: it runs in the browser, and the project compiles without the DOM's types.
  // Polled from here: page.waitForFunction would evaluate its string inside the page, which the CSP forbids.
  // A lazy image loads when scrolled to: asked to load now, as a reader scrolling down would get it.
  await page.evaluate("for (const image of document.images) if (image.loading === 'lazy') image.loading = 'eager'")
  const deadline = Date.now() + 10_000
  while (!(await page.evaluate('[...document.images].every((image) => image.complete)'))) {
    if (Date.now() > deadline) throw new Error('images still loading after 10 s')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const broken = (await page.evaluate(
    '[...document.images].filter((image) => image.naturalWidth === 0).map((image) => image.currentSrc || image.src)',
  )) as string[]
  assert.deepEqual(broken, [], 'broken images')
  return (await page.evaluate('document.images.length')) as number
}

const DOCS_DIR = join(import.meta.dirname, '..', '..', 'docs')

/**
 * Saves a screenshot for the docs (in docs/dashboard/, or the `folder` of docs/ named) when PRINTROUTE_SCREENSHOTS=1
 * (`npm run docs:screenshots`), so the pictures in the docs are the pages as the tests saw them; other runs leave
 * the repository untouched.
 * A page is taken whole; a locator, just that part of the page.
 */
export async function screenshotForDocs(target: Page | Locator, name: string, folder = 'dashboard'): Promise<void> {
  if (process.env.PRINTROUTE_SCREENSHOTS !== '1') return
  const path = join(DOCS_DIR, folder, `${name}.png`)
  if ('goto' in target) await target.screenshot({ path, fullPage: true })
  else await target.screenshot({ path })
}

/**
 * Each element `cells` matches is shown (not display:none) and lies within the viewport's width, so a person sees it
 * without scrolling sideways, neither the page nor the table's frame; `label` names them in the failure.
 */
export async function assertWithinViewport(cells: Locator, label: string): Promise<void> {
  const width = cells.page().viewportSize()?.width ?? 0
  const count = await cells.count()
  assert.ok(count > 0, `no ${label} on the page`)
  for (let index = 0; index < count; index++) {
    const box = await cells.nth(index).boundingBox()
    assert.ok(box, `${label} #${index + 1} is not shown`)
    assert.ok(
      box.x >= 0 && box.x + box.width <= width + 0.5,
      `${label} #${index + 1} spans ${box.x}-${box.x + box.width} px of ${width}`,
    )
    // Inside the table's frame too: a frame that scrolls sideways would cut it off where the screen does not.
    const cut = await cells.nth(index).evaluate((element: any) => {
      const frame = element.closest('.table-wrap')
      if (!frame) return 0
      const inner = element.getBoundingClientRect()
      const outer = frame.getBoundingClientRect()
      return Math.max(outer.left - inner.left, inner.right - outer.right)
    })
    assert.ok(cut <= 0.5, `${label} #${index + 1} reaches ${cut} px beyond its table's frame`)
  }
}
