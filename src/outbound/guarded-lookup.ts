/**
 * @module The DNS lookup of every outbound connection. It resolves the name and refuses the connection
 * when any address it got is not public (loopback, private, link-local, ...) unless the name or that
 * address is listed exactly. It runs inside the socket's connect, for each connection, so a name that
 * passed the allow-list and later resolves elsewhere (DNS rebinding) is still refused. IP literals
 * skip DNS: the allow-list policy admits them only when listed exactly. An IPv6 literal reaches the
 * lookup in its URL form, in brackets (the HTTP client passes the URL's hostname): it is unbracketed
 * first, since `getaddrinfo("[::1]")` finds nothing.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isAddressAllowed } from './allowed-hosts';

/** `dns.lookup` with `all: true`, the shape the guard needs; injectable so tests can play a resolver. */
export type ResolveAll = (hostname: string, options: LookupAllOptions, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** The code of a refused connection: not retried (the answer would be the same). */
export const ADDRESS_REFUSED = 'ERR_SIGNALBOX_ADDRESS_REFUSED';

export function guardedLookup(allowedHosts: readonly string[], resolveAll: ResolveAll = dnsLookup): LookupFunction {
  return (host, options, callback) => {
    const hostname = /^\[.*\]$/.test(host) ? host.slice(1, -1) : host;
    resolveAll(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.find(({ address }) => !isAddressAllowed(hostname, address, allowedHosts));
      if (refused || addresses.length === 0) {
        const reason = refused
          ? `"${hostname}" resolves to ${refused.address}, which is not a public address; list "${hostname}" or ${refused.address} exactly in SIGNALBOX_ALLOWED_HOSTS to allow it`
          : `"${hostname}" resolves to no address`;
        return callback(Object.assign(new Error(reason), { code: ADDRESS_REFUSED }), '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
