// `npm start`: parse configuration (a bad value stops the process with one line naming the
// variable), start the service, stop gracefully on SIGTERM/SIGINT.
import { ConfigError, loadConfig } from './config/config.js';
import { loadNativeUws } from './http/uws-native.js';

// Checked before the app (and with it the HTTP edge) is imported: a uWebSockets.js package
// that throws when no native build loads must not crash the import with a stack trace.
const uws = await loadNativeUws();
if ('problem' in uws) {
  process.stderr.write(`runtime error: ${uws.problem}\n`);
  process.exit(2);
}
const { startApp } = await import('./app/app.js');

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

const app = await startApp(config).catch((err: unknown) => {
  // A start-up check that names a variable (e.g. a SECRETS_KEY that opens no stored secret).
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
});
// What runs: the Node release and the native uWebSockets.js build (docs/node-runtime.md).
app.services.log.info({ node: process.version, uws: uws.build }, 'runtime');
let stopping = false;
/**
 * Stops gracefully: no new requests, the in-flight ones answered, the audit log and the outbox
 * flushed, all within SHUTDOWN_TIMEOUT_MS; then exits with `code` (1 when the stop was not clean).
 */
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  // The bound on the whole stop: a flush that hangs (database gone) must not keep the
  // process alive past what the orchestrator allows; exit 1 says the stop was not clean.
  setTimeout(() => {
    app.services.log.error({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown timed out');
    process.exit(1);
  }, config.shutdownTimeoutMs);
  app.close().then(
    () => process.exit(code),
    (err: unknown) => {
      app.services.log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
}
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    app.services.log.info({ signal, timeout_ms: config.shutdownTimeoutMs }, 'shutting down');
    stop(0);
  });
}
// Any other exception nobody caught (an unhandled rejection becomes one): the process is in a
// state nothing planned for. It logs the error, stops taking requests, answers and flushes what
// it holds as a SIGTERM would, and exits 1 so that its supervisor starts a fresh one
// (docs/engine-durability.md "Crashes"). A second one during that stop changes nothing.
process.on('uncaughtException', (err, origin) => {
  app.services.log.fatal({ err, origin }, 'uncaught exception: draining, then exiting 1');
  stop(1);
});
