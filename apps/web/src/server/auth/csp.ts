// The Content-Security-Policy of pages. Scripts: only those carrying this response's
// nonce (Next adds it to its own scripts when it finds the nonce in the request's CSP
// header) and what they load ('strict-dynamic'). Styles keep 'unsafe-inline': React
// renders style attributes and uPlot sets inline styles, and a nonce cannot cover
// attributes; styles cannot run code. Nothing may frame the console.
export function pageCsp(nonce: string, development: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** API answers are data, never documents: nothing in them may load or run. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Strict-Transport-Security over https (next.config.ts). No includeSubDomains: the console does not speak for its neighbours. */
export const HSTS = "max-age=31536000";
/** An X-Forwarded-Proto whose first hop is https (a `has` value of next.config.ts: a regex, anchored by Next). */
export const HTTPS_FIRST_HOP = "https(?:,.*)?";
