// What a command is: its words, arguments, options and help, and what it runs with.
import type { FleetClient } from "./client";
import { UsageError, type ExitCode } from "./exit-codes";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help, e.g. `N`. */
  value?: string;
  description: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface Context {
  /** The positional arguments after the command's words. */
  args: string[];
  opts: OptionValues;
  /** --json: print the answers as JSON instead of tables. */
  json: boolean;
  client: FleetClient;
  /** A line (or block) to stdout. */
  out(text: string): void;
  /** A line to stderr: progress, notes, warnings. */
  err(text: string): void;
  readStdin(): Promise<string>;
  /** Asks a person a yes/no question (on a terminal); absent when nobody can answer (stdin or stderr not a terminal). */
  confirm?: (question: string) => Promise<boolean>;
  /** Where relative paths start (the directory `pnpm fleet` was started in). */
  cwd: string;
}

export interface CommandSpec {
  /** `["workers", "list"]`, or `["tail"]`. */
  words: string[];
  summary: string;
  /** The positional arguments in the usage line, e.g. `<type> <id>`. */
  args?: string;
  positionals: { min: number; max: number };
  description?: string;
  /** Lines of examples. */
  examples?: string[];
  options: Record<string, OptionSpec>;
  run(ctx: Context): Promise<ExitCode>;
}

export function name(cmd: CommandSpec): string {
  return cmd.words.join(" ");
}

export function stringOpt(ctx: Context, key: string): string | undefined {
  const v = ctx.opts[key];
  return typeof v === "string" ? v : undefined;
}

export function listOpt(ctx: Context, key: string): string[] {
  const v = ctx.opts[key];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

export function flag(ctx: Context, key: string): boolean {
  return ctx.opts[key] === true;
}

/** A whole-number option within [min, max], or its default; anything else is a usage error. */
export function intOpt(ctx: Context, command: string, key: string, range: { min: number; max: number; def?: number }): number | undefined {
  const v = stringOpt(ctx, key);
  if (v === undefined) return range.def;
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`--${key} must be a whole number, got ${JSON.stringify(v)}`, command);
  const n = Number(v);
  if (n < range.min || n > range.max) throw new UsageError(`--${key} must be between ${range.min} and ${range.max}, got ${n}`, command);
  return n;
}

/** One of the given values, or a usage error naming them. */
export function choiceOpt<T extends string>(ctx: Context, command: string, key: string, choices: readonly T[]): T | undefined {
  const v = stringOpt(ctx, key);
  if (v === undefined) return undefined;
  if (!(choices as readonly string[]).includes(v)) throw new UsageError(`--${key} must be one of ${choices.join(", ")}, got ${JSON.stringify(v)}`, command);
  return v as T;
}
