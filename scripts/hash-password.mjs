#!/usr/bin/env node
// `pnpm hash-password`: prints a password hash for FLEET_AUTH_USERS
//   (scrypt$N$r$p$salt$hash, node's built-in scrypt: the format the console checks).
// The password is read from the terminal without echo, or from stdin when piped:
//   printf %s 'secret' | pnpm hash-password
// `pnpm hash-password --token [name] [role]` makes a new random API token instead and
// prints it once, with the FLEET_AUTH_TOKENS entry that holds only its SHA-256.
import { createHash, randomBytes, scrypt } from "node:crypto";
import { stdin, stdout, stderr, exit } from "node:process";

const N = 1 << 15;
const r = 8;
const p = 1;

function hash(password) {
  return new Promise((resolve, reject) => {
    const salt = randomBytes(16);
    scrypt(password.normalize("NFC"), salt, 32, { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(`scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`),
    );
  });
}

async function readPiped() {
  let data = "";
  for await (const chunk of stdin) data += chunk;
  return data.replace(/\r?\n$/, "");
}

function readHidden(prompt) {
  return new Promise((resolve) => {
    stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    let value = "";
    const onData = (s) => {
      for (const ch of s) {
        if (ch === "\r" || ch === "\n") {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off("data", onData);
          stderr.write("\n");
          resolve(value);
          return;
        }
        if (ch === "\u0003") {
          stderr.write("\n");
          exit(130);
        }
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

const args = process.argv.slice(2).filter((a) => a !== "--");
if (args[0] === "--help" || args[0] === "-h") {
  stdout.write("usage: pnpm hash-password            (prompts; or pipe the password on stdin)\n       pnpm hash-password --token [name] [role]\n");
  exit(0);
}

if (args[0] === "--token") {
  const name = args[1] ?? "script";
  const role = args[2] ?? "viewer";
  if (!["viewer", "operator", "admin"].includes(role)) {
    stderr.write("role must be viewer, operator or admin\n");
    exit(2);
  }
  const token = randomBytes(32).toString("base64url");
  const digest = createHash("sha256").update(token, "utf8").digest("hex");
  stderr.write("The token (shown once; give it to the script, as 'Authorization: Bearer <token>'):\n");
  stdout.write(`${token}\n`);
  stderr.write("Its FLEET_AUTH_TOKENS entry (holds only the SHA-256):\n");
  stdout.write(`${name}:${role}:${digest}\n`);
  exit(0);
}

let password;
if (stdin.isTTY) {
  password = await readHidden("Password: ");
  const again = await readHidden("Again: ");
  if (again !== password) {
    stderr.write("The two passwords differ.\n");
    exit(1);
  }
} else {
  password = await readPiped();
}
if (password.length === 0) {
  stderr.write("An empty password cannot be hashed.\n");
  exit(1);
}
if (password.length < 12) stderr.write("warning: a password under 12 characters is easy to guess.\n");
stdout.write(`${await hash(password)}\n`);
