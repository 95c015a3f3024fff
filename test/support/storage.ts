/** The connection string of the Azurite started by global-setup, and unique names so tests never collide. */
import { randomUUID } from 'node:crypto';

export function testConnectionString(): string {
  const connectionString = process.env.SIGNALBOX_TEST_STORAGE;
  if (!connectionString) throw new Error('SIGNALBOX_TEST_STORAGE is not set: run the tests through jest (global-setup starts Azurite)');
  return connectionString;
}

/** A table-name-safe unique prefix (letters and digits, starting with a letter). */
export function uniquePrefix(label = 't'): string {
  return `${label}${randomUUID().replace(/-/g, '').slice(0, 10)}`;
}
