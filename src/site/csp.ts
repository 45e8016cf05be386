/**
 * The site's Content-Security-Policy: in every page's `<meta>` and, from `serve`, as a header on every
 * response (Pagefind's worker script gets no `<meta>`, so the header is what allows its WebAssembly there).
 * Transcript content is sanitized when rendered; this policy is the second line: no inline script and no
 * external requests can run, whatever a transcript contains.
 */
export const SITE_CSP = [
  "default-src 'none'",
  // WebAssembly for the site search (Pagefind), which may run in a worker of its own.
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
