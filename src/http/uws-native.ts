// uWebSockets.js ships one native build per platform and Node ABI. The service takes it from
// `uws-pack` (docs/node-runtime.md): upstream's builds for Node 18, 20, 21 and 22 (ABI 108, 115, 120,
// 127) linked against glibc >= 2.27, ESM-only, and a loader that throws when no build fits
// (there is no JavaScript fallback in it). Start-up imports it through `loadNativeUws()` before
// the HTTP edge, so a wrong Node or platform stops the process with one line naming the build
// it looked for, never with a stack trace or, with another package, through a slow fallback.
import { createRequire } from 'node:module';
import { basename, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
// Before the package loads: the settings its native library reads as it loads.
import './uws-env.js';

const require = createRequire(import.meta.url);

/** The uWebSockets.js package the edge imports (src/http/server.ts). */
export const UWS_PACKAGE = 'uws-pack';

/** What start-up logs of the native build it loaded. */
export interface UwsBuild {
  readonly package: string;
  readonly version: string;
  /** The file name of the native build, e.g. uws_linux_x64_127.node. */
  readonly binary: string;
}

/** The file name of the native build this process needs. */
export function uwsBinaryName(): string {
  return `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
}

function problem(why: string): string {
  return (
    `the native uWebSockets.js build ${uwsBinaryName()} did not load on Node ${process.version} ` +
    `(${process.platform}/${process.arch})${why}; this service runs only on a native build ` +
    '(Node 22 on glibc >= 2.27: see docs/node-runtime.md), never on a JavaScript fallback'
  );
}

/** The package's version, read beside its entry point (it exports no package.json). */
function packageVersion(entry: string): string {
  let dir = dirname(entry);
  for (let i = 0; i < 4; i++) {
    if (basename(dir) === UWS_PACKAGE) {
      try {
        return (require(`${dir}${sep}package.json`) as { version: string }).version;
      } catch {
        break;
      }
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

/**
 * Imports uWebSockets.js and checks that the native build for this Node is the module it
 * loaded. Resolves to the build, or to one line saying why there is none.
 */
export async function loadNativeUws(): Promise<{ build: UwsBuild } | { problem: string }> {
  const name = uwsBinaryName();
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve(UWS_PACKAGE));
    await import(UWS_PACKAGE);
  } catch (err) {
    // The package's own words and the loader's cause (e.g. "GLIBC_2.38 not found"), one line.
    const why = String((err as Error).message ?? err)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('at '))
      .join(' ');
    return { problem: problem(`: ${why.length > 600 ? `${why.slice(0, 600)}…` : why}`) };
  }
  // The loader requires the build by file name; a package that loaded none is refused too.
  const loaded = Object.keys(require.cache).some((path) => path.endsWith(`${sep}${name}`));
  if (!loaded) return { problem: problem(': the package loaded no native build') };
  return { build: { package: UWS_PACKAGE, version: packageVersion(entry), binary: name } };
}
