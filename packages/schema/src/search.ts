// Search inside one queue (issue 14.1): the filter language of `where=`, its parser, its
// evaluator, and the shapes of the NDJSON lines GET /queues/{name}/search streams.
//
// The language (documented in apps/web/README.md, "Search"):
//
//   filter     := or
//   or         := and ( "or" and )*
//   and        := unary ( "and" unary )*
//   unary      := "not" unary | "(" filter ")" | comparison
//   comparison := path op value
//   path       := segment ( "." segment )*        segment: name | "quoted" | 'quoted' | digits
//   op         := "=" | "!=" | "<" | "<=" | ">" | ">=" | "~"
//   value      := "text" | 'text' | number | true | false | null
//
// A path names a member of the task body (`id`, `attempts`, `last_error`, `payload.customer`,
// `payload."odd key".x`, `payload.items.0`); `error_group` is the normalised `last_error`
// (normalizeErrorMessage). Keywords are case-insensitive. `~` is a case-insensitive substring
// of the member's text (numbers and booleans as written, objects as JSON).
//
// A hand-written tokenizer and recursive-descent parser: no regular expression is built from
// the input, input length, nesting depth, comparisons and path lengths are bounded, and every
// problem is a FilterSyntaxError naming the position and what was expected, never anything
// else. The tree it builds is checked by FilterNodeSchema.
import { z } from "zod";

import { normalizeErrorMessage } from "./error-group";

export const FILTER_MAX_LENGTH = 1000;
export const FILTER_MAX_DEPTH = 32;
export const FILTER_MAX_COMPARISONS = 64;
export const FILTER_MAX_PATH_SEGMENTS = 16;
export const FILTER_MAX_TEXT = 500;
export const SEARCH_TEXT_MAX = 500;

export const FilterOpSchema = z.enum(["=", "!=", "<", "<=", ">", ">=", "~"]);
export type FilterOp = z.infer<typeof FilterOpSchema>;
export const FilterValueSchema = z.union([z.string().max(FILTER_MAX_TEXT), z.number().refine(Number.isFinite), z.boolean(), z.null()]);
export type FilterValue = z.infer<typeof FilterValueSchema>;

export type FilterNode =
  | { kind: "and"; items: FilterNode[] }
  | { kind: "or"; items: FilterNode[] }
  | { kind: "not"; item: FilterNode }
  | { kind: "cmp"; path: string[]; op: FilterOp; value: FilterValue };

export const FilterNodeSchema: z.ZodType<FilterNode> = z.lazy(() =>
  z.union([
    z.strictObject({ kind: z.literal("and"), items: z.array(FilterNodeSchema).min(2).max(FILTER_MAX_COMPARISONS) }),
    z.strictObject({ kind: z.literal("or"), items: z.array(FilterNodeSchema).min(2).max(FILTER_MAX_COMPARISONS) }),
    z.strictObject({ kind: z.literal("not"), item: FilterNodeSchema }),
    z.strictObject({
      kind: z.literal("cmp"),
      path: z.array(z.string().max(FILTER_MAX_TEXT)).min(1).max(FILTER_MAX_PATH_SEGMENTS),
      op: FilterOpSchema,
      value: FilterValueSchema,
    }),
  ]),
);

/** A filter that does not parse: where (0-based offset into the text) and what was expected. */
export class FilterSyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`at position ${position + 1}: expected ${expected}, found ${found}`);
    this.name = "FilterSyntaxError";
  }
}

type TokenKind = "name" | "string" | "number" | "op" | "lparen" | "rparen" | "dot" | "end";
interface Token {
  kind: TokenKind;
  /** The name, the decoded string, the operator, or the number's text. */
  text: string;
  pos: number;
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isNameStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c === "$";
const isNamePart = (c: string) => isNameStart(c) || isDigit(c) || c === "-";
const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";

function describe(t: Token): string {
  switch (t.kind) {
    case "end":
      return "the end of the filter";
    case "string":
      return `the text ${JSON.stringify(t.text.length > 20 ? `${t.text.slice(0, 20)}…` : t.text)}`;
    case "lparen":
    case "rparen":
    case "dot":
    case "op":
      return `'${t.text}'`;
    default:
      return `'${t.text.length > 20 ? `${t.text.slice(0, 20)}…` : t.text}'`;
  }
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === "(" || c === ")") {
      out.push({ kind: c === "(" ? "lparen" : "rparen", text: c, pos: start });
      i++;
    } else if (c === ".") {
      out.push({ kind: "dot", text: ".", pos: start });
      i++;
    } else if (c === "=" || c === "~") {
      out.push({ kind: "op", text: c, pos: start });
      i++;
    } else if (c === "!") {
      if (src[i + 1] !== "=") throw new FilterSyntaxError(start, "'!=' (a lone '!' is not an operator; use not)", `'!'`);
      out.push({ kind: "op", text: "!=", pos: start });
      i += 2;
    } else if (c === "<" || c === ">") {
      const op = src[i + 1] === "=" ? `${c}=` : c;
      out.push({ kind: "op", text: op, pos: start });
      i += op.length;
    } else if (c === '"' || c === "'") {
      i++;
      let text = "";
      for (;;) {
        if (i >= n) throw new FilterSyntaxError(start, `a closing ${c} for the text opened here`, "the end of the filter");
        const d = src[i]!;
        if (d === c) {
          i++;
          break;
        }
        if (d === "\\") {
          const e = src[i + 1];
          if (e === undefined) throw new FilterSyntaxError(i, "an escaped character after '\\'", "the end of the filter");
          if (e === "\\" || e === '"' || e === "'") text += e;
          else if (e === "n") text += "\n";
          else if (e === "t") text += "\t";
          else if (e === "u") {
            const hex = src.slice(i + 2, i + 6);
            let code = 0;
            for (const h of hex) {
              const v = parseInt(h, 16);
              if (Number.isNaN(v)) {
                code = -1;
                break;
              }
              code = code * 16 + v;
            }
            if (hex.length !== 4 || code < 0) throw new FilterSyntaxError(i, "four hex digits after '\\u'", `'${src.slice(i, i + 6)}'`);
            text += String.fromCharCode(code);
            i += 4;
          } else throw new FilterSyntaxError(i, `one of \\\\ \\" \\' \\n \\t \\uXXXX`, `'\\${e}'`);
          i += 2;
          continue;
        }
        text += d;
        i++;
      }
      if (text.length > FILTER_MAX_TEXT) throw new FilterSyntaxError(start, `a text of at most ${FILTER_MAX_TEXT} characters`, `${text.length} characters`);
      out.push({ kind: "string", text, pos: start });
    } else if (isDigit(c) || (c === "-" && isDigit(src[i + 1] ?? ""))) {
      i++;
      while (i < n && isDigit(src[i]!)) i++;
      if (src[i] === "." && isDigit(src[i + 1] ?? "")) {
        i++;
        while (i < n && isDigit(src[i]!)) i++;
      }
      if (src[i] === "e" || src[i] === "E") {
        let j = i + 1;
        if (src[j] === "+" || src[j] === "-") j++;
        if (!isDigit(src[j] ?? "")) throw new FilterSyntaxError(i, "digits of the exponent", i + 1 >= n ? "the end of the filter" : `'${src[i + 1]}'`);
        i = j;
        while (i < n && isDigit(src[i]!)) i++;
      }
      if (i < n && isNamePart(src[i]!)) throw new FilterSyntaxError(i, "a space or an operator after the number", `'${src[i]}'`);
      out.push({ kind: "number", text: src.slice(start, i), pos: start });
    } else if (isNameStart(c)) {
      i++;
      while (i < n && isNamePart(src[i]!)) i++;
      out.push({ kind: "name", text: src.slice(start, i), pos: start });
    } else {
      throw new FilterSyntaxError(start, "a field, a value, an operator or a parenthesis", `'${c}'`);
    }
  }
  out.push({ kind: "end", text: "", pos: n });
  return out;
}

const keyword = (t: Token, word: "and" | "or" | "not" | "true" | "false" | "null") => t.kind === "name" && t.text.toLowerCase() === word;

class Parser {
  private at = 0;
  private depth = 0;
  private comparisons = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.at]!;
  }
  private take(): Token {
    return this.tokens[this.at++]!;
  }
  private fail(expected: string, t = this.peek()): never {
    throw new FilterSyntaxError(t.pos, expected, describe(t));
  }

  parse(): FilterNode {
    const node = this.or();
    const t = this.peek();
    if (t.kind !== "end") this.fail(t.kind === "rparen" ? "the end of the filter (this ')' closes nothing)" : "and, or, or the end of the filter");
    return node;
  }

  private nest<T>(t: Token, fn: () => T): T {
    if (++this.depth > FILTER_MAX_DEPTH) throw new FilterSyntaxError(t.pos, `at most ${FILTER_MAX_DEPTH} levels of parentheses and not`, "a deeper one");
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private or(): FilterNode {
    const items = [this.and()];
    while (keyword(this.peek(), "or")) {
      this.take();
      items.push(this.and());
    }
    return items.length === 1 ? items[0]! : { kind: "or", items };
  }

  private and(): FilterNode {
    const items = [this.unary()];
    while (keyword(this.peek(), "and")) {
      this.take();
      items.push(this.unary());
    }
    return items.length === 1 ? items[0]! : { kind: "and", items };
  }

  private unary(): FilterNode {
    const t = this.peek();
    if (keyword(t, "not")) {
      this.take();
      return this.nest(t, () => ({ kind: "not", item: this.unary() }));
    }
    if (t.kind === "lparen") {
      this.take();
      return this.nest(t, () => {
        const inner = this.or();
        if (this.peek().kind !== "rparen") this.fail(`')' to close the '(' at position ${t.pos + 1}, or and / or`);
        this.take();
        return inner;
      });
    }
    return this.comparison();
  }

  private segment(first: boolean): string {
    const t = this.peek();
    const ok = t.kind === "name" || t.kind === "string" || (!first && t.kind === "number" && /^\d+$/.test(t.text));
    if (!ok)
      this.fail(first ? 'a field (a name such as attempts or payload.customer, or a "quoted" name), not or (' : "a member name after '.' (a name, a \"quoted\" name or an index)");
    if (first && (keyword(t, "and") || keyword(t, "or") || keyword(t, "true") || keyword(t, "false") || keyword(t, "null"))) {
      this.fail('a field (a word such as and, or, true or null is a field only when "quoted")');
    }
    this.take();
    return t.text;
  }

  private comparison(): FilterNode {
    const start = this.peek();
    if (++this.comparisons > FILTER_MAX_COMPARISONS) throw new FilterSyntaxError(start.pos, `at most ${FILTER_MAX_COMPARISONS} comparisons`, "more");
    const path = [this.segment(true)];
    while (this.peek().kind === "dot") {
      this.take();
      if (path.length >= FILTER_MAX_PATH_SEGMENTS) this.fail(`a path of at most ${FILTER_MAX_PATH_SEGMENTS} members`);
      path.push(this.segment(false));
    }
    const opTok = this.peek();
    if (opTok.kind !== "op") this.fail(`an operator after the field ${path.join(".")} (=, !=, <, <=, >, >= or ~)`);
    this.take();
    const op = opTok.text as FilterOp;
    const v = this.peek();
    let value: FilterValue;
    if (v.kind === "string") value = v.text;
    else if (v.kind === "number") {
      const num = Number(v.text);
      if (!Number.isFinite(num)) this.fail("a finite number", v);
      value = num;
    } else if (keyword(v, "true")) value = true;
    else if (keyword(v, "false")) value = false;
    else if (keyword(v, "null")) value = null;
    else if (v.kind === "name") this.fail(`a value after ${op}: a "quoted" text, a number, true, false or null (a bare word is not a value: write "${v.text}")`);
    else this.fail(`a value after ${op}: a "quoted" text, a number, true, false or null`);
    if (op === "~" && typeof value !== "string") this.fail('a "quoted" text after ~ (it matches a substring)', v);
    this.take();
    return { kind: "cmp", path, op, value };
  }
}

/**
 * Parses a `where=` filter. Throws FilterSyntaxError (and nothing else) when it does not
 * parse; the tree is checked by FilterNodeSchema before it is answered.
 */
export function parseFilter(text: string): FilterNode {
  if (text.length > FILTER_MAX_LENGTH) throw new FilterSyntaxError(FILTER_MAX_LENGTH, `a filter of at most ${FILTER_MAX_LENGTH} characters`, `${text.length} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 1) throw new FilterSyntaxError(0, "a comparison such as attempts >= 3", "an empty filter");
  const node = new Parser(tokens).parse();
  const checked = FilterNodeSchema.safeParse(node);
  // Unreachable for a tree this parser built; kept so a change to either side is caught.
  if (!checked.success) throw new FilterSyntaxError(0, "a filter the console can evaluate", "one it cannot");
  return checked.data;
}

/** What a filter is evaluated against: the parsed task body (any JSON value). */
export type FilterSubject = unknown;

function member(v: unknown, seg: string): unknown {
  if (Array.isArray(v)) {
    if (seg === "" || seg.length > 9) return undefined;
    for (const ch of seg) if (!isDigit(ch)) return undefined;
    if (seg.length > 1 && seg[0] === "0") return undefined;
    return v[Number(seg)];
  }
  if (v !== null && typeof v === "object" && Object.hasOwn(v, seg)) return (v as Record<string, unknown>)[seg];
  return undefined;
}

function resolve(body: unknown, path: string[]): unknown {
  if (path.length === 1 && path[0] === "error_group") {
    const e = member(body, "last_error");
    return normalizeErrorMessage(typeof e === "string" ? e : null);
  }
  let v = body;
  for (const seg of path) {
    v = member(v, seg);
    if (v === undefined) return undefined;
  }
  return v;
}

/** The text `~` looks in: strings as they are, numbers and booleans as written, objects as JSON (first 64 KiB). */
function textOf(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v !== null && typeof v === "object") {
    const s = JSON.stringify(v);
    return s.length > 65536 ? s.slice(0, 65536) : s;
  }
  return null;
}

/** Compiles a parsed filter into a predicate over a parsed body (a missing member reads as null). */
export function compileFilter(node: FilterNode): (body: FilterSubject) => boolean {
  switch (node.kind) {
    case "and": {
      const fs = node.items.map(compileFilter);
      return (b) => fs.every((f) => f(b));
    }
    case "or": {
      const fs = node.items.map(compileFilter);
      return (b) => fs.some((f) => f(b));
    }
    case "not": {
      const f = compileFilter(node.item);
      return (b) => !f(b);
    }
    case "cmp": {
      const { path, op, value } = node;
      if (op === "~") {
        const needle = String(value).toLowerCase();
        return (b) => {
          const t = textOf(resolve(b, path));
          return t?.toLowerCase().includes(needle) === true;
        };
      }
      if (op === "=" || op === "!=") {
        const eq = (b: unknown) => {
          const v = resolve(b, path);
          return value === null ? v === null || v === undefined : v === value;
        };
        return op === "=" ? eq : (b) => !eq(b);
      }
      return (b) => {
        const v = resolve(b, path);
        if (!((typeof v === "number" && typeof value === "number") || (typeof v === "string" && typeof value === "string"))) return false;
        if (op === "<") return v < value;
        if (op === "<=") return v <= value;
        if (op === ">") return v > value;
        return v >= value;
      };
    }
  }
}

// ---------- GET /queues/{name}/search

export const SEARCH_LISTS = ["pending", "processing", "scheduled", "dead"] as const;
export const SearchListSchema = z.enum(SEARCH_LISTS);
export type SearchList = z.infer<typeof SearchListSchema>;
/** Matches sent by default, and at most (the scan goes on counting past them). */
export const SEARCH_DEFAULT_LIMIT = 200;
export const SEARCH_MAX_LIMIT = 1000;
/** Characters of a matching body sent for display. */
export const SEARCH_BODY_PREVIEW = 1000;

/** `in=pending,dead`: which lists to look in; absent or empty means all of them. */
export const SearchInSchema = z
  .string()
  .max(200)
  .optional()
  .transform((s, ctx) => {
    if (s === undefined || s.trim() === "") return [...SEARCH_LISTS];
    const out: SearchList[] = [];
    for (const part of s.split(",")) {
      const p = part.trim();
      if (p === "") continue;
      if (!(SEARCH_LISTS as readonly string[]).includes(p)) {
        ctx.addIssue({ code: "custom", message: `in names pending, processing, scheduled or dead, not '${p.slice(0, 40)}'` });
        return z.NEVER;
      }
      if (!out.includes(p as SearchList)) out.push(p as SearchList);
    }
    return out.length > 0 ? out : [...SEARCH_LISTS];
  });

export const SearchQuerySchema = z.object({
  q: z.string().max(SEARCH_TEXT_MAX, `q must be at most ${SEARCH_TEXT_MAX} characters`).optional(),
  where: z.string().max(FILTER_MAX_LENGTH, `where must be at most ${FILTER_MAX_LENGTH} characters`).optional(),
  in: SearchInSchema,
  limit: z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be a whole number")
    .min(0, "limit must not be negative")
    .max(SEARCH_MAX_LIMIT, `limit must be at most ${SEARCH_MAX_LIMIT}`)
    .default(SEARCH_DEFAULT_LIMIT),
});
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

const PrioritySchema = z.enum(["high", "normal", "low"]);

/** One task that matched, where it was found, and its body as text cut for display. */
export const SearchMatchLineSchema = z.object({
  type: z.literal("match"),
  list: SearchListSchema,
  /** The pending list it is on; null elsewhere. */
  priority: PrioritySchema.nullable(),
  /** Its position in that list (pending, dead) or rank (processing by deadline, scheduled by ready time) when read. */
  index: z.number().int().nonnegative(),
  /** Hex SHA-1 of the body's bytes, as the dead-letter routes address them. */
  ref: z.string(),
  task_id: z.string().nullable(),
  attempts: z.number().nullable(),
  last_error: z.string().nullable(),
  /** Reservation deadline (processing) or ready time (scheduled), unix seconds; null elsewhere. */
  at: z.number().nullable(),
  body: z.object({ text: z.string(), bytes: z.number().int().nonnegative(), truncated: z.boolean() }),
});
export type SearchMatchLine = z.infer<typeof SearchMatchLineSchema>;

export const SearchProgressLineSchema = z.object({
  type: z.literal("progress"),
  /** The list being read now. */
  list: SearchListSchema,
  scanned: z.number().int().nonnegative(),
  /** Tasks in the lists searched when the search began (they may change meanwhile). */
  total: z.number().int().nonnegative(),
  matched: z.number().int().nonnegative(),
});
export type SearchProgressLine = z.infer<typeof SearchProgressLineSchema>;

export const SearchDoneLineSchema = z.object({
  type: z.literal("done"),
  scanned: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  matched: z.number().int().nonnegative(),
  /** Matches sent as lines (at most `limit`); the others were counted only. */
  returned: z.number().int().nonnegative(),
  elapsed_ms: z.number().nonnegative(),
  /** Lists whose keys hold another Redis type (read as empty), by key suffix. */
  corrupt: z.array(z.string()),
  /**
   * Lists read again from their head because every entry the search had last examined there
   * was gone by its next read (removed by another action meanwhile, or popped with all before
   * it): matches already counted were recognised by their bytes, not counted twice.
   */
  reread: z.array(z.string()),
  /** Lists given up after being read again from their head too many times (they moved too fast to be read whole). */
  incomplete: z.array(z.string()),
  /** Matches after such a re-read that could not be checked against the earlier ones (over 100,000 in one list): they may repeat one. */
  repeats: z.number().int().nonnegative(),
});
export type SearchDoneLine = z.infer<typeof SearchDoneLineSchema>;

/** A failure after the stream began (Redis went away): the last line. */
export const SearchErrorLineSchema = z.object({
  type: z.literal("error"),
  error: z.object({ code: z.string(), message: z.string() }),
});

export const SearchLineSchema = z.discriminatedUnion("type", [SearchMatchLineSchema, SearchProgressLineSchema, SearchDoneLineSchema, SearchErrorLineSchema]);
export type SearchLine = z.infer<typeof SearchLineSchema>;

// ---------- bulk actions on a search's matches (issue 14.2)

export const BULK_ACTIONS = ["requeue-dead", "delete-dead", "delete-pending"] as const;
export const BulkActionSchema = z.enum(BULK_ACTIONS);
export type BulkAction = z.infer<typeof BulkActionSchema>;
/** The lists each action reads: what its preview searches (`in=`). */
export const BULK_ACTION_LISTS: Record<BulkAction, SearchList> = { "requeue-dead": "dead", "delete-dead": "dead", "delete-pending": "pending" };
export const BULK_DEFAULT_RATE = 200;
export const BULK_MAX_RATE = 10_000;

export const StartBulkJobBodySchema = z
  .strictObject({
    action: BulkActionSchema,
    q: z.string().max(SEARCH_TEXT_MAX, `q must be at most ${SEARCH_TEXT_MAX} characters`).optional(),
    where: z.string().max(FILTER_MAX_LENGTH, `where must be at most ${FILTER_MAX_LENGTH} characters`).optional(),
    /** Tasks per second at most, so a redrive of 100k does not flood the workers. */
    rate: z
      .number()
      .int("rate must be a whole number of tasks per second")
      .min(1, "rate must be at least 1 task per second")
      .max(BULK_MAX_RATE, `rate must be at most ${BULK_MAX_RATE} tasks per second`)
      .default(BULK_DEFAULT_RATE),
    /** The count the confirmation named (from the preview): recorded with the job and in the audit trail. */
    expected: z.number().int().min(0),
  })
  .refine((b) => (b.q ?? "").trim() !== "" || (b.where ?? "").trim() !== "", {
    message: "give a text (q) or a filter (where): a bulk action needs a search to act on",
    path: ["where"],
  });
export type StartBulkJobBody = z.infer<typeof StartBulkJobBodySchema>;
/** What a client sends (rate may be left out). */
export type StartBulkJobInput = z.input<typeof StartBulkJobBodySchema>;

/** The job spec as stored in its record (`doc`). */
export const BulkJobDocSchema = z.object({
  queue: z.string(),
  action: BulkActionSchema,
  q: z.string().nullable(),
  where: z.string().nullable(),
  rate: z.number().int().positive(),
  expected: z.number().int().nonnegative(),
  created_at: z.number(),
  created_by: z.string(),
  role: z.string(),
});
export type BulkJobDoc = z.infer<typeof BulkJobDocSchema>;

export const BulkJobSchema = BulkJobDocSchema.extend({
  id: z.string(),
  state: z.enum(["running", "done", "cancelled", "failed"]),
  /** Entries read so far, tasks moved or deleted, and matches that were gone when their chunk was taken. */
  scanned: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  missing: z.number().int().nonnegative(),
  note: z.string(),
});
export type BulkJob = z.infer<typeof BulkJobSchema>;
export const BulkJobsSchema = z.object({ jobs: z.array(BulkJobSchema) });
