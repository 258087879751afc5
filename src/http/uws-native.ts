// uWebSockets.js ships native builds per Node ABI. Two packages provide it (docs/runtime.md):
// - @trufflesuite/uws-js-unofficial 20.30 (package.json, this machine and CI: Node 20, glibc
//   2.36) has builds for Node 16, 18 and 20 only; on any other Node it prints a warning and
//   silently serves through a slow JavaScript imitation;
// - @btc-vision/uwebsockets.js 20.57 (the container image: Node 24 on Debian trixie) has builds
//   for Node 20, 22, 24 and 25 linked against glibc >= 2.38, and throws when none loads.
// Start-up refuses both failures: `nativeUwsProblem()` names what is wrong, or returns null when
// a native build is the one loaded.
import { createRequire } from 'node:module';
import { sep } from 'node:path';

const require = createRequire(import.meta.url);

/** Null when the native uWebSockets.js build is loaded; otherwise one line saying why not. */
export function nativeUwsProblem(): string | null {
  const name = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const problem = (why: string) =>
    `the native uWebSockets.js build ${name} did not load on Node ${process.version} ` +
    `(${process.platform}/${process.arch})${why}; this service runs only on a native build ` +
    '(Node 20 here, Node 24 on Debian trixie in the container image: see docs/runtime.md), ' +
    'never on the JavaScript fallback';
  try {
    // A no-op when the edge already imported it (the module cache).
    require('uWebSockets.js');
  } catch (err) {
    // The package's own words and the loader's cause (e.g. "GLIBC_2.38 not found"), one line.
    const why = String((err as Error).message ?? err)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('at '))
      .join(' ');
    return problem(`: ${why.length > 600 ? `${why.slice(0, 600)}…` : why}`);
  }
  // Each package loads its build by file name, from its own directory; the fallback loads none.
  const loaded = Object.keys(require.cache).some((path) => path.endsWith(`${sep}${name}`));
  return loaded ? null : problem('');
}
