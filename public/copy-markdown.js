// The day and week pages' report as Markdown: the "Copy Markdown" button and "Show the Markdown" read the .md
// file beside the page (the page does not carry the text). An external file, so the Content-Security-Policy
// stays `script-src 'self'`; without script the page links to the .md file.
const markdownFiles = new Map();

function markdownOf(url) {
  let text = markdownFiles.get(url);
  if (!text) {
    text = fetch(url).then((response) => {
      if (!response.ok) throw new Error(`${url}: ${response.status}`);
      return response.text();
    });
    // A failed read is tried again on the next click.
    text.catch(() => markdownFiles.delete(url));
    markdownFiles.set(url, text);
  }
  return text;
}

async function show(details) {
  const pre = details.querySelector('pre[data-markdown]');
  if (!pre || pre.dataset.loaded) return pre;
  try {
    pre.textContent = await markdownOf(details.dataset.markdownFrom);
    pre.dataset.loaded = 'true';
  } catch {
    pre.textContent = 'The Markdown could not be read: open the Markdown file.';
  }
  return pre;
}

async function copy(url) {
  // Safari keeps the click's permission to write only while the write starts in it: the text may come later.
  if (typeof ClipboardItem !== 'undefined' && navigator.clipboard && navigator.clipboard.write) {
    const blob = markdownOf(url).then((text) => new Blob([text], { type: 'text/plain' }));
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': blob })]);
  } else {
    await navigator.clipboard.writeText(await markdownOf(url));
  }
}

for (const details of document.querySelectorAll('details[data-markdown-from]')) {
  details.hidden = false;
  details.addEventListener('toggle', () => {
    if (details.open) void show(details);
  });
}

for (const button of document.querySelectorAll('button[data-copy-markdown]')) {
  const url = button.getAttribute('data-copy-markdown');
  const section = button.closest('.copy-markdown');
  const status = section && section.querySelector('[data-copy-status]');
  const details = section && section.querySelector('details[data-markdown-from]');
  button.hidden = false;
  button.addEventListener('click', async () => {
    let said = 'Copied.';
    try {
      await copy(url);
    } catch {
      // No clipboard access (file:// pages, older browsers): show the text selected, to copy the old way.
      said = 'Selected: press Ctrl+C (⌘C) to copy.';
      const pre = details ? await show(details) : null;
      if (pre && pre.dataset.loaded) {
        details.open = true;
        const range = document.createRange();
        range.selectNodeContents(pre);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        if (document.execCommand('copy')) said = 'Copied.';
      } else {
        said = 'The Markdown could not be read: open the Markdown file.';
      }
    }
    if (status) status.textContent = said;
  });
}
