// The system a bench scenario drives: a URL with the operator key to provision it, and the
// child process when the bench started it itself.
import type { Started } from '../servers/processes.js';

export interface Target {
  readonly url: string;
  readonly adminKey: string;
  readonly database: string;
  readonly started: Started | null;
}

export function hostPort(url: string): { host: string; port: number; hostHeader: string } {
  const u = new URL(url);
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)),
    hostHeader: u.host,
  };
}
