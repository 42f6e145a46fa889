// Exit codes of `fleet`, for scripts (README.md, "Exit codes"). Fixed: add, never renumber.
export const EXIT = {
  /** It worked. */
  OK: 0,
  /** Any other failure: the console refused the request (400, 422...), answered what this CLI does not understand, or failed (500). */
  ERROR: 1,
  /** The command line is wrong: unknown command or option, a missing or malformed argument, a bad FLEET_URL or FLEET_TOKEN. */
  USAGE: 2,
  /** The worker, queue, dead letter... does not exist (404, or refs no longer there). */
  NOT_FOUND: 3,
  /** Someone else's change won: a stale If-Match (412) or a conflicting write (409). */
  CONFLICT: 4,
  /** No valid token (401) or a role too low for this (403). */
  UNAUTHORIZED: 5,
  /** The console or its Redis cannot be reached, answers 503, throttles (429) or gives no answer in time. */
  UNAVAILABLE: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of an HTTP error status. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.UNAUTHORIZED;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 409 || status === 412) return EXIT.CONFLICT;
  if (status === 429 || status === 502 || status === 503 || status === 504) return EXIT.UNAVAILABLE;
  return EXIT.ERROR;
}

/** A failure with the exit code it ends the process with; its message is for people. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  override name = "UsageError";
  constructor(
    message: string,
    /** The command whose help to point at, e.g. "workers list". */
    readonly command?: string,
  ) {
    super(message, EXIT.USAGE);
  }
}
