/**
 * Vitest's global setup: every temporary directory the tests make (state files, sandboxes, recordings) goes under
 * one directory of this run, removed when the run ends, so a run leaves nothing behind in the system's.
 * Test workers start after this and inherit `TMPDIR`, which `os.tmpdir()` reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'dltmm-tests-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
