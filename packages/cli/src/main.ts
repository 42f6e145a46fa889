// The `fleet` process: arguments, environment and streams in, an exit code out.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline/promises";

import { run } from "./cli";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A yes/no question on the terminal (stderr), answered on stdin: only "y" or "yes" says yes. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

// `pnpm fleet` runs in the repository's root; relative paths mean the directory it was started in.
const cwd = process.env.INIT_CWD ?? process.cwd();

const code = await run({
  argv: process.argv.slice(2),
  env: process.env,
  cwd,
  stdout: (t) => process.stdout.write(`${t}\n`),
  stderr: (t) => process.stderr.write(`${t}\n`),
  readStdin,
  readFile: (p) => readFile(path.resolve(cwd, p), "utf8"),
  ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm } : {}),
});
// let stdout drain before the exit (a pipe into jq or head)
process.exitCode = code;
