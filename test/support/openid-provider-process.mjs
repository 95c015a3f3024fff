/**
 * A real OpenID Provider on loopback for the console's sign-in tests: `oidc-provider` (a certified
 * OpenID Provider), run as its own process because it is ESM only (see openid-provider.ts). It issues JWT
 * access tokens for one API audience carrying `name` and `roles`, as Microsoft Entra ID does for an API
 * with app roles, to one public client (a single-page app: no secret, PKCE required).
 *
 * Protocol on stdio, one JSON object a line: it prints `{ "issuer" }` once it listens, reads
 * `{ clientId, redirectUri, audience, scope, users }` (users: login -> { name, roles }), prints
 * `{ "ready": true }`. The login page is a form of its own (login name, any password: oidc-provider's
 * development form loads a web font from the internet); consent is given automatically, as an
 * organisation's admin consent would.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { exportJWK, generateKeyPair } from 'jose';

// By hand (docs/guides/identity.md, "Signing in to the console"): the whole configuration as the argument, `port` included.
const givenConfig = process.argv[2] ? JSON.parse(process.argv[2]) : undefined;
let handle = (_request, response) => response.writeHead(503).end();
const server = createServer((request, response) => handle(request, response));
server.listen(givenConfig?.port ?? 0, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;
process.stdout.write(`${JSON.stringify({ issuer })}\n`);

const { clientId, redirectUri, audience, scope, users } = givenConfig ?? JSON.parse((await once(createInterface({ input: process.stdin }), 'line'))[0]);

const { default: Provider, errors } = await import('oidc-provider');
const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), kid: 'openid-provider-test-key', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [{ client_id: clientId, token_endpoint_auth_method: 'none', redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'] }],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['signalbox-openid-provider-test'] },
  pkce: { required: () => true },
  claims: { openid: ['sub'], profile: ['name'] },
  async findAccount(_ctx, accountId) {
    const user = users[accountId];
    return user ? { accountId, claims: async () => ({ sub: accountId, name: user.name }) } : undefined;
  },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo(_ctx, resource) {
        if (resource !== audience) throw new errors.InvalidTarget();
        return { scope, audience, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  // The API reads who and which app roles from the access token, as from Entra ID's.
  extraTokenClaims(_ctx, token) {
    const user = users[token.accountId];
    return token.kind === 'AccessToken' && user ? { name: user.name, roles: user.roles } : undefined;
  },
  // Consent given once the user has signed in: the test's users have agreed to everything.
  async loadExistingGrant(ctx) {
    const { session, client } = ctx.oidc;
    const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    if (!session.accountId) return undefined;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    grant.addOIDCScope('openid profile');
    grant.addResourceScope(audience, scope);
    await grant.save();
    session.grantIdFor(client.clientId, grant.jti);
    return grant;
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  clientBasedCORS: (_ctx, origin, client) => client.redirectUris.some((uri) => new URL(uri).origin === origin),
});
const answerProvider = provider.callback();

/** The login form, and its answer: the account is the login name, if it is one of `users`. */
async function interaction(request, response) {
  const details = await provider.interactionDetails(request, response);
  if (request.method === 'GET') {
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title><link rel="icon" href="data:,"></head><body>
<h1>Sign in</h1><form method="post" action="/interaction/${details.uid}">
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign-in</button></form></body></html>`;
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    return;
  }
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const login = new URLSearchParams(Buffer.concat(chunks).toString()).get('login') ?? '';
  const result = users[login] ? { login: { accountId: login } } : { error: 'access_denied', error_description: 'unknown user' };
  await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: false });
}

handle = (request, response) => {
  if (!request.url.startsWith('/interaction/')) return answerProvider(request, response);
  interaction(request, response).catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    if (!response.headersSent) response.writeHead(500).end();
  });
};
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
