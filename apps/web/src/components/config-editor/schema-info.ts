// Reading JSON Schemas for people: the title of the setting at a path (for the review),
// and a flat list of fields with type, bounds, default and description (for the catalog
// page's tables). Only local `$ref`s (`#/$defs/...`, `#/definitions/...`) are followed.
import { isPlainObject, type JsonObject } from "./diff";

export interface SchemaField {
  /** Member names from the root. */
  path: string[];
  title: string | null;
  type: string;
  required: boolean;
  /** "0 – 64", "≤ 300 chars", "one of: a, b"; null when unbounded. */
  bounds: string | null;
  /** JSON text of the default, or null when there is none. */
  default: string | null;
  description: string | null;
}

function resolveRef(root: unknown, node: unknown, depth = 0): JsonObject | null {
  if (!isPlainObject(node)) return null;
  const ref = node.$ref;
  if (typeof ref !== "string" || depth > 16) return node;
  if (!ref.startsWith("#/")) return node;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isPlainObject(cur) || !Object.hasOwn(cur, key)) return node;
    cur = cur[key];
  }
  const target = resolveRef(root, cur, depth + 1);
  if (!target) return node;
  // Siblings of $ref (a title, a default) win over the target's.
  const { $ref: _ref, ...siblings } = node;
  return { ...target, ...siblings };
}

/** The non-null member of a `anyOf: [X, {type: null}]` (how Optional fields are emitted). */
function unwrapNullable(root: unknown, node: JsonObject): { node: JsonObject; nullable: boolean } {
  const alts = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : null;
  if (!alts) return { node, nullable: false };
  const resolved = alts.map((a) => resolveRef(root, a)).filter((a): a is JsonObject => a !== null);
  const nonNull = resolved.filter((a) => a.type !== "null");
  if (nonNull.length === 1 && resolved.length === 2) {
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    return { node: { ...nonNull[0], ...rest }, nullable: true };
  }
  return { node, nullable: false };
}

/** The schema of the member at `path`, or null when the schema does not describe it. */
export function schemaAt(root: unknown, path: string[]): JsonObject | null {
  let cur = resolveRef(root, root);
  for (const key of path) {
    if (!cur) return null;
    cur = unwrapNullable(root, cur).node;
    const props = cur.properties;
    if (isPlainObject(props) && Object.hasOwn(props, key)) {
      cur = resolveRef(root, props[key]);
    } else if (isPlainObject(cur.additionalProperties)) {
      cur = resolveRef(root, cur.additionalProperties);
    } else {
      return null;
    }
  }
  return cur;
}

/** "Slots" for `["slots"]`, "Limits › Max" for nested members; member names where a level has no title. */
export function titleAt(root: unknown, path: string[]): string {
  if (path.length === 0) return "(whole config)";
  const parts: string[] = [];
  for (let i = 1; i <= path.length; i++) {
    const s = schemaAt(root, path.slice(0, i));
    const t = s && typeof s.title === "string" && s.title.trim() !== "" ? s.title : path[i - 1]!;
    parts.push(t);
  }
  return parts.join(" › ");
}

function typeName(node: JsonObject, nullable: boolean): string {
  let t: string;
  if (Array.isArray(node.type)) t = node.type.join(" | ");
  else if (typeof node.type === "string") t = node.type;
  else if (Array.isArray(node.enum)) t = "enum";
  else if (node.const !== undefined) t = "const";
  else if (Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) t = "one of several";
  else t = "any";
  if (t === "array" && isPlainObject(node.items) && typeof node.items.type === "string") t = `array of ${node.items.type}`;
  return nullable ? `${t} | null` : t;
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

function boundsOf(node: JsonObject): string | null {
  if (Array.isArray(node.enum)) return `one of: ${node.enum.map(show).join(", ")}`;
  if (node.const !== undefined) return `exactly ${show(node.const)}`;
  const parts: string[] = [];
  // zod's int() emits the safe-integer range as bounds: no bound a person needs to know.
  const num = (k: string) => (typeof node[k] === "number" && Math.abs(node[k] as number) < Number.MAX_SAFE_INTEGER ? (node[k] as number) : undefined);
  const lo = num("minimum") ?? num("exclusiveMinimum");
  const hi = num("maximum") ?? num("exclusiveMaximum");
  const loOp = num("exclusiveMinimum") !== undefined ? "<" : "≤";
  const hiOp = num("exclusiveMaximum") !== undefined ? "<" : "≤";
  if (lo !== undefined && hi !== undefined) parts.push(`${lo} ${loOp} x ${hiOp} ${hi}`);
  else if (lo !== undefined) parts.push(`${loOp === "<" ? ">" : "≥"} ${lo}`);
  else if (hi !== undefined) parts.push(`${hiOp} ${hi}`);
  if (num("multipleOf") !== undefined) parts.push(`multiple of ${num("multipleOf")}`);
  const minL = num("minLength");
  const maxL = num("maxLength");
  if (minL !== undefined && maxL !== undefined) parts.push(`${minL}–${maxL} chars`);
  else if (maxL !== undefined) parts.push(`≤ ${maxL} chars`);
  else if (minL !== undefined) parts.push(`≥ ${minL} chars`);
  if (typeof node.format === "string") parts.push(`format ${node.format}`);
  if (typeof node.pattern === "string") parts.push(`pattern ${node.pattern}`);
  const minI = num("minItems");
  const maxI = num("maxItems");
  if (minI !== undefined || maxI !== undefined) parts.push(`${minI ?? 0}–${maxI ?? "∞"} items`);
  return parts.length > 0 ? parts.join("; ") : null;
}

/** Every described member, depth first, nested objects' members after their parent. */
export function schemaFields(root: unknown, maxDepth = 4): SchemaField[] {
  const out: SchemaField[] = [];
  const walk = (nodeIn: unknown, path: string[], depth: number) => {
    const node = resolveRef(root, nodeIn);
    if (!node || depth > maxDepth) return;
    const { node: obj } = unwrapNullable(root, node);
    const props = obj.properties;
    if (!isPlainObject(props)) return;
    const required = new Set(Array.isArray(obj.required) ? obj.required.filter((r): r is string => typeof r === "string") : []);
    for (const [key, raw] of Object.entries(props)) {
      const resolved = resolveRef(root, raw);
      if (!resolved) continue;
      const { node: field, nullable } = unwrapNullable(root, resolved);
      const p = [...path, key];
      out.push({
        path: p,
        title: typeof field.title === "string" ? field.title : null,
        type: typeName(field, nullable),
        required: required.has(key),
        bounds: boundsOf(field),
        default: field.default !== undefined ? JSON.stringify(field.default) : null,
        description: typeof field.description === "string" ? field.description : null,
      });
      if (field.type === "object" || isPlainObject(field.properties)) walk(field, p, depth + 1);
    }
  };
  walk(root, [], 0);
  return out;
}
