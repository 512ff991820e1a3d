// The sign-in form: an API key in, a session cookie out (dashboard.plugin.ts does the exchange).
import type { Environment } from '../../domain/environment.ts'
import { type Html, html } from '../kit/html.ts'
import { DASHBOARD_PATH, environmentName, signInCard } from '../kit/layout.ts'

export function renderSignIn(input: { environment: Environment; next: string; otherDashboardUrl: string }): Html {
  const name = environmentName(input.environment)
  return signInCard({
    heading: `Sign in to the ${name} dashboard`,
    intro: html`Use one of your account's <strong>${name}</strong> API keys (<code>pr_${input.environment}_…</code>).
The key is exchanged for a session: the browser keeps only the session, never the key.`,
    action: `${DASHBOARD_PATH}/sign-in`,
    next: input.next,
    field: { id: 'api-key', name: 'apiKey', label: 'API key' },
    help: html`No key yet? <code>npm start</code> gave a Sandbox and a Live key when it created the demo
account (printed at a terminal, otherwise in <code>data/first-start-keys.txt</code>);
<code>printroute keys create --account acc_1 --env ${input.environment}</code> makes another.
${input.environment === 'live' ? html`` : html`The <a href="${input.otherDashboardUrl}">Live dashboard</a> takes Live keys.`}`,
  })
}
