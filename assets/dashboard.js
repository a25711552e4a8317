// The dashboard's only script: a "Copy" button next to a new token. The page works without it
// (the token is in a read-only field to select and copy by hand).
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    const field = document.getElementById(button.getAttribute('data-copy'));
    const status = document.querySelector('[data-copy-status]');
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        if (status) status.textContent = button.getAttribute('data-copied') || '';
      } catch {
        field.select();
        if (status) status.textContent = button.getAttribute('data-select') || '';
      }
    });
  }
});
