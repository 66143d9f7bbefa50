/** Programs from Debian's `prometheus` package that the deploy tests run; .ci/run installs it when missing. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function requireTool(name: 'promtool' | 'prometheus'): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '')) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  throw new Error(
    `${name} is not installed: it comes from Debian's prometheus package (apt-get install prometheus; .ci/run installs it when missing)`,
  );
}
