// `npm start`: parse configuration (a bad value stops the process with one line naming the
// variable), start the service, stop gracefully on SIGTERM/SIGINT.
import { startApp } from './app/app.js';
import { ConfigError, loadConfig } from './config/config.js';
import { nativeUwsProblem } from './http/uws-native.js';

const runtimeProblem = nativeUwsProblem();
if (runtimeProblem !== null) {
  process.stderr.write(`runtime error: ${runtimeProblem}\n`);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

const app = await startApp(config);
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.services.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.services.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
