/**
 * Every route declares what it answers (src/host/http/types.ts RouteContract), so the OpenAPI document
 * and the typed client describe it: a route added without a response schema fails here.
 */
import { buildOpenApiDocument } from '../../src/host/http/openapi';
import { routes } from '../../src/host/http/routes';

type Operation = { parameters?: { in: string; name: string }[]; requestBody?: unknown; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
const document = buildOpenApiDocument(routes) as { paths: Record<string, Record<string, Operation>> };

describe.each(routes.map((route) => [route.name, route] as const))('route %s', (_name, route) => {
  const operations = route.methods.map((method) => document.paths[`/${route.route}`]?.[method.toLowerCase()]);

  it('answers success with a schema for every body it returns', () => {
    const successes = Object.entries(route.contract.responses).filter(([status]) => Number(status) < 400);
    expect(successes.length).toBeGreaterThan(0);
    for (const [status, answer] of successes) {
      if (status === '204' || status === '304') continue;
      expect({ status, hasBody: typeof answer !== 'string' && answer.body !== undefined }).toEqual({ status, hasBody: true });
    }
    for (const operation of operations) {
      expect(operation).toBeDefined();
      for (const [status, answer] of Object.entries(operation!.responses)) {
        if (status === '204' || status === '304') continue;
        expect({ status, schema: Object.values(answer.content ?? {})[0]?.schema !== undefined }).toEqual({ status, schema: true });
      }
    }
  });

  it('declares its path parameters, the shared problem answers and (with a body) 413 and 415', () => {
    const placeholders = [...route.route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    for (const operation of operations) {
      expect(operation!.parameters?.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name) ?? []).toEqual(placeholders);
      const statuses = Object.keys(operation!.responses);
      expect(statuses).toContain('400');
      if (route.authLevel === 'function') expect(statuses).toContain('401');
      // A PUT creates what is missing; every other route with an id answers 404 for an unknown one.
      if (placeholders.length && !route.methods.includes('PUT')) expect(statuses).toContain('404');
      if (route.contract.body) expect(statuses).toEqual(expect.arrayContaining(['413', '415']));
      if (!route.contract.withoutStorage) expect(statuses).toContain('503');
    }
  });
});
