/** @module The LeaseProvider contract's one argument check, shared by every provider so they fail alike. */

/**
 * Throws a RangeError (the Azure SDK's error for a bad argument) unless `seconds` is an integer from 15
 * to 60, or -1 (infinite), as Blob Storage leases allow.
 */
export function assertLeaseDuration(seconds: number): void {
  if (seconds === -1 || (Number.isInteger(seconds) && seconds >= 15 && seconds <= 60)) return;
  throw new RangeError(`leaseDurationInSeconds must be an integer from 15 to 60, or -1, not ${seconds}`);
}
