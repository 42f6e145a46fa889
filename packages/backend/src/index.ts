// The contract only: importing this never loads ioredis.
export type * from "./types";
export type * from "./watch-types";
export * from "./keys";
export * from "./errors";
export * from "./pyjson";
export * from "./codec";
export * from "./pyjson-parse";
export * from "./task-body";
export * from "./queue-bounds";
export * from "./discovery/name-discovery";
export * from "./discovery/note-writes";
export { AUDIT_CHANGES_STEP, QUEUE_SCAN_MAX } from "./types";
