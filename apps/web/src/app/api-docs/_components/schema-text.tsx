// A JSON Schema (as the OpenAPI document holds it) rendered as text a person reads at a
// glance, TypeScript-like: `{ total: integer; workers: Worker[] }`, constraints and defaults
// in comments, a $ref as a link to its schema further down the page.
import type { ReactNode } from "react";

type Schema = Record<string, unknown>;

const REF = "#/components/schemas/";

export function schemaAnchor(name: string): string {
  return `schema-${name}`;
}

/** The constraints of a schema as a short comment: `0..1000, default 100`. */
export function constraints(s: Schema): string {
  const parts: string[] = [];
  const min = s.minimum ?? s.minLength ?? s.minItems;
  const max = s.maximum ?? s.maxLength ?? s.maxItems;
  const exMin = s.exclusiveMinimum;
  const safe = (n: unknown) => typeof n === "number" && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  const lo = safe(exMin) ? `>${String(exMin)}` : safe(min) ? String(min) : "";
  const hi = safe(max) ? String(max) : "";
  if (lo || hi) {
    const what = s.minLength !== undefined || s.maxLength !== undefined ? " chars" : s.minItems !== undefined || s.maxItems !== undefined ? " items" : "";
    parts.push(lo && hi ? `${lo.replace(/^>/, "> ")}..${hi}${what}` : lo ? (lo.startsWith(">") ? `> ${lo.slice(1)}${what}` : `≥ ${lo}${what}`) : `≤ ${hi}${what}`);
  }
  if (typeof s.pattern === "string") parts.push(`pattern ${s.pattern}`);
  if (typeof s.format === "string") parts.push(`format ${s.format}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(", ");
}

function isNullSchema(s: unknown): boolean {
  return typeof s === "object" && s !== null && (s as Schema).type === "null";
}

/** One line of type text for simple schemas, or null when the schema needs several lines. */
function inlineType(s: Schema): ReactNode | null {
  if (typeof s.$ref === "string") {
    const name = s.$ref.startsWith(REF) ? s.$ref.slice(REF.length) : s.$ref;
    return (
      <a className="link" href={`#${schemaAnchor(name)}`}>
        {name}
      </a>
    );
  }
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) {
    const parts = union.map(inlineType);
    if (parts.some((p) => p === null)) return null;
    return parts.flatMap((p, i) => (i === 0 ? [p] : [" | ", p]));
  }
  if (Array.isArray(s.allOf)) return null;
  if (s.type === "array") {
    const items = (s.items ?? {}) as Schema;
    const inner = inlineType(items);
    if (inner === null) return null;
    const needsParens = Boolean(items.anyOf ?? items.oneOf ?? items.enum);
    return needsParens ? ["(", inner, ")[]"] : [inner, "[]"];
  }
  if (s.type === "object" || s.properties || s.additionalProperties !== undefined) {
    const props = s.properties as Record<string, Schema> | undefined;
    if (props && Object.keys(props).length > 0) return null;
    const extra = s.additionalProperties;
    if (extra && typeof extra === "object" && Object.keys(extra).length > 0) {
      const v = inlineType(extra as Schema);
      return v === null ? null : ["{ [key: string]: ", v, " }"];
    }
    return extra === false ? "{}" : "{ [key: string]: any }";
  }
  if (typeof s.type === "string") return s.type;
  if (Array.isArray(s.type)) return (s.type as string[]).join(" | ");
  if (Object.keys(s).filter((k) => k !== "description" && k !== "default").length === 0) return "any";
  return null;
}

const pad = (depth: number) => "  ".repeat(depth);

/** The schema as lines of text at `depth`, the first line without its indentation. */
function block(s: Schema, depth: number): ReactNode {
  const inline = inlineType(s);
  if (inline !== null) return inline;
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) {
    // `T | null` keeps the object's braces where they are
    const nonNull = union.filter((u) => !isNullSchema(u));
    if (nonNull.length === 1 && union.length === 2) return [block(nonNull[0]!, depth), " | null"];
    return union.flatMap((u, i) => [i === 0 ? "" : `\n${pad(depth)}| `, block(u, depth + 1)]);
  }
  if (Array.isArray(s.allOf)) {
    return (s.allOf as Schema[]).flatMap((u, i) => [i === 0 ? "" : " & ", block(u, depth)]);
  }
  if (s.type === "array") return [block((s.items ?? {}) as Schema, depth), "[]"];
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const lines: ReactNode[] = ["{"];
  for (const [name, p] of Object.entries(props)) {
    const note = [typeof p.description === "string" ? p.description : "", constraints(p)].filter(Boolean).join("; ");
    lines.push(`\n${pad(depth + 1)}${name}${required.has(name) ? "" : "?"}: `, block(p, depth + 1), note ? `  // ${note}` : "");
  }
  const extra = s.additionalProperties;
  // {} (a loose object): any further member; undefined or false: none documented
  if (extra && typeof extra === "object") lines.push(`\n${pad(depth + 1)}[key: string]: `, block(extra as Schema, depth + 1));
  lines.push(`\n${pad(depth)}}`);
  return lines;
}

/** A schema as a block of text, links included; `key` props are added by React.Children. */
export function SchemaText({ schema }: { schema: unknown }) {
  const s = (schema ?? {}) as Schema;
  const note = constraints(s);
  return (
    <pre className="overflow-x-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-slate-800 dark:border-slate-800 dark:bg-slate-950 dark:text-slate-200">
      {flatten(block(s, 0))}
      {note ? `  // ${note}` : null}
    </pre>
  );
}

/** Nested arrays of text and links as one flat, keyed list. */
function flatten(node: ReactNode): ReactNode[] {
  const out: ReactNode[] = [];
  const walk = (n: ReactNode) => {
    if (Array.isArray(n)) for (const c of n) walk(c as ReactNode);
    else if (n !== null && n !== undefined && n !== "") out.push(n);
  };
  walk(node);
  // merge neighbouring strings; give elements keys
  const merged: ReactNode[] = [];
  for (const n of out) {
    const last = merged[merged.length - 1];
    if (typeof n === "string" && typeof last === "string") merged[merged.length - 1] = last + n;
    else merged.push(n);
  }
  return merged.map((n, i) => (typeof n === "string" ? n : <span key={i}>{n}</span>));
}
