/** The health route answers 503 problem+json when storage does not answer (the route, without a server). */
import { routes } from '../../src/host/http/routes';
import type { ApiRequest, ApiServices } from '../../src/host/http/types';

const health = routes.find((route) => route.name === 'health')!;
const request: ApiRequest = { method: 'GET', url: new URL('http://localhost/api/health'), params: {}, headers: { get: () => null }, bodyText: undefined, tenantId: 'default' };

function servicesWith(checkHealth: () => Promise<boolean>): ApiServices {
  return { checkHealth } as unknown as ApiServices;
}

describe('GET /api/health', () => {
  it('is 200 { status: ok } when storage answers', async () => {
    expect(
      await health.handle(
        request,
        servicesWith(async () => true),
      ),
    ).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it.each([
    ['answers false', async () => false],
    ['throws', async () => Promise.reject(new Error('ECONNREFUSED'))],
  ])('is 503 problem+json with Retry-After when the storage check %s', async (_label, checkHealth) => {
    const response = await health.handle(request, servicesWith(checkHealth));
    expect(response.status).toBe(503);
    expect(response.headers).toMatchObject({ 'content-type': 'application/problem+json', 'retry-after': '1' });
    expect(response.body).toMatchObject({ status: 503, title: 'Unhealthy' });
  });
});
