/**
 * @module The console's entry point. The API is on the same origin under /api: the local server serves
 * both, and on Azure the console function and the API functions share the app's host. Before the first
 * page, the console asks the server how to sign in (GET /api/console-config) and, coming back from the
 * provider, redeems the code; a server that names no authority gets the key field only, as before.
 */
import { render } from 'preact';
import { createHttpConsoleApi, type ConsoleConfig } from './api/console-api';
import { App } from './app';
import { readApiKey, writeApiKey } from './lib/api-key-store';
import { createSignIn, type SignedInUser, type SignIn } from './lib/sign-in';
import './styles.css';

const baseUrl = `${window.location.origin}/api`;
const createApi = (apiKey: () => string | undefined, accessToken: () => string | undefined, tenant?: string) => createHttpConsoleApi({ baseUrl, apiKey, accessToken, ...(tenant ? { tenant } : {}) });

async function start(): Promise<void> {
  let config: ConsoleConfig = { keys: true };
  let signIn: SignIn | undefined;
  let user: SignedInUser | undefined;
  try {
    config = await createApi(
      () => undefined,
      () => undefined,
    ).getConsoleConfig();
  } catch (error) {
    // The pages still work with a key; each shows the API's problem if the API is down.
    console.warn('The console could not read its sign-in settings', error);
  }
  if (config.signIn) {
    signIn = createSignIn(config.signIn, `${window.location.origin}${window.location.pathname}`);
    try {
      user = await signIn.restore();
    } catch (error) {
      console.warn('Signing in did not complete', error);
    }
  }
  render(
    <App
      createApi={createApi}
      initialApiKey={readApiKey()}
      onApiKeyChange={(key) => writeApiKey(key)}
      keys={config.keys}
      {...(user ? { initialUser: user } : {})}
      {...(signIn ? { onSignIn: (returnTo: string) => void signIn.start(returnTo), onSignOut: () => void signIn.forget() } : {})}
    />,
    document.getElementById('app')!,
  );
}

void start();
