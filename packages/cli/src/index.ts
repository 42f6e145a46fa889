// @fleet/cli: the `fleet` command (bin/fleet.mjs). Exported for tests and for scripts that
// would rather call it in process.
export { run, COMMANDS, commandHelp, mainHelp, type Io } from "./cli";
export { FleetClient, type ClientOptions } from "./client";
export { EXIT, CliError, UsageError, exitCodeForStatus } from "./exit-codes";
