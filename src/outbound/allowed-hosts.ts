/**
 * @module Which hosts and addresses the allow-list admits. Entries are exact host names, IP addresses,
 * or `*.suffix` (any subdomain, never an IP address). Names that mean this machine (`localhost`,
 * `127.x`, `::1`) and, once resolved, any address that is not public unicast (loopback, private,
 * link-local, unique-local, CGNAT, reserved, ...) pass only when that name or address is listed exactly,
 * so a wildcard can never open the local machine or the private network.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
}

function normalizedEntries(allowedHosts: readonly string[]): string[] {
  return allowedHosts.map(normalizeHost).filter(Boolean);
}

export function isLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === '0.0.0.0' || host === '::';
}

/** True when `hostOrAddress` is an entry of the list as it is (wildcards do not count). */
export function isListedExactly(hostOrAddress: string, allowedHosts: readonly string[]): boolean {
  const host = normalizeHost(hostOrAddress);
  if (normalizedEntries(allowedHosts).includes(host)) return true;
  // An address may be written in another form than the entry (`::ffff:10.0.0.1` for `10.0.0.1`).
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host).toString();
  return normalizedEntries(allowedHosts).some((entry) => ipaddr.isValid(entry) && ipaddr.process(entry).toString() === address);
}

/** The allow-list by name: checked before any request, on the URL's host. */
export function isHostAllowed(url: URL, allowedHosts: readonly string[]): boolean {
  const host = normalizeHost(url.hostname);
  if (isListedExactly(host, allowedHosts)) return true;
  if (isLoopbackHost(host) || isIP(host) !== 0) return false;
  return normalizedEntries(allowedHosts).some((entry) => entry.startsWith('*.') && host.endsWith(entry.slice(1)) && host.length > entry.length - 1);
}

/** Public unicast: the addresses any listed name may resolve to. IPv4-mapped IPv6 counts as its IPv4. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Where a connection may go once `hostname` resolved to `address`. */
export function isAddressAllowed(hostname: string, address: string, allowedHosts: readonly string[]): boolean {
  return isPublicAddress(address) || isListedExactly(hostname, allowedHosts) || isListedExactly(address, allowedHosts);
}
