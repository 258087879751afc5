// Start-up refuses to serve through uWebSockets.js's JavaScript fallback (UWS_USE_FALLBACK
// forces the fallback the package would silently take on an unsupported Node).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
const MAIN_JS = new URL('main.js', DIST).pathname;

function run(
  env: Record<string, string>,
  main = MAIN_JS,
  flags: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, main], {
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

  it('start-up refuses a uWebSockets.js package that throws when no native build loads (as the image one does)', async () => {
    // The built service beside a node_modules whose uWebSockets.js throws on require, like
    // @btc-vision/uwebsockets.js on a glibc older than 2.38; every other package is the real one.
    const root = mkdtempSync(join(tmpdir(), 'asas-uws-throws-'));
    try {
      const realModules = new URL('../../node_modules/', import.meta.url).pathname;
      const modules = join(root, 'node_modules');
      mkdirSync(modules);
      for (const entry of readdirSync(realModules)) {
        if (entry !== 'uWebSockets.js') symlinkSync(join(realModules, entry), join(modules, entry));
      }
      const fake = join(modules, 'uWebSockets.js');
      mkdirSync(fake);
      writeFileSync(join(fake, 'package.json'), JSON.stringify({ name: 'uWebSockets.js', main: 'uws.js' }));
      const thrown =
        "This version of uWS.js supports only Node.js 20, 22, 24 and 25.\n\nError: version `GLIBC_2.38' not found";
      writeFileSync(join(fake, 'uws.js'), `throw new Error(${JSON.stringify(thrown)});\n`);
      symlinkSync(new URL('..', DIST).pathname, join(root, 'dist'));
      symlinkSync(new URL('../../package.json', import.meta.url).pathname, join(root, 'package.json'));
      const dataDir = join(root, 'data');
      const { code, stderr } = await run(
        { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
        join(root, 'dist', 'src', 'main.js'),
        ['--preserve-symlinks', '--preserve-symlinks-main'],
      );
      expect(code).toBe(2);
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^runtime error: the native uWebSockets\.js build uws_\w+\.node did not load on Node v[\d.]+ \(\w+\/\w+\): This version of uWS\.js supports only Node\.js 20, 22, 24 and 25\. Error: version `GLIBC_2\.38' not found; this service runs only on a native build/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
