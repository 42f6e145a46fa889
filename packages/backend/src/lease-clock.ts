// The clock of leases (a reservation's deadline names it), shared by both implementations.

/**
 * Now, for deadlines that serve as leases: strictly increasing in this process (a reservation
 * made in the same millisecond as the last one gets a microsecond more), and offset by a fixed
 * random fraction of a millisecond per process, so that two processes reserving one task in
 * the same millisecond (a sweep between them) still get different leases.
 */
const LEASE_OFFSET_SECONDS = Math.floor(Math.random() * 1000) / 1_000_000;
let lastLeaseNow = 0;
export function leaseNowSeconds(): number {
  let t = Date.now() / 1000 + LEASE_OFFSET_SECONDS;
  if (t <= lastLeaseNow) t = lastLeaseNow + 0.000001;
  lastLeaseNow = t;
  return t;
}
