// A real headless Chromium (Debian's `chromium` package, driven by playwright-core) for the dashboard's
// browser tests, with the accessibility check (axe-core) and the screenshots docs/dashboard.md shows.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core'

/** Where Chromium is; CHROMIUM_PATH overrides (.ci/run installs Debian's package when it is missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`)
  }
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] })
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

const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'docs', 'dashboard')

/**
 * Saves a screenshot for docs/dashboard.md when PRINTROUTE_SCREENSHOTS=1 (`npm run docs:screenshots`), so
 * the pictures in the docs are the pages as the tests saw them; other runs leave the repository untouched.
 * A page is taken whole; a locator, just that part of the page.
 */
export async function screenshotForDocs(target: Page | Locator, name: string): Promise<void> {
  if (process.env.PRINTROUTE_SCREENSHOTS !== '1') return
  const path = join(SCREENSHOT_DIR, `${name}.png`)
  if ('goto' in target) await target.screenshot({ path, fullPage: true })
  else await target.screenshot({ path })
}
