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

/**
 * Awaits a step as shutdownStep does, for `boundMs` at most: past it, logs a warning that the step
 * was cut and returns while its work goes on unawaited (a failure it ends with later is logged,
 * not thrown). For waits that only the resources closed after them can end: a commit sent on a
 * connection that went dark waits on the kernel's keepalive for minutes, and only ending the
 * pool (the next step) fails it.
 */
export async function shutdownStepAtMost(
  log: Logger,
  step: string,
  work: () => Promise<unknown> | unknown,
  boundMs: number,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<'cut'>((resolve) => {
    timer = setTimeout(() => resolve('cut'), boundMs);
  });
  const done = shutdownStep(log, step, work).then(() => 'done' as const);
  try {
    if ((await Promise.race([done, cut])) === 'cut') {
      log.warn({ step, bound_ms: boundMs }, 'shutdown step cut at its bound');
      done.catch((err: unknown) => log.warn({ err, step }, 'shutdown step failed after it was cut'));
    }
  } finally {
    clearTimeout(timer);
  }
}
