// Where to go after sign-in: only a path on this console; anything else (another host,
// `//evil`, `/\evil`, a scheme) falls back to the overview.
export function safeNext(value: string | null | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/";
  if (/[\u0000-\u001f]/.test(value)) return "/";
  return value;
}
