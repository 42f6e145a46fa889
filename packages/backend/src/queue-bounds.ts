// Bounds on what one reserve does inside Redis (issue 11: no single script may stall the
// fleet), shared by both implementations so that they move the same bodies per reserve.

/**
 * The largest body whose task id the reserve script reads in Redis (src/lua/reserve-6.lua).
 * Its JSON reader costs about a microsecond per token; 8 KiB of the worst shapes (a number
 * or an escaped key every two bytes) ran 2-4 ms on a loaded two-core machine. A larger body
 * is registered under a provisional id and its id read in Node (reserve-settle-2.lua).
 */
export const RESERVE_LUA_PARSE_MAX_BYTES = 8 * 1024;

/** Due `:scheduled` retries one reserve moves back onto the normal list, at most. */
export const SCHEDULED_DRAIN_MAX = 1000;

/** ... and about this many bytes of them: the chunk stops once it has moved this much. */
export const SCHEDULED_DRAIN_MAX_BYTES = 1024 * 1024;

/** What a provisional registration's id starts with (then 32 random hex digits, fresh per reserve): recognisable in a listing of reservations, and never the id of another task in practice. */
export const PROVISIONAL_TASK_ID_PREFIX = "fleet-reserving:";
