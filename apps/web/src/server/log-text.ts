// Text from clients (user names tried at sign-in, names in paths, proxy headers) in a log
// line: control characters, line and paragraph separators and bidirectional overrides are
// written as \uXXXX escapes (and `\` as `\\`, so an escape in the input cannot pass for one
// of ours), then cut to a length. A newline in a name can then never start a forged line,
// and a right-to-left override cannot make a line read differently from what it holds.
const UNSAFE = /[\\\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

export function logText(value: unknown, max = 120): string {
  const text = typeof value === "string" ? value : String(value);
  const cut = text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
  return cut.replace(UNSAFE, (c) => (c === "\\" ? "\\\\" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}
