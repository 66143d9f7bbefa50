/**
 * `dlt-mm run` as a real child process, the way an operator starts it: the test writes a configuration,
 * starts the process, reads its telemetry endpoints (`/readyz`, `/metrics`), keeps what it writes (for
 * failure messages and, in full, in a log file), sends it signals and waits for its exit. `kill()` is the last resort of a failed test (SIGKILL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseMetrics, type MetricSample } from './metrics-text.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));

export class BotProcess {
  readonly child: ChildProcess;
  /** The last lines the process wrote (its JSON log and the command's own lines). */
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #telemetry: string;

  /**
   * `logPath`: every line the process writes is also appended there (kept with the test's temporary files).
   * `nodeArgs`: options of Node itself (a benchmark's `--cpu-prof`).
   */
  constructor(configPath: string, metricsPort: number, logPath?: string, nodeArgs: readonly string[] = []) {
    this.#telemetry = `http://127.0.0.1:${metricsPort}`;
    this.child = spawn(
      NODE,
      ['--max-semi-space-size=16', ...nodeArgs, 'src/cli/dlt-mm.ts', 'run', '--config', configPath],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
    );
    const keep = (text: string) => {
      if (logPath !== undefined) appendFileSync(logPath, `${text}\n`);
      this.output.push(text);
      if (this.output.length > 400) this.output.shift();
    };
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', keep);
    createInterface({ input: this.child.stderr as NodeJS.ReadableStream }).on('line', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process wrote, for failure messages. */
  tail(n = 30): string {
    return this.output.slice(-n).join('\n');
  }

  async readiness(): Promise<{ ready: boolean; body: string }> {
    const res = await fetch(`${this.#telemetry}/readyz`);
    return { ready: res.status === 200, body: await res.text() };
  }

  async metrics(): Promise<MetricSample[]> {
    const res = await fetch(`${this.#telemetry}/metrics`);
    return parseMetrics(await res.text());
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  /** SIGKILL if still running; resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }
}
