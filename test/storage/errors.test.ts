/** Storage failures surface as the engine's typed errors, never as a RestError or a corrupted value. */
import { onePage } from '../../src/engine/ports';
import { RestError } from '@azure/data-tables';
import { ConflictError, NotFoundError, PreconditionFailedError, SignalboxError, StorageError, TooLargeError, ValidationError, isRetryable } from '../../src/engine/model';
import { StorageBeingDeletedError, toSignalboxError } from '../../src/storage/errors';
import { MAX_ENTITY_BYTES } from '../../src/storage/entity-body';
import { TableInstanceStore } from '../../src/storage/table-instance-store';
import { createTestStorage, makeDefinition, makeInstance, makeOperation } from './fixtures';

describe('toSignalboxError', () => {
  const rest = (statusCode: number | undefined, code?: string, message = 'failed') => new RestError(message, { ...(statusCode !== undefined && { statusCode }), ...(code && { code }) });

  it.each([
    [404, undefined, NotFoundError, false],
    [409, undefined, ConflictError, false],
    [412, undefined, PreconditionFailedError, true],
    [413, undefined, TooLargeError, false],
    [400, 'PropertyValueTooLarge', TooLargeError, false],
    [400, 'EntityTooLarge', TooLargeError, false],
    [404, 'TableNotFound', StorageError, false],
    [404, 'ContainerNotFound', StorageError, false],
    [409, 'TableBeingDeleted', StorageBeingDeletedError, true],
    [409, 'ContainerBeingDeleted', StorageBeingDeletedError, true],
    [400, 'InvalidInput', StorageError, false],
    [403, 'AuthorizationFailure', StorageError, false],
    [429, undefined, StorageError, true],
    [500, undefined, StorageError, true],
    [503, 'ServerBusy', StorageError, true],
    [undefined, 'REQUEST_SEND_ERROR', StorageError, true],
  ])('maps %s %s to %p (retryable: %s)', (statusCode, code, type, retryable) => {
    const error = toSignalboxError(rest(statusCode, code), 'thing "x"');
    expect(error).toBeInstanceOf(type);
    expect(isRetryable(error)).toBe(retryable);
    if (error instanceof StorageError) expect(error.statusCode).toBe(statusCode);
  });

  it('reads the service code from the body when Azurite leaves RestError.code undefined', () => {
    const error = rest(404, undefined, '{"odata.error":{"code":"TableNotFound","message":{"value":"The table specified does not exist."}}}');
    expect(toSignalboxError(error, 'x')).toBeInstanceOf(StorageError);
  });

  it('passes SignalboxErrors and non-Azure errors through untouched', () => {
    const own = new ConflictError('mine');
    const bug = new TypeError('a bug');
    expect(toSignalboxError(own, 'x')).toBe(own);
    expect(toSignalboxError(bug, 'x')).toBe(bug);
  });
});

describe('typed errors from the Azure stores', () => {
  it('a store without a context container refuses an instance over 1 MiB as Table Storage counts it (UTF-16), and accepts one just under', async () => {
    // Without a container for large records (createAzureStorage always gives one) the row must fit an entity.
    const instances = new TableInstanceStore((await createTestStorage()).clients.instances);
    // 2 bytes per character: about 480,000 characters fit, 530,000 do not.
    await expect(instances.create(makeInstance('fits', { context: { text: 'a'.repeat(480_000) } }))).resolves.toMatchObject({ id: 'fits' });
    const error = await instances.create(makeInstance('too-big', { context: { text: 'a'.repeat(530_000) } })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TooLargeError);
    expect((error as Error).message).toMatch(new RegExp(`instance "too-big" is too large.*at most ${MAX_ENTITY_BYTES}`));
    expect(await instances.get('too-big')).toBeUndefined();
    expect((await instances.get('fits'))?.context.text).toHaveLength(480_000);
  });

  it('refuses ids that cannot be keys with ValidationError before writing anything', async () => {
    const storage = await createTestStorage();
    const longId = 'x'.repeat(600);
    await expect(storage.instances.create(makeInstance(longId))).rejects.toBeInstanceOf(ValidationError);
    await expect(storage.instances.get(longId)).rejects.toBeInstanceOf(ValidationError);
    await expect(storage.operations.create(makeOperation('\uDC00'))).rejects.toBeInstanceOf(ValidationError);
    await expect(storage.interests.add(longId, ['s'])).rejects.toBeInstanceOf(ValidationError);
    expect((await onePage(storage.instances.query({}))).items).toEqual([]);
  });

  it('refuses continuation tokens from elsewhere with ValidationError', async () => {
    const storage = await createTestStorage();
    for (const id of ['p1', 'p2', 'p3']) await storage.instances.create(makeInstance(id));
    const page = await onePage(storage.instances.query({}, { maxPageSize: 1 }));
    expect(page.continuationToken).toEqual(expect.any(String));
    const bad = ['%%%', 'e30', Buffer.from('{"t":"garbage"}').toString('base64url')];
    for (const continuationToken of bad) {
      await expect(onePage(storage.instances.query({}, { continuationToken }))).rejects.toBeInstanceOf(ValidationError);
      await expect(onePage(storage.interests.findCandidates(['s'], { continuationToken }))).rejects.toBeInstanceOf(ValidationError);
    }
    // A query token is not a candidate token.
    await expect(onePage(storage.interests.findCandidates(['s'], { continuationToken: page.continuationToken! }))).rejects.toBeInstanceOf(ValidationError);
    const rest = await onePage(storage.instances.query({}, { continuationToken: page.continuationToken! }));
    expect([...page.items, ...rest.items].map((item) => item.id).sort()).toEqual(['p1', 'p2', 'p3']);
  });

  it('reports deleted tables as non-retryable StorageErrors from every store, never as absent data', async () => {
    const storage = await createTestStorage();
    await storage.workflows.create(makeDefinition('w'), { createdAt: new Date() });
    await Promise.all([storage.clients.workflows.deleteTable(), storage.clients.instances.deleteTable(), storage.clients.interests.deleteTable(), storage.clients.operations.deleteTable()]);
    const calls: (() => Promise<unknown>)[] = [
      () => storage.workflows.get('w'),
      () => onePage(storage.workflows.list()),
      () => storage.workflows.update(makeDefinition('w'), { ifMatch: '*', createdAt: new Date() }),
      () => storage.instances.get('i'),
      () => storage.instances.create(makeInstance('i')),
      () => storage.instances.save(makeInstance('i'), {}, { ifMatch: '*' }),
      () => onePage(storage.history.list('i')),
      () => onePage(storage.interests.findCandidates(['s'])),
      () => storage.interests.add('i', ['s']),
      () => storage.interests.remove('i', ['s']),
      () => storage.operations.create(makeOperation('o')),
      () => storage.operations.get('o'),
      () => onePage(storage.operations.listByStatus(['running'])),
    ];
    for (const call of calls) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ code: 'storage', retryable: false });
      expect((error as Error).name).not.toBe('RestError');
    }
  });

  it('never lets a RestError escape a store', async () => {
    const storage = await createTestStorage();
    const created = await storage.instances.create(makeInstance('etag'));
    await storage.instances.save(makeInstance('etag', { context: { count: 1 } }), {}, { ifMatch: created.etag });
    const errors = await Promise.all(
      [
        () => storage.instances.save(makeInstance('etag'), {}, { ifMatch: created.etag }),
        () => storage.instances.create(makeInstance('etag')),
        () => storage.workflows.update(makeDefinition('nope'), { ifMatch: '*', createdAt: new Date() }),
        () => storage.operations.update(makeOperation('nope')),
      ].map((call) =>
        call().then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      ),
    );
    expect(errors.map((error) => (error as SignalboxError).constructor)).toEqual([PreconditionFailedError, ConflictError, NotFoundError, NotFoundError]);
  });
});
