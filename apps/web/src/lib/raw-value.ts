// Helpers for RawValue (a Redis value that may not be JSON or UTF-8).
import type { RawValue } from "@fleet/schema";

export function base64ToBytes(b64: string): Uint8Array {
  try {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return new Uint8Array();
  }
}

/** A classic hex dump: offset, 16 bytes, printable ASCII. */
export function hexDump(bytes: Uint8Array, maxBytes = 64 * 1024): string {
  const lines: string[] = [];
  const n = Math.min(bytes.length, maxBytes);
  for (let off = 0; off < n; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(row, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${off.toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  if (bytes.length > n) lines.push(`… ${bytes.length - n} more bytes`);
  return lines.join("\n");
}

/** What a RawValue holds: JSON (incl. a literal null), text that is not JSON, or bytes that are not UTF-8. */
export function classifyRaw(v: RawValue): "json" | "text" | "binary" {
  if (v.json !== null && v.json !== undefined) return "json";
  if (v.text !== null && v.text.trim() === "null") return "json";
  if (v.text !== null) return "text";
  return "binary";
}
