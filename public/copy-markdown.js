// The "Copy Markdown" button of the day and week pages: copies the report's Markdown, which the page
// carries as text in <pre data-markdown>. An external file, so the Content-Security-Policy stays
// `script-src 'self'`; without script the Markdown is still there to select.
for (const button of document.querySelectorAll('button[data-copy-markdown]')) {
  const source = document.getElementById(button.getAttribute('data-copy-markdown'));
  const status = button.parentElement.querySelector('[data-copy-status]');
  button.hidden = false;
  button.addEventListener('click', async () => {
    const text = source ? source.textContent : '';
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      // file:// pages and older browsers: select the text and copy it the old way.
      const details = source.closest('details');
      if (details) details.open = true;
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      copied = document.execCommand('copy');
    }
    if (status) status.textContent = copied ? 'Copied.' : 'Selected: press Ctrl+C (⌘C) to copy.';
  });
}
