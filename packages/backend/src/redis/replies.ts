// Small, defensive readers of ioredis replies. RESP2 and RESP3 ("legacy" mapping) shape
// scored replies differently (flat [m, s, m, s] vs [[m, s], ...]); both are accepted.

export function asBuffer(v: unknown): Buffer | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === "string") return Buffer.from(v, "utf8");
  if (typeof v === "number") return Buffer.from(String(v), "utf8");
  return null;
}

export function asNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (Buffer.isBuffer(v)) return Number(v.toString("utf8"));
  if (typeof v === "string") return Number(v);
  return Number.NaN;
}

export function asBufferArray(v: unknown): Buffer[] {
  if (!Array.isArray(v)) return [];
  return v.map((x) => asBuffer(x)).filter((x): x is Buffer => x !== null);
}

/** WITHSCORES replies as [member, score] pairs. */
export function scoredPairs(v: unknown): Array<[Buffer, number]> {
  if (!Array.isArray(v)) return [];
  const out: Array<[Buffer, number]> = [];
  if (v.length > 0 && Array.isArray(v[0])) {
    for (const pair of v as unknown[][]) {
      const m = asBuffer(pair[0]);
      if (m) out.push([m, asNumber(pair[1])]);
    }
    return out;
  }
  for (let i = 0; i + 1 < v.length; i += 2) {
    const m = asBuffer(v[i]);
    if (m) out.push([m, asNumber(v[i + 1])]);
  }
  return out;
}

/** HGETALL reply as a record of Buffers (ioredis maps it to an object; tolerate a flat array too). */
export function hashRecord(v: unknown): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  if (Array.isArray(v)) {
    for (let i = 0; i + 1 < v.length; i += 2) {
      const k = asBuffer(v[i]);
      const val = asBuffer(v[i + 1]);
      if (k && val) out[k.toString("utf8")] = val;
    }
    return out;
  }
  if (v && typeof v === "object") {
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      const b = asBuffer(val);
      if (b) out[k] = b;
    }
  }
  return out;
}

/** Redis INFO text as a map of `field:value` lines. */
export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith("#")) continue;
    const i = line.indexOf(":");
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}
