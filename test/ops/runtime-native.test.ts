// Start-up refuses to serve through uWebSockets.js's JavaScript fallback (UWS_USE_FALLBACK
// forces the fallback the package would silently take on an unsupported Node).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
const MAIN_JS = new URL('main.js', DIST).pathname;

function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN_JS], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('uWebSockets.js native build', () => {
  it('is the build this process loaded', async () => {
    const { nativeUwsProblem } = (await import(new URL('http/uws-native.js', DIST).href)) as {
      nativeUwsProblem: () => string | null;
    };
    expect(nativeUwsProblem()).toBeNull();
  });

  it('start-up refuses the JavaScript fallback with one clear line and exit code 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'asas-native-'));
    try {
      const { code, stderr } = await run({ UWS_USE_FALLBACK: '1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      expect(code).toBe(2);
      expect(stderr).toMatch(/runtime error: the native uWebSockets\.js build uws_\w+\.node did not load/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
