/**
 * @module The console's entry point. The API is on the same origin under /api: the local server serves
 * both, and on Azure the console function and the API functions share the app's host.
 */
import { render } from 'preact';
import { createHttpConsoleApi } from './api/console-api';
import { App } from './app';
import { readApiKey, writeApiKey } from './lib/api-key-store';
import './styles.css';

const createApi = (apiKey: () => string | undefined) => createHttpConsoleApi({ baseUrl: `${window.location.origin}/api`, apiKey });

render(<App createApi={createApi} initialApiKey={readApiKey()} onApiKeyChange={(key) => writeApiKey(key)} />, document.getElementById('app')!);
