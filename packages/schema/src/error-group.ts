// One normalised form of an error message, shared by error groups (issue 14.3) and the search
// filter's `error_group` field: two messages that differ only in numbers, ids, urls, hex,
// quoted values or whitespace fall in the same group. Constant regular expressions only, each
// linear in its input (no nested quantifiers), and the input is capped first, so a crafted
// message costs O(n) with n ≤ ERROR_GROUP_INPUT_MAX.

/** How much of a message is normalised (Python tracebacks can run to megabytes). */
export const ERROR_GROUP_INPUT_MAX = 2000;
/** How long a normalised message may be (the group's key and label). */
export const ERROR_GROUP_MAX = 200;

/** A pattern, its placeholder, and optionally which matches it replaces. */
const RULES: ReadonlyArray<readonly [RegExp, string, ((match: string) => boolean)?]> = [
  // urls (scheme://...) up to the next space or quote
  [/\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s"'<>]+/gi, "<url>"],
  // uuids
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>"],
  // e-mail addresses
  [/\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}\b/g, "<email>"],
  // ip addresses (v4), with an optional port
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, "<ip>"],
  // 0x-prefixed hex and long hex runs (hashes, object ids)
  [/\b0x[0-9a-f]+\b/gi, "<hex>"],
  // (a run of 6+ hex digits holding both a digit and a letter: "deadbeef" and "facade" are words)
  [/\b[0-9a-f]{6,}\b/gi, "<hex>", (m) => /\d/.test(m) && /[a-f]/i.test(m)],
  // quoted values: '...' and "..." (up to 200 characters inside)
  [/"[^"\n]{0,200}"/g, '"…"'],
  [/'[^'\n]{0,200}'/g, "'…'"],
  // identifiers with digits in them (task-123, c17, t_9a) and plain numbers, signed or decimal
  [/\b[a-z_]+[-_:]?\d[\w-]*\b/gi, "<id>"],
  [/[-+]?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?/gi, "<n>"],
  // whitespace runs
  [/\s+/g, " "],
];

/**
 * The group of an error message: numbers, ids, urls, hex, e-mails, ips and quoted values
 * replaced by placeholders, whitespace collapsed, trimmed, at most ERROR_GROUP_MAX characters.
 * An empty or missing message has the group "" (no error).
 */
export function normalizeErrorMessage(message: string | null | undefined): string {
  if (!message) return "";
  let s = message.length > ERROR_GROUP_INPUT_MAX ? message.slice(0, ERROR_GROUP_INPUT_MAX) : message;
  for (const [re, to, when] of RULES) s = when ? s.replace(re, (m) => (when(m) ? to : m)) : s.replace(re, to);
  s = s.trim();
  return s.length > ERROR_GROUP_MAX ? `${s.slice(0, ERROR_GROUP_MAX - 1)}…` : s;
}
