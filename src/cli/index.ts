/** @module The command line's public surface: run it, or reuse its API client. */
export { runCli } from './main';
export { ApiClient, type ApiClientOptions } from './api';
export { ExitCode } from './errors';
