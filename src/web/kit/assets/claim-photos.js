// Photos for a claim form (docs/dashboard.md#claims, docs/labs.md#claims-in-the-portal): each photo chosen is uploaded
// at once, as the raw body, to the form's `data-upload-url` (the dashboard: POST /v4.0/claims/evidence; the lab
// portal: its own evidence route) with the session (its cookie and the form's `data-csrf` token), and the form names
// the evidence ids the server answered. A form may hold several photo fields (`[data-photo-field]`: a file input, a
// hidden input for the ids, a status line), one per claimed item. Without this script the form still works for
// answers that need no photos, and says so (its <noscript>).
const MAX_PHOTOS = 3

for (const form of document.querySelectorAll('form[data-claim-photos]')) {
  const submit = form.querySelector('button[type="submit"]')
  const uploadUrl = form.dataset.uploadUrl || '/v4.0/claims/evidence'
  let uploading = 0
  for (const field of form.querySelectorAll('[data-photo-field]')) {
    const input = field.querySelector('input[type="file"]')
    const ids = field.querySelector('input[type="hidden"]')
    const status = field.querySelector('[data-photo-status]')
    input.addEventListener('change', async () => {
      const files = [...input.files].slice(0, MAX_PHOTOS)
      uploading += 1
      submit.disabled = true
      ids.value = ''
      status.textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`
      const uploaded = []
      try {
        for (const file of files) {
          const answer = await fetch(uploadUrl, {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'content-type': file.type, 'x-csrf-token': form.dataset.csrf },
            body: file,
          })
          const body = await answer.json().catch(() => ({}))
          if (!answer.ok) {
            status.textContent = `${file.name}: ${body.statusText ?? `refused (${answer.status})`}`
            return
          }
          uploaded.push(body.evidence.id)
        }
        ids.value = uploaded.join(',')
        status.textContent = `${uploaded.length} photo${uploaded.length === 1 ? '' : 's'} ready: ${uploaded.join(', ')}`
      } catch {
        status.textContent = 'The photos could not be sent: check the connection and choose them again.'
      } finally {
        uploading -= 1
        if (uploading === 0) submit.disabled = false
      }
    })
  }
}
