// uWebSockets.js ships native builds per Node ABI. The fork this service uses
// (@trufflesuite/uws-js-unofficial 20.30) has them for Node 16, 18 and 20 only; on any other
// Node it prints a warning and silently serves through a slow JavaScript imitation. Start-up
// refuses that: `nativeUwsProblem()` names what is wrong, or returns null when the native
// build is the one loaded. docs/runtime.md has the supported-runtime story.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Null when the native uWebSockets.js build is loaded; otherwise one line saying why not. */
export function nativeUwsProblem(): string | null {
  // Loading it here is a no-op when the edge already imported it (the module cache).
  require('uWebSockets.js');
  const entry = require.resolve('uWebSockets.js');
  const name = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const binary = join(dirname(entry), '..', 'binaries', name);
  if (require.cache[binary] !== undefined) return null;
  return (
    `the native uWebSockets.js build ${name} did not load on Node ${process.version} ` +
    `(${process.platform}/${process.arch}); this service runs on Node 20 with the native build ` +
    '(see docs/runtime.md), never on the JavaScript fallback'
  );
}
