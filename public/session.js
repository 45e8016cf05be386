// Session pages: j / k move to the next / previous prompt; copy buttons on code blocks. No transcript content
// is ever run: this file is the page's only script (CSP script-src 'self').
(function () {
  'use strict';
  function prompts() {
    return Array.prototype.slice.call(document.querySelectorAll('.thread > .item[data-prompt]'));
  }
  function current(list) {
    var y = window.scrollY + 80;
    var index = -1;
    for (var i = 0; i < list.length; i++) if (list[i].getBoundingClientRect().top + window.scrollY <= y) index = i;
    return index;
  }
  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (event.key !== 'j' && event.key !== 'k') return;
    var list = prompts();
    if (list.length === 0) return;
    var at = current(list);
    var next = event.key === 'j' ? Math.min(list.length - 1, at + 1) : Math.max(0, at - 1);
    if (event.key === 'k' && at >= 0 && list[at].getBoundingClientRect().top < -4) next = at;
    var el = list[next];
    var anchor = el.querySelector('[id^="p"]') || el;
    if (anchor.id) history.replaceState(null, '', '#' + anchor.id);
    el.scrollIntoView({ block: 'start' });
    event.preventDefault();
  });
  function addCopyButtons() {
    var blocks = document.querySelectorAll('[data-copy], .md pre');
    for (var i = 0; i < blocks.length; i++) {
      var block = blocks[i];
      if (block.querySelector(':scope > .copy')) continue;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = 'Copy';
      button.addEventListener('click', function (event) {
        var holder = event.currentTarget.parentElement;
        // A long text is its first lines and the rest under "show all": both, whether open or not.
        var rest = holder.querySelector('.show-all > pre.rest');
        var first = holder.querySelector('pre') || holder;
        var text = rest ? first.textContent + rest.textContent : first.innerText;
        var done = function () {
          event.currentTarget && (event.currentTarget.textContent = 'Copied');
        };
        var btn = event.currentTarget;
        if (navigator.clipboard) {
          navigator.clipboard.writeText(text).then(function () {
            btn.textContent = 'Copied';
            setTimeout(function () {
              btn.textContent = 'Copy';
            }, 1500);
          });
        } else done();
      });
      block.classList.add('has-copy');
      block.insertBefore(button, block.firstChild);
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', addCopyButtons);
  else addCopyButtons();
})();
