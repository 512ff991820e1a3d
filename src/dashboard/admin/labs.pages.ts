// The console's labs: every catalogue lab with its health (its push endpoint, its last report), whether it is
// paused (with the buttons to pause and resume it), its jobs in flight and those overdue against their ship-by
// date, its rejection rate and its median time from submission to dispatch. Live work only: the Sandbox's labs are
// simulated.
import type { FastifyInstance } from 'fastify'
import type { AuditActor } from '../../domain/audit.ts'
import { formatTime } from '../format.ts'
import { type Html, html } from '../html.ts'
import { csrfField } from '../layout.ts'
import { ADMIN_PATH, type AdminConsole } from './admin-context.ts'

/** The window the rejection rate is counted over (submissions in the last so many days). */
export const LAB_REJECTION_WINDOW_DAYS = 30

/** The health of a lab's push endpoint (docs/pipeline.md#jobs-pushed-to-labs), from its deliveries. */
export interface AdminLabPushHealth {
  url: string
  /** ISO instant of the last delivered push; null when none was. */
  lastDeliveredAt: string | null
  /** ISO instant of the first failed attempt since the last delivered one; null while it is not failing. */
  failingSince: string | null
  /** The newest failed attempt's error while failing; null otherwise. */
  lastError: string | null
}

export interface AdminLabRow {
  code: string
  name: string
  countryCode: string
  paused: boolean
  /** null: the lab has no push endpoint (it polls the lab API). */
  push: AdminLabPushHealth | null
  /** ISO instant of the lab's last report on a Live job (acknowledged, in production, shipped, rejected); null if none. */
  lastReportAt: string | null
  /** Live jobs given to the lab and not yet shipped, rejected or cancelled. */
  jobsInFlight: number
  /** Jobs in flight past their ship-by date (in the lab's calendar); those without a ship-by date are not counted. */
  overdueJobs: number
  /** Live jobs submitted in the last LAB_REJECTION_WINDOW_DAYS days, and how many of them the lab rejected. */
  rejections: { submitted: number; rejected: number }
  /** Median seconds from submission to dispatch of the jobs dispatched in the last 7 and 30 days; null without any. */
  medianDispatchSeconds: { last7Days: number | null; last30Days: number | null }
}

/** What the labs page needs, filled by app.ts from the services (services/admin-views.service.ts). */
export interface AdminLabs {
  listLabs(): Promise<AdminLabRow[]>
  /** Pauses or resumes a catalogue lab; whether it was paused before; null for a lab the catalogue does not have. */
  setPaused(labCode: string, paused: boolean, actor: AuditActor): Promise<{ wasPaused: boolean } | null>
}

/** A duration in words a person reads at a glance: minutes, hours or days. */
export function durationWords(seconds: number): string {
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`
  return `${(seconds / 86400).toFixed(1)} days`
}

function rejectionRate(rejections: AdminLabRow['rejections']): Html {
  if (rejections.submitted === 0) return html`<span class="muted">no jobs</span>`
  const percent = Math.round((rejections.rejected / rejections.submitted) * 1000) / 10
  return html`${String(percent)}% <span class="muted small">(${String(rejections.rejected)} of ${String(rejections.submitted)})</span>`
}

function median(seconds: number | null): Html {
  return seconds === null ? html`<span class="muted">—</span>` : html`${durationWords(seconds)}`
}

function pushHealth(push: AdminLabPushHealth | null): Html {
  if (!push) return html`<span class="muted">no push endpoint (polls the lab API)</span>`
  const state = push.failingSince
    ? html`<span class="badge badge-error">Failing</span> since ${formatTime(push.failingSince)}${push.lastError ? html`<div class="muted small">${push.lastError}</div>` : ''}`
    : push.lastDeliveredAt
      ? html`<span class="badge badge-ok">OK</span> <span class="muted small">last delivered ${formatTime(push.lastDeliveredAt)}</span>`
      : html`<span class="muted">nothing pushed yet</span>`
  return html`<div class="small"><code>${push.url}</code></div>${state}`
}

function pauseForm(lab: AdminLabRow, csrfToken: string): Html {
  const action = lab.paused ? 'resume' : 'pause'
  const label = lab.paused ? 'Resume' : 'Pause'
  return html`<form method="post" action="${ADMIN_PATH}/labs/${lab.code}/${action}">${csrfField(csrfToken)}<button type="submit" class="${lab.paused ? 'button' : 'button-quiet'}" aria-label="${label} ${lab.code}">${label}</button></form>`
}

function labsTable(labs: AdminLabRow[], csrfToken: string): Html {
  if (labs.length === 0) return html`<p class="muted">The catalogue has no labs.</p>`
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Labs of the catalogue"><table class="table admin-labs">
<caption class="visually-hidden">Labs of the catalogue</caption>
<thead><tr><th scope="col">Lab</th><th scope="col">Status</th><th scope="col">Push endpoint</th><th scope="col">Last report</th><th scope="col" class="number">Jobs in flight</th><th scope="col" class="number">Overdue</th><th scope="col">Rejected (${String(LAB_REJECTION_WINDOW_DAYS)} days)</th><th scope="col">Median to dispatch, 7 days</th><th scope="col">Median to dispatch, 30 days</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${labs.map(
    (
      lab,
    ) => html`<tr data-lab="${lab.code}"><th scope="row"><code>${lab.code}</code> <span class="muted small">${lab.name}, ${lab.countryCode}</span></th>
<td>${lab.paused ? html`<span class="badge badge-pending">Paused</span>` : html`<span class="badge badge-ok">Taking work</span>`}</td>
<td>${pushHealth(lab.push)}</td>
<td>${lab.lastReportAt ? formatTime(lab.lastReportAt) : html`<span class="muted">none</span>`}</td>
<td class="number" data-jobs-in-flight>${String(lab.jobsInFlight)}</td>
<td class="number" data-overdue>${lab.overdueJobs > 0 ? html`<span class="badge badge-error">${String(lab.overdueJobs)}</span>` : '0'}</td>
<td data-rejections>${rejectionRate(lab.rejections)}</td>
<td data-median-7>${median(lab.medianDispatchSeconds.last7Days)}</td>
<td data-median-30>${median(lab.medianDispatchSeconds.last30Days)}</td>
<td>${pauseForm(lab, csrfToken)}</td></tr>`,
  )}</tbody></table></div>`
}

export function registerLabsPages(pages: FastifyInstance, console: AdminConsole, deps: AdminLabs): void {
  pages.get('/labs', async (request, reply) => {
    const labs = await deps.listLabs()
    return console.sendPage(request, reply, {
      section: 'labs',
      title: 'Labs',
      content: html`<div class="page-head"><h1>Labs</h1></div>
<p class="muted">Every lab of the active catalogue, from its Live work (the Sandbox's labs are simulated). A paused lab gets no new work; its jobs in flight continue.</p>
${labsTable(labs, request.signedInOperator.csrfToken)}`,
    })
  })

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    pages.post<{ Params: { labCode: string } }>(`/labs/:labCode/${action}`, async (request, reply) => {
      const { labCode } = request.params
      const { operator } = request.signedInOperator
      const result = await deps.setPaused(labCode, paused, {
        kind: 'operator',
        operatorId: operator.id,
        name: operator.name,
      })
      if (!result)
        return console.redirect(reply, `${ADMIN_PATH}/labs`, {
          kind: 'error',
          text: `labCode: the catalogue has no lab ${labCode}.`,
        })
      const text =
        result.wasPaused === paused
          ? `Lab ${labCode} was already ${paused ? 'paused' : 'taking work'}: nothing changed.`
          : paused
            ? `Lab ${labCode} is paused: it gets no new work until it is resumed.`
            : `Lab ${labCode} is resumed: it gets new work again.`
      return console.redirect(reply, `${ADMIN_PATH}/labs`, { kind: 'success', text })
    })
  }
}
