// JSON Merge Patch, RFC 7386: objects merge member by member, `null` removes a member,
// anything else (arrays included) replaces the target. One implementation for the server
// (PATCH config, rollouts) and the browser (the config editor's review and conflict rebase),
// so what the review shows is what the server writes.

/**
 * The target with the patch applied. Inputs are not modified; the result shares nothing
 * with the patch. Members whose value is `undefined` (never in parsed JSON, possible in a
 * form's state) are skipped, as JSON.stringify would drop them.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return withoutUndefined(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** A deep copy without undefined members (what JSON.stringify would keep; undefined array items become null). */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : withoutUndefined(v)));
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, withoutUndefined(v));
    return out;
  }
  return value;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// A plain assignment of "__proto__" (a legal JSON member name) would change the
// prototype instead of adding the member.
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
