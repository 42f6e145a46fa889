// `fleet`: finds the command in the arguments, parses its options with node:util parseArgs
// (strict: an unknown option or a missing value is a usage error), prints help, runs it, and
// turns every failure into a message on stderr and an exit code (./exit-codes.ts).
import { parseArgs } from "node:util";

import { DEFAULT_URL, FleetClient } from "./client";
import { name, type CommandSpec, type Context, type OptionSpec, type OptionValues } from "./command";
import { configGet, configPatch } from "./commands/config";
import { bulkCancel, bulkList, bulkPreview, bulkStart, bulkStatus } from "./commands/bulk";
import { deadDelete, deadRequeue } from "./commands/dead";
import { queuesList, queuesShow } from "./commands/queues";
import { deadSearch, search } from "./commands/search";
import { tail } from "./commands/tail";
import { workersList, workersRemove, workersShow } from "./commands/workers";
import { CliError, EXIT, UsageError, type ExitCode } from "./exit-codes";

export const COMMANDS: CommandSpec[] = [
  workersList,
  workersShow,
  workersRemove,
  queuesList,
  queuesShow,
  search,
  deadSearch,
  deadRequeue,
  deadDelete,
  bulkPreview,
  bulkStart,
  bulkStatus,
  bulkList,
  bulkCancel,
  configGet,
  configPatch,
  tail,
];

const GROUPS: Record<string, string> = {
  workers: "Workers: list, show, remove",
  queues: "Queues: list, show",
  search: "Find a queue's tasks by text and fields",
  dead: "Dead letters: search, requeue, delete",
  bulk: "Act on a search's matches on the console: preview, start, status, list, cancel",
  config: "Worker config: get, patch (with If-Match)",
  tail: "Follow the live events",
};

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  url: { type: "string", value: "URL", description: `the console (default $FLEET_URL, else ${DEFAULT_URL})` },
  "token-file": { type: "string", value: "PATH", description: "read the API token from this file instead of $FLEET_TOKEN" },
  json: { type: "boolean", description: "print JSON (the API's answers) instead of tables" },
  timeout: { type: "string", value: "SECONDS", description: "give up waiting for an answer after this long (default 30)" },
  help: { type: "boolean", short: "h", description: "show help" },
};

const EXIT_HELP = `Exit codes:
  0  ok
  1  error (the console refused the request or failed, or answered something unexpected)
  2  usage (unknown command or option, bad argument, bad FLEET_URL or FLEET_TOKEN)
  3  not found (no such worker or queue; dead-letter refs no longer there; a bulk job's matches gone meanwhile)
  4  conflict or precondition failed (a stale --if-match, a conflicting write, a bulk job cancelled or --expect not met)
  5  unauthorized or forbidden (no valid token, or a role too low)
  6  unavailable (the console or its Redis cannot be reached, answers 503 or 429, or times out)`;

const ENV_HELP = `Environment:
  FLEET_URL    the console, e.g. http://127.0.0.1:3000 (or --url)
  FLEET_TOKEN  an API token (FLEET_AUTH_TOKENS on the console; \`pnpm hash-password --token <name> <role>\`).
               Never printed. Not needed when the console runs without authentication.`;

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([key, o]) => {
    const left = `${o.short ? `-${o.short}, ` : "    "}--${key}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
    return [left, `${o.description}${o.multiple ? " (repeatable)" : ""}`] as const;
  });
  const w = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(w)}  ${r}`);
}

function wrap(text: string, width = 96): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = "";
  for (const w of words) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.join("\n");
}

export function commandHelp(cmd: CommandSpec): string {
  const parts = [`usage: fleet ${name(cmd)}${cmd.args ? ` ${cmd.args}` : ""} [options]`, "", `${cmd.summary}.`];
  if (cmd.description) parts.push("", wrap(cmd.description));
  if (Object.keys(cmd.options).length > 0) parts.push("", "Options:", ...optionLines(cmd.options));
  parts.push("", "Global options:", ...optionLines(GLOBAL_OPTIONS));
  if (cmd.examples && cmd.examples.length > 0) parts.push("", "Examples:", ...cmd.examples.map((e) => `  ${e}`));
  parts.push("", EXIT_HELP);
  return parts.join("\n");
}

function groupHelp(group: string): string {
  const cmds = COMMANDS.filter((c) => c.words[0] === group);
  const w = Math.max(...cmds.map((c) => name(c).length + (c.args ? c.args.length + 1 : 0)));
  return [
    `usage: fleet ${group} <command> [options]`,
    "",
    `${GROUPS[group] ?? group}.`,
    "",
    "Commands:",
    ...cmds.map((c) => `  ${`${name(c)}${c.args ? ` ${c.args}` : ""}`.padEnd(w)}  ${c.summary}`),
    "",
    `Run \`fleet ${group} <command> --help\` for its options.`,
  ].join("\n");
}

export function mainHelp(): string {
  const w = Math.max(...COMMANDS.map((c) => name(c).length + (c.args ? c.args.length + 1 : 0)));
  return [
    "usage: fleet <command> [options]",
    "",
    "The Fleet Console's HTTP API from a terminal or a script: tables for people, --json for scripts,",
    "exit codes to act on.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${`${name(c)}${c.args ? ` ${c.args}` : ""}`.padEnd(w)}  ${c.summary}`),
    "",
    "Global options:",
    ...optionLines(GLOBAL_OPTIONS),
    "",
    ENV_HELP,
    "",
    EXIT_HELP,
    "",
    "Run `fleet <command> --help` for a command's options.",
  ].join("\n");
}

export interface Io {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  readFile(path: string): Promise<string>;
  /** Asks on a terminal; absent when not on one (a command that must ask then needs --yes). */
  confirm?: (question: string) => Promise<boolean>;
}

/** The global options that take a value: their value is not a command word. */
const VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, o]) => o.type === "string")
    .map(([k]) => `--${k}`),
);

const hasSubcommands = (group: string) => COMMANDS.some((c) => c.words[0] === group && c.words.length > 1);

/** The command's words (`workers list`) and the arguments without them. */
function findCommand(argv: string[]): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (a.startsWith("-") && a !== "-") {
      rest.push(a);
      // a global option's value (`--url http://…`) is not a command word
      if (VALUE_OPTIONS.has(a) && i + 1 < argv.length) rest.push(argv[++i]!);
      continue;
    }
    if (words.length === 0) {
      words.push(a);
      // `fleet help workers list`: the words to explain
      if (a === "help") return { words: [a, ...argv.slice(i + 1).filter((x) => !x.startsWith("-"))], rest };
    } else if (words.length === 1 && hasSubcommands(words[0]!)) words.push(a);
    else rest.push(a);
  }
  return { words, rest };
}

export async function run(io: Io): Promise<ExitCode> {
  // `pnpm fleet -- workers list` may hand the `--` on
  const argv = io.argv[0] === "--" ? io.argv.slice(1) : io.argv;
  let commandName: string | undefined;
  try {
    const { words, rest } = findCommand(argv);
    if (words[0] === "help") return help(io, words.slice(1));
    if (words.length === 0) {
      if (rest.includes("--help") || rest.includes("-h")) {
        io.stdout(mainHelp());
        return EXIT.OK;
      }
      io.stderr(argv.length === 0 ? mainHelp() : `fleet: no command given\n\n${mainHelp()}`);
      return EXIT.USAGE;
    }
    const group = words[0]!;
    const cmd = COMMANDS.find((c) => c.words.length === words.length && c.words.every((w, i) => w === words[i]));
    if (!cmd) {
      if (GROUPS[group] && words.length === 1) {
        if (rest.includes("--help") || rest.includes("-h")) {
          io.stdout(groupHelp(group));
          return EXIT.OK;
        }
        io.stderr(`fleet ${group}: which one?\n\n${groupHelp(group)}`);
        return EXIT.USAGE;
      }
      const known = GROUPS[group] ? `; \`fleet ${group} --help\` lists its commands` : "; `fleet --help` lists the commands";
      throw new UsageError(`unknown command: ${words.join(" ")}${known}`);
    }
    commandName = name(cmd);
    let parsed: { values: OptionValues; positionals: string[] };
    try {
      parsed = parseArgs({
        args: rest,
        options: { ...GLOBAL_OPTIONS, ...cmd.options },
        allowPositionals: true,
        strict: true,
      }) as { values: OptionValues; positionals: string[] };
    } catch (err) {
      throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ""), commandName);
    }
    if (parsed.values.help === true) {
      io.stdout(commandHelp(cmd));
      return EXIT.OK;
    }
    const args = parsed.positionals;
    if (args.length < cmd.positionals.min) throw new UsageError(`missing argument${cmd.args ? `: fleet ${commandName} ${cmd.args}` : ""}`, commandName);
    if (args.length > cmd.positionals.max) throw new UsageError(`unexpected argument ${JSON.stringify(args[cmd.positionals.max])}`, commandName);
    const empty = args.find((a) => a === "");
    if (empty !== undefined) throw new UsageError("an argument is empty", commandName);

    const timeoutText = typeof parsed.values.timeout === "string" ? parsed.values.timeout : undefined;
    const timeoutSeconds = timeoutText === undefined ? 30 : Number(timeoutText);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
      throw new UsageError(`--timeout must be a positive number of seconds, got ${JSON.stringify(timeoutText)}`, commandName);
    let token = io.env.FLEET_TOKEN;
    const tokenFile = parsed.values["token-file"];
    if (typeof tokenFile === "string") {
      try {
        token = await io.readFile(tokenFile);
      } catch (err) {
        throw new UsageError(`cannot read --token-file ${tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, commandName);
      }
    }
    const client = new FleetClient({
      url: typeof parsed.values.url === "string" ? parsed.values.url : io.env.FLEET_URL || DEFAULT_URL,
      token,
      timeoutMs: timeoutSeconds * 1000,
    });
    const ctx: Context = {
      args,
      opts: parsed.values,
      json: parsed.values.json === true,
      client,
      out: (t) => io.stdout(t),
      err: (t) => io.stderr(t),
      readStdin: () => io.readStdin(),
      ...(io.confirm ? { confirm: io.confirm } : {}),
      cwd: io.cwd,
    };
    return await cmd.run(ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      const where = err.command ?? commandName;
      io.stderr(`fleet${where ? ` ${where}` : ""}: ${err.message}\n(see \`fleet ${where ? `${where} ` : ""}--help\`)`);
      return err.exitCode;
    }
    if (err instanceof CliError) {
      io.stderr(`fleet${commandName ? ` ${commandName}` : ""}: ${err.message}`);
      return err.exitCode;
    }
    // a bug of this CLI: say so, without a stack full of internals
    io.stderr(`fleet${commandName ? ` ${commandName}` : ""}: unexpected failure: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.ERROR;
  }
}

function help(io: Io, words: string[]): ExitCode {
  if (words.length === 0) {
    io.stdout(mainHelp());
    return EXIT.OK;
  }
  const cmd = COMMANDS.find((c) => c.words.join(" ") === words.join(" "));
  if (cmd) {
    io.stdout(commandHelp(cmd));
    return EXIT.OK;
  }
  if (words.length === 1 && GROUPS[words[0]!]) {
    io.stdout(groupHelp(words[0]!));
    return EXIT.OK;
  }
  io.stderr(`fleet help: unknown command: ${words.join(" ")}\n\n${mainHelp()}`);
  return EXIT.USAGE;
}
