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
  // "This session as Markdown": the session's gzip member of its day's pack (days/<day>.sessions.md.gz), found
  // in the pack's index, asked for alone (a Range request) and saved as the Markdown it holds. Where that cannot
  // be done (no DecompressionStream, a page opened from the disk), the link does what it does without script: it
  // downloads the day's pack, this session's Markdown among the day's.
  function gunzip(bytes) {
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  }
  function isGzip(bytes) {
    return bytes[0] === 0x1f && bytes[1] === 0x8b;
  }
  function bytesOf(url, init) {
    return fetch(url, init).then(function (response) {
      if (!response.ok) throw new Error(url + ': ' + response.status);
      return response.arrayBuffer().then(function (buffer) {
        return { partial: response.status === 206, bytes: new Uint8Array(buffer) };
      });
    });
  }
  function memberMarkdown(link) {
    return fetch(link.getAttribute('data-markdown-index'))
      .then(function (response) {
        if (!response.ok) throw new Error(response.url + ': ' + response.status);
        return response.json();
      })
      .then(function (index) {
        // [start, length] in the pack, [start, length] in the Markdown it decompresses to.
        var at = index[link.getAttribute('data-markdown-member')];
        if (!at) throw new Error('not in the pack');
        // A busy day's pack is in parts (days/<day>.sessions.<part>.md.gz from the second on).
        var pack = at[4] ? link.href.replace(/\.sessions\.md\.gz$/, '.sessions.' + at[4] + '.md.gz') : link.href;
        var whole = function (got) {
          if (isGzip(got.bytes)) return gunzip(got.bytes.subarray(at[0], at[0] + at[1]));
          // A host that serves .gz files gzip-encoded has handed over the day's Markdown itself (all of it: a
          // browser that decoded only the first member would leave the others short).
          if (got.bytes.length < at[2] + at[3]) throw new Error('the pack came decoded, but not whole');
          return got.bytes.slice(at[2], at[2] + at[3]).buffer;
        };
        var range = { headers: { Range: 'bytes=' + at[0] + '-' + (at[0] + at[1] - 1) } };
        return bytesOf(pack, range).then(function (got) {
          if (!got.partial) return whole(got);
          if (got.bytes.length === at[1] && isGzip(got.bytes)) return gunzip(got.bytes);
          // The member's range, decoded by the host: the session's Markdown itself.
          if (got.bytes.length === at[3] && !isGzip(got.bytes)) return got.bytes.buffer;
          return bytesOf(pack).then(whole);
        });
      });
  }
  document.addEventListener('click', function (event) {
    var link = event.target && event.target.closest ? event.target.closest('a[data-markdown-file]') : null;
    if (!link || typeof DecompressionStream !== 'function') return;
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    memberMarkdown(link)
      .then(function (markdown) {
        var url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' }));
        var save = document.createElement('a');
        save.href = url;
        save.download = link.getAttribute('data-markdown-file');
        document.body.appendChild(save);
        save.click();
        save.remove();
        setTimeout(function () {
          URL.revokeObjectURL(url);
        }, 60000);
      })
      .catch(function () {
        location.href = link.href;
      });
  });
  // Tooltips made when the pointer first comes over them (the page would carry them for every message).
  // A message's time shows the clock; its tooltip the date and the zone's offset, made here from `datetime` in
  // the site's zone (the thread's data-tz). "*": estimated.
  var formatter;
  function fullTime(time) {
    var date = new Date(time.getAttribute('datetime'));
    if (isNaN(date.getTime())) return '';
    if (!formatter) {
      var options = {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'longOffset',
      };
      var thread = time.closest('.thread');
      try {
        formatter = new Intl.DateTimeFormat('en-CA', Object.assign({ timeZone: thread && thread.dataset.tz }, options));
      } catch (error) {
        formatter = new Intl.DateTimeFormat('en-CA', options);
      }
    }
    var part = {};
    formatter.formatToParts(date).forEach(function (p) {
      part[p.type] = p.value;
    });
    var offset = (part.timeZoneName || '').replace(/^GMT/, '') || '+00:00';
    var text = part.year + '-' + part.month + '-' + part.day + ' ' + part.hour + ':' + part.minute + ':' + part.second;
    return text + ' ' + offset + (/\*$/.test(time.textContent) ? ' (estimated)' : '');
  }
  // An answer's tokens: their kinds, as the site's other token tooltips write them.
  function usageTitle(span) {
    var n = span.getAttribute('data-usage').split(' ').map(Number);
    if (n.length !== 4 || n.some(isNaN)) return '';
    var f = function (x) {
      return x.toLocaleString('en-US');
    };
    return 'input ' + f(n[0]) + ' · output ' + f(n[1]) + ' · cache read ' + f(n[2]) + ' · cache write ' + f(n[3]);
  }
  document.addEventListener('mouseover', function (event) {
    var target = event.target && event.target.closest ? event.target : null;
    if (!target) return;
    var time = target.closest('.thread time[datetime]');
    if (time && !time.title) time.title = fullTime(time);
    var tokens = target.closest('.thread .tokens[data-usage]');
    if (tokens && !tokens.title) tokens.title = usageTitle(tokens);
  });
  // Where the reader was, kept in the page's history entry: the browser lays out only the messages near the screen
  // and counts the others at a typical height (content-visibility), so after a reload (serve --watch reloads on
  // every rebuild) or a return to the page, the same offset in pixels would show another message. The message at
  // the top of the screen is brought back to where it was instead.
  function keepPlace() {
    var items = document.querySelectorAll('.thread > .item');
    if (items.length === 0 || !('scrollRestoration' in history)) return;
    var key = 'agentLogbookPlace';
    var saved = history.state && history.state[key];
    var navigation = performance.getEntriesByType && performance.getEntriesByType('navigation')[0];
    var returning = navigation && (navigation.type === 'reload' || navigation.type === 'back_forward');
    history.scrollRestoration = 'manual';
    if (returning && saved && items[saved.item]) {
      // Again at the next frames: the messages the browser lays out once they are near the screen take their
      // own heights, and those above this one move it.
      var place = function (frames) {
        var off = items[saved.item].getBoundingClientRect().top - saved.top;
        if (Math.abs(off) >= 1) window.scrollBy(0, off);
        if (frames > 0)
          requestAnimationFrame(function () {
            place(frames - 1);
          });
      };
      place(4);
    }
    var timer;
    function save() {
      timer = undefined;
      // The first message reaching into the screen (found by halves: the page has up to ~300).
      var low = 0;
      var high = items.length - 1;
      while (low < high) {
        var middle = (low + high) >> 1;
        if (items[middle].getBoundingClientRect().bottom > 0) high = middle;
        else low = middle + 1;
      }
      var state = {};
      for (var name in history.state || {}) state[name] = history.state[name];
      state[key] = { item: low, top: Math.round(items[low].getBoundingClientRect().top) };
      history.replaceState(state, '');
    }
    window.addEventListener('scroll', function () {
      if (timer === undefined) timer = setTimeout(save, 200);
    });
    window.addEventListener('pagehide', function () {
      if (timer !== undefined) clearTimeout(timer);
      save();
    });
  }
  function ready() {
    addCopyButtons();
    keepPlace();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
})();
