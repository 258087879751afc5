// The container image's build-time check (Dockerfile): the native uWebSockets.js build for this
// Node and platform loads, through the same check start-up makes (dist/src/http/uws-native.js).
// With --prune it then deletes every other platform's and Node's build from the package, so
// the image ships the one binary it runs. Exit 1, with the reason, when no native build loads.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { loadNativeUws, UWS_PACKAGE } = await import('../dist/src/http/uws-native.js');
const result = await loadNativeUws();
if ('problem' in result) {
  process.stderr.write(`${result.problem}\n`);
  process.exit(1);
}
const { build } = result;
process.stdout.write(
  `native uWebSockets.js: ${build.package} ${build.version} ${build.binary} on Node ${process.version}\n`,
);
if (process.argv.includes('--prune')) {
  const bin = join(dirname(fileURLToPath(import.meta.resolve(UWS_PACKAGE))), 'bin');
  let removed = 0;
  for (const file of readdirSync(bin)) {
    if (file.endsWith('.node') && file !== build.binary) {
      rmSync(join(bin, file));
      removed++;
    }
  }
  process.stdout.write(`kept ${join(bin, build.binary)}; removed ${removed} other builds\n`);
}
