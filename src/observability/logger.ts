import { type Logger, pino } from 'pino';
import type { Config } from '../config/config.js';

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'asas' } });
}

/** How long a step of a shutdown may take before it is logged as still pending, and how often. */
export const SLOW_STEP_MS = 5_000;

/**
 * Awaits one step of a shutdown, logging a warning that names it every SLOW_STEP_MS it is still
 * pending: a stop that hangs says what it waits on (a batch's commit, a relay, a pool).
 */
export async function shutdownStep<T>(log: Logger, step: string, work: () => Promise<T> | T): Promise<T> {
  const started = Date.now();
  const timer = setInterval(
    () => log.warn({ step, waited_ms: Date.now() - started }, 'shutdown still waiting'),
    SLOW_STEP_MS,
  );
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
