// The dashboard's Import orders form (docs/dashboard.md#importing-orders): the chosen CSV file is sent as it is to
// POST /v4.0/orders/imports with the session (its cookie and CSRF token), then the browser goes to the import's
// page, which shows its progress. A refusal (another delimiter, an unknown column) is shown beside the form.
for (const form of document.querySelectorAll('form[data-order-import]')) {
  const input = form.querySelector('input[type="file"]')
  const status = form.querySelector('[data-import-status]')
  const submit = form.querySelector('button[type="submit"]')
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const file = input.files[0]
    if (!file) {
      status.textContent = 'Choose a CSV file first.'
      return
    }
    submit.disabled = true
    status.textContent = `Uploading ${file.name}…`
    // Drafts: every order waits for its confirm (docs/imports.md#approval).
    const drafts = form.querySelector('[data-import-drafts]')?.checked ? '&approval=manual' : ''
    const answer = await fetch(`/v4.0/orders/imports?fileName=${encodeURIComponent(file.name)}${drafts}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'text/csv', 'x-csrf-token': form.dataset.csrf },
      body: file,
    }).catch(() => null)
    const body = answer ? await answer.json().catch(() => ({})) : {}
    if (!answer?.ok) {
      const failures = Object.entries(body.failures ?? {}).map(
        ([field, list]) => `${field}: ${list.map((failure) => failure.code).join(', ')}`,
      )
      status.textContent = [body.statusText ?? 'The file was not sent.', ...failures].join(' · ')
      submit.disabled = false
      return
    }
    window.location.assign(`${form.dataset.pages}/${body.import.id}`)
  })
}
