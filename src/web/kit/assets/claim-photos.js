// The dashboard's "Report a problem" form (docs/dashboard.md#claims): each photo chosen is uploaded at once to
// POST /v4.0/claims/evidence with the session (its cookie and CSRF token), and the form names the evidence ids
// the API answered. Without this script the form still works for categories that need no photos.
for (const form of document.querySelectorAll('form[data-claim-photos]')) {
  const input = form.querySelector('input[type="file"]')
  const ids = form.querySelector('input[name="evidence"]')
  const status = form.querySelector('[data-photo-status]')
  const submit = form.querySelector('button[type="submit"]')
  input.addEventListener('change', async () => {
    const files = [...input.files].slice(0, 3)
    submit.disabled = true
    status.textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`
    const uploaded = []
    for (const file of files) {
      const answer = await fetch('/v4.0/claims/evidence', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': file.type, 'x-csrf-token': form.dataset.csrf },
        body: file,
      })
      const body = await answer.json().catch(() => ({}))
      if (!answer.ok) {
        status.textContent = `${file.name}: ${body.statusText ?? `refused (${answer.status})`}`
        submit.disabled = false
        return
      }
      uploaded.push(body.evidence.id)
    }
    ids.value = uploaded.join(',')
    status.textContent = `${uploaded.length} photo${uploaded.length === 1 ? '' : 's'} ready: ${uploaded.join(', ')}`
    submit.disabled = false
  })
}
