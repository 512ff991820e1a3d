// The lab portal's Claims pages (docs/labs.md#claims-in-the-portal): the claims merchants made against the lab's
// jobs with their photos, newest first, and a claim's page with the lab's answer form (accept or dispute, with a
// comment). Photos are served to the signed-in lab through the portal (its session, not its key). Only the lab's own
// claims: another lab's is not found.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { MAX_EVIDENCE_BYTES, MAX_EVIDENCE_PER_ITEM } from '../../domain/claims.ts'
import type { LabClaimPhoto, LabClaimsWork, LabClaimView } from '../../domain/lab-claims.ts'
import { MAX_LAB_ANSWER_COMMENT_LENGTH } from '../../domain/lab-claims.ts'
import type { LabQuality } from '../../domain/lab-quality.ts'
import { ServiceError } from '../../domain/outcomes.ts'
import { stateBadge } from '../kit/format.ts'
import { type FormValues, failureWords, formValue } from '../kit/forms.ts'
import { type Html, html } from '../kit/html.ts'
import { csrfField, DASHBOARD_PATH } from '../kit/layout.ts'
import { LAB_PORTAL_PATH, type Portal } from './lab-portal-context.ts'

export const CLAIMS_TITLE = 'Claims'

/** How many claims the list shows a page. */
const CLAIMS_PAGE_SIZE = 25

const claimPath = (claimId: string) => `${LAB_PORTAL_PATH}/claims/${encodeURIComponent(claimId)}`
const photoPath = (evidenceId: string) => `${LAB_PORTAL_PATH}/claims/evidence/${encodeURIComponent(evidenceId)}`

/** What the Claims pages are given: the claims, and the lab's quality rate (absent: not shown). */
export interface PortalClaims {
  claims: LabClaimsWork
  quality?: (labCode: string) => Promise<LabQuality | undefined>
}

function photos(list: readonly LabClaimPhoto[]): Html {
  if (list.length === 0) return html`<span class="muted">no photos</span>`
  return html`<span class="claim-photos">${list.map(
    (photo) =>
      html`<a href="${photo.url}"><img src="${photo.url}" alt="Photo ${photo.id}" width="96" height="72" loading="lazy"></a> `,
  )}</span>`
}

function answerWords(claim: LabClaimView): Html {
  if (!claim.answer) return html`<span class="muted">not answered</span>`
  return html`${claim.answer.answer === 'Accepted' ? 'Accepted' : 'Disputed'}`
}

function qualityNote(quality: LabQuality | undefined): Html {
  if (!quality) return html``
  const rate =
    quality.ratePerThousand === null ? 'no items shipped' : `${quality.ratePerThousand.toFixed(1)} per 1,000 items`
  const threshold = quality.threshold === null ? '' : ` The operator's threshold is ${String(quality.threshold)}.`
  const below = quality.belowThreshold ? ' While above it, you are given no new work.' : ''
  return html`<p class="card" data-quality>Claims upheld against your work over the last 90 days: <strong>${rate}</strong>
(${String(quality.upheldItems)} of ${String(quality.itemsShipped)} items shipped).${threshold}${below}</p>`
}

function claimsTable(claims: readonly LabClaimView[]): Html {
  if (claims.length === 0) return html`<div class="empty card"><p>No claims against your work.</p></div>`
  return html`<div class="table-wrap"><table class="orders lab-jobs lab-claims">
<caption class="visually-hidden">Claims, newest first</caption>
<thead><tr><th scope="col">Claim</th><th scope="col">Jobs</th><th scope="col">Items</th><th scope="col">Photos</th><th scope="col">Status</th><th scope="col">Your answer</th></tr></thead>
<tbody>${claims.map(
    (claim) => html`<tr data-claim="${claim.id}">
<th scope="row"><a href="${claimPath(claim.id)}">${claim.id}</a><div class="muted small">${claim.createdAt.slice(0, 10)}</div></th>
<td data-label="Jobs">${claim.shipmentIds.map((id) => html`<a href="${LAB_PORTAL_PATH}/jobs/${encodeURIComponent(id)}">${id}</a> `)}</td>
<td data-label="Items">${claim.items.map((item) => html`<div><strong>${item.category}</strong> ${item.description}</div>`)}</td>
<td data-label="Photos">${photos(claim.items.flatMap((item) => item.photos))}</td>
<td data-label="Status">${stateBadge(claim.status)}</td>
<td data-label="Your answer">${answerWords(claim)}</td>
</tr>`,
  )}</tbody></table></div>`
}

function answerForm(claim: LabClaimView, csrfToken: string): Html {
  if (claim.answer) {
    return html`<section class="card"><h2>Your answer</h2><p><strong>${claim.answer.answer}</strong>${claim.answer.comment ? html`: ${claim.answer.comment}` : ''}</p>
${photos(claim.answer.photos)}</section>`
  }
  if (claim.status !== 'Pending') {
    return html`<section class="card"><h2>Your answer</h2><p class="muted">The claim is ${claim.status}: it can no longer be answered.</p></section>`
  }
  return html`<section class="card"><h2>Answer</h2>
<p class="muted">Once: accept if the fault is yours, dispute if it is not (say why), with up to
${String(MAX_EVIDENCE_PER_ITEM)} photos of your own.</p>
<form method="post" action="${claimPath(claim.id)}/answer" class="stack claim-answer" data-claim-photos data-upload-url="${LAB_PORTAL_PATH}/claims/evidence" data-csrf="${csrfToken}">${csrfField(csrfToken)}
<fieldset><legend>Your answer</legend>
<label class="option-line"><input type="radio" name="answer" value="accept" required> Accept: the fault is ours</label>
<label class="option-line"><input type="radio" name="answer" value="dispute"> Dispute: the fault is not ours</label></fieldset>
<label for="claim-comment">Comment</label>
<textarea id="claim-comment" name="comment" rows="4" maxlength="${String(MAX_LAB_ANSWER_COMMENT_LENGTH)}"></textarea>
<div class="field" data-photo-field><label for="answer-photos">Photos (JPEG or PNG, up to ${String(MAX_EVIDENCE_PER_ITEM)}, 10 MB each)</label>
<input id="answer-photos" type="file" accept="image/jpeg,image/png" multiple aria-describedby="answer-photos-status">
<input type="hidden" name="evidence" value="">
<p class="muted small" id="answer-photos-status" data-photo-status aria-live="polite"></p>
<noscript><p class="muted small">Photos are sent by the page's script, which is off: the answer can be sent
without them, or with photos uploaded through the lab API (POST /labs/v1/claims/evidence).</p></noscript></div>
<button type="submit">Send the answer</button></form></section>
<script src="${DASHBOARD_PATH}/assets/claim-photos.js" defer></script>`
}

function claimPage(claim: LabClaimView, csrfToken: string): Html {
  return html`<div class="page-head"><h1>Claim ${claim.id}</h1> ${stateBadge(claim.status)}</div>
<p>Order <code>${claim.orderId}</code>, jobs ${claim.shipmentIds.map((id) => html`<a href="${LAB_PORTAL_PATH}/jobs/${encodeURIComponent(id)}">${id}</a> `)}; made ${claim.createdAt.slice(0, 10)}${claim.resolution ? html`; resolved: <strong>${claim.resolution}</strong>` : ''}.</p>
${claim.items.map(
  (
    item,
  ) => html`<section class="card" data-item="${item.itemId}"><h2>${item.category} <span class="muted small">${item.itemId}, job ${item.shipmentId}</span></h2>
<p>${item.description}</p>${photos(item.photos)}</section>`,
)}
${answerForm(claim, csrfToken)}
<p><a href="${LAB_PORTAL_PATH}/claims">All claims</a></p>`
}

/** A refusal in words: its message, then each failing field's reason (`evidence[0]: UnknownEvidence`). */
function refusalText(error: ServiceError): string {
  const fields = Object.entries(error.failures ?? {}).flatMap(([path, failures]) =>
    failures.map((failure) => `${path} ${failureWords(failure)}`),
  )
  return fields.length === 0 ? error.message : `${error.message}: ${fields.join('; ')}`
}

export function registerPortalClaimPages(pages: FastifyInstance, portal: Portal, work: PortalClaims): void {
  const { claims } = work
  const notFound = (request: FastifyRequest, reply: FastifyReply, what: string) =>
    portal.sendPage(request, reply, {
      title: 'Not found',
      status: 404,
      content: html`<h1>Not found</h1><p>You have no claim or photo <code>${what}</code>.</p>
<p><a href="${LAB_PORTAL_PATH}/claims">Claims</a></p>`,
    })

  pages.get<{ Querystring: { before?: string } }>('/claims', async (request, reply) => {
    const { lab } = request.signedInLab
    const before = typeof request.query.before === 'string' ? request.query.before : undefined
    const page = await claims
      .list(lab.labCode, { top: CLAIMS_PAGE_SIZE, ...(before ? { before } : {}) }, photoPath)
      .catch(() => ({ claims: [], hasMore: false, nextBefore: null }))
    const quality = await work.quality?.(lab.labCode)
    return portal.sendPage(request, reply, {
      title: CLAIMS_TITLE,
      content: html`<div class="page-head"><h1>Claims</h1></div>
<p class="muted">Problems merchants reported with work you shipped. The operator decides each; your answer informs it.</p>
${qualityNote(quality)}
${claimsTable(page.claims)}
${page.nextBefore ? html`<p><a href="${LAB_PORTAL_PATH}/claims?before=${encodeURIComponent(page.nextBefore)}">Older claims</a></p>` : ''}`,
    })
  })

  // A photo for the lab's answer, sent by the answer form's script (kit/assets/claim-photos.js) as the raw body with
  // the session and its CSRF token in X-CSRF-Token (the session guard checks it): the lab API's upload, for a lab
  // signed in to the portal rather than calling with its key. Answered in the API's words, for the script to read.
  pages.addContentTypeParser(
    ['image/jpeg', 'image/png'],
    { parseAs: 'buffer', bodyLimit: MAX_EVIDENCE_BYTES },
    (_request, body, done) => done(null, body),
  )
  pages.post('/claims/evidence', { bodyLimit: MAX_EVIDENCE_BYTES }, async (request, reply) => {
    const answer = (status: number, body: object) =>
      reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body))
    const body = request.body
    if (!Buffer.isBuffer(body) || body.length === 0) {
      return answer(415, {
        outcome: 'InvalidContentType',
        statusText: 'Send the photo as the raw body, with Content-Type image/jpeg or image/png',
      })
    }
    try {
      const evidence = await claims.uploadEvidence(request.signedInLab.lab.labCode, body)
      return answer(201, { outcome: 'Created', evidence: { ...evidence, url: photoPath(evidence.id) } })
    } catch (error) {
      if (!(error instanceof ServiceError) || error.statusCode >= 500) throw error
      return answer(error.statusCode, { outcome: error.outcome, statusText: refusalText(error) })
    }
  })

  pages.get<{ Params: { evidenceId: string } }>('/claims/evidence/:evidenceId', async (request, reply) => {
    try {
      const photo = await claims.evidence(request.signedInLab.lab.labCode, request.params.evidenceId)
      return reply.type(photo.contentType).header('cache-control', 'private, max-age=3600').send(photo.data)
    } catch (error) {
      if (error instanceof ServiceError && error.statusCode === 404) {
        return notFound(request, reply, request.params.evidenceId)
      }
      throw error
    }
  })

  pages.get<{ Params: { claimId: string } }>('/claims/:claimId', async (request, reply) => {
    const { lab, csrfToken } = request.signedInLab
    const claim = await claims.get(lab.labCode, request.params.claimId, photoPath).catch(() => undefined)
    if (!claim) return notFound(request, reply, request.params.claimId)
    return portal.sendPage(request, reply, { title: CLAIMS_TITLE, content: claimPage(claim, csrfToken) })
  })

  pages.post<{ Params: { claimId: string }; Body: FormValues }>('/claims/:claimId/answer', async (request, reply) => {
    const { claimId } = request.params
    const answer = formValue(request.body ?? {}, 'answer')
    const comment = formValue(request.body ?? {}, 'comment').trim()
    const evidence = formValue(request.body ?? {}, 'evidence')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '')
    if (answer !== 'accept' && answer !== 'dispute') {
      return portal.redirect(reply, `/claims/${encodeURIComponent(claimId)}`, {
        kind: 'error',
        text: 'Choose an answer: accept or dispute.',
      })
    }
    try {
      await claims.answer(
        request.signedInLab.lab.labCode,
        claimId,
        { answer, comment: comment || null, evidence },
        photoPath,
      )
    } catch (error) {
      if (!(error instanceof ServiceError) || error.statusCode >= 500) throw error
      if (error.statusCode === 404) return notFound(request, reply, claimId)
      return portal.redirect(reply, `/claims/${encodeURIComponent(claimId)}`, {
        kind: 'error',
        text: `The answer was not saved: ${refusalText(error)}.`,
      })
    }
    return portal.redirect(reply, `/claims/${encodeURIComponent(claimId)}`, {
      kind: 'success',
      text: `Answered: ${answer === 'accept' ? 'accepted' : 'disputed'}.`,
    })
  })
}
