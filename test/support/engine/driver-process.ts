/** Runs the crash driver as a child process: waits for its `ready` line, says `go`, and kills it with SIGKILL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const NODE = fileURLToPath(new URL('../../../node_modules/.bin/node', import.meta.url));
const DRIVER = fileURLToPath(new URL('./crash-driver.ts', import.meta.url));

export interface DriverLine {
  readonly type: string;
  readonly [key: string]: unknown;
}

export class DriverProcess {
  readonly child: ChildProcess;
  readonly lines: DriverLine[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #waiters: Array<{ type: string; resolve: (l: DriverLine) => void }> = [];

  constructor(configPath: string, env: Record<string, string> = {}) {
    this.child = spawn(NODE, [DRIVER, configPath], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
      let line: DriverLine;
      try {
        line = JSON.parse(text) as DriverLine;
      } catch {
        return;
      }
      this.lines.push(line);
      for (const w of this.#waiters.filter((x) => x.type === line.type)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(line);
      }
    });
    createInterface({ input: this.child.stderr as NodeJS.ReadableStream }).on('line', (text) => {
      this.stderr.push(text);
      if (this.stderr.length > 200) this.stderr.shift();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The first line of `type`, or an error naming what the process said when it exits or the time runs out. */
  async next(type: string, timeoutMs: number): Promise<DriverLine> {
    const seen = this.lines.find((l) => l.type === type);
    if (seen !== undefined) return seen;
    let timer: NodeJS.Timeout | undefined;
    const line = new Promise<DriverLine>((resolve) => this.#waiters.push({ type, resolve }));
    const fail = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`driver: no ${type} line in ${timeoutMs} ms\n${this.stderr.slice(-20).join('\n')}`)),
        timeoutMs,
      );
      void this.exited.then((x) =>
        setTimeout(
          () =>
            reject(
              new Error(`driver exited (${x.code ?? x.signal}) before ${type}\n${this.stderr.slice(-20).join('\n')}`),
            ),
          50,
        ),
      );
    });
    try {
      return await Promise.race([line, fail]);
    } finally {
      clearTimeout(timer);
    }
  }

  go(): void {
    this.child.stdin?.write('go\n');
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
