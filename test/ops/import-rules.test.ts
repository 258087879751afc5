// The import rules of .dependency-cruiser.cjs (npm run lint): the source tree keeps them, and
// each kind of rule fails on a violation planted in a scratch tree cruised with the same
// configuration (the thread boundary both ways, a layer climbed, a module outside every layer,
// the MCP server past its HTTP client, the bench past the public faces).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const scratch: string[] = [];

afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [CRUISER, 'src', 'bench', '--config', CONFIG], { cwd });
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: `${e.stdout}${e.stderr}` };
  }
}

/** A scratch tree of the given files (path -> source) with the repository's tsconfig. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'asas-imports-'));
  scratch.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext' } }));
  mkdirSync(join(dir, 'bench'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

describe('import rules', () => {
  it('hold for the source tree', async () => {
    const { code, output } = await cruise(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  }, 60_000);

  it.each([
    [
      'main-thread-loads-no-worker-code',
      {
        'src/runtime/planted.ts': "import { x } from '../shard/actors.js';\nexport const y = x;\n",
        'src/shard/actors.ts': 'export const x = 1;\n',
      },
    ],
    [
      'main-thread-loads-only-the-decision-model',
      {
        'src/http/planted.ts': "import { x } from '../decision/risk.js';\nexport const y = x;\n",
        'src/decision/risk.ts': 'export const x = 1;\n',
      },
    ],
    [
      'worker-side-loads-no-main-thread-code',
      {
        'src/shard/planted.ts': "import { x } from '../http/server.js';\nexport const y = x;\n",
        'src/http/server.ts': 'export const x = 1;\n',
      },
    ],
    [
      'layer-0-imports-no-higher-layer',
      {
        'src/domain/planted.ts': "import { x } from '../storage/db.js';\nexport const y = x;\n",
        'src/storage/db.ts': 'export const x = 1;\n',
      },
    ],
    [
      'every-module-in-a-layer',
      {
        'src/nowhere/planted.ts': "import { x } from '../domain/money.js';\nexport const y = x;\n",
        'src/domain/money.ts': 'export const x = 1;\n',
      },
    ],
    [
      'mcp-speaks-only-http',
      {
        'src/mcp/planted.ts': "import { x } from '../domain/money.js';\nexport const y = x;\n",
        'src/domain/money.ts': 'export const x = 1;\n',
      },
    ],
    [
      'bench-imports-only-public-faces',
      {
        'bench/scenarios/planted.ts': "import { x } from '../../src/shard/actors.js';\nexport const y = x;\n",
        'src/shard/actors.ts': 'export const x = 1;\n',
      },
    ],
  ])('fail on a planted violation: %s', async (rule, files) => {
    const { code, output } = await cruise(tree(files));
    expect(output).toContain(`error ${rule}:`);
    expect(code).not.toBe(0);
  });

  it('let the embedded engine load the shard on demand (a dynamic import)', async () => {
    const { code, output } = await cruise(
      tree({
        'src/engine/engine.ts': "export async function load() {\n  return import('../shard/shard.js');\n}\n",
        'src/shard/shard.ts': 'export const x = 1;\n',
      }),
    );
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });
});
