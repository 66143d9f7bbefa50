/**
 * A real terminal for a test: a detached tmux session on a private socket, of a fixed size, running one
 * command. The test reads the screen as tmux has rendered it (`capture-pane`: what a person would see, colours
 * and cursor movements already applied), sends keys (Ctrl-C) and reads the command's exit status (the pane
 * stays after the command exits). tmux comes from Debian's `tmux` package (`.ci/run` installs it when missing).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

export class TmuxTerminal {
  readonly #socket: string;
  readonly #target = 'board';
  /** The tmux server's process id. */
  readonly #server: number;
  /** The command's process id (its pane's), for a last-resort SIGKILL. */
  readonly pid: number;

  private constructor(socket: string, server: number, pid: number) {
    this.#socket = socket;
    this.#server = server;
    this.pid = pid;
  }

  /** Starts `argv` in `cwd` on a `cols` x `rows` terminal; `dir` holds the tmux socket. */
  static start(o: {
    dir: string;
    cwd: string;
    argv: readonly string[];
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): TmuxTerminal {
    try {
      execFileSync('tmux', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new Error('tmux is needed to drive a terminal (Debian package tmux; .ci/run installs it when missing)', {
        cause: e,
      });
    }
    const socket = join(o.dir, 'tmux.sock');
    const tmux = (...args: string[]) =>
      execFileSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const env = Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`);
    // exec: the pane's process is the command itself, so Ctrl-C and the exit status are its own.
    const command = ['exec', ...(env.length === 0 ? [] : ['env', ...env]), ...o.argv.map(quote)].join(' ');
    // The session is created detached, at its size, holding a shell that waits; the command starts once the
    // pane is kept after exit, so that its last screen and exit status can be read.
    tmux('new-session', '-d', '-s', 'board', '-x', String(o.cols), '-y', String(o.rows), '-c', o.cwd, 'sleep 86400');
    tmux('set-option', '-t', 'board', 'remain-on-exit', 'on');
    tmux('set-option', '-t', 'board', 'history-limit', '10000');
    tmux('respawn-pane', '-k', '-t', 'board', '-c', o.cwd, command);
    const [server, pid] = tmux('display-message', '-p', '-t', 'board', '#{pid} #{pane_pid}')
      .trim()
      .split(' ')
      .map(Number);
    return new TmuxTerminal(socket, server!, pid!);
  }

  #tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.#socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** The visible screen, one string per row (trailing blanks trimmed). */
  screen(): string[] {
    return this.#tmux('capture-pane', '-p', '-t', this.#target)
      .split('\n')
      .map((l) => l.trimEnd());
  }

  /** Rows that scrolled off the top of the screen into the history. */
  historySize(): number {
    return Number(this.#tmux('display-message', '-p', '-t', this.#target, '#{history_size}').trim());
  }

  /** Once the command has exited: its exit status, or `signal N` when a signal ended it; else null. */
  exitStatus(): number | string | null {
    const [dead, status, signal] = this.#tmux(
      'display-message',
      '-p',
      '-t',
      this.#target,
      '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}',
    )
      .trim()
      .split(':');
    if (dead !== '1') return null;
    if (status === '' && signal === '') {
      // The terminal closed, but tmux has not collected the exit status. Debian's tmux records panes with
      // libutempter, whose own SIGCHLD handler is in place while tmux removes the record of a pane whose
      // terminal just closed: a command ending in that moment stays a zombie, its SIGCHLD swallowed (seen
      // here; tmux issue #311). Another SIGCHLD makes tmux reap it.
      process.kill(this.#server, 'SIGCHLD');
      return null;
    }
    return status === undefined || status === '' ? `signal ${signal ?? '?'}` : Number(status);
  }

  /** Keys as tmux names them (`C-c` for Ctrl-C). */
  sendKeys(...keys: string[]): void {
    this.#tmux('send-keys', '-t', this.#target, ...keys);
  }

  /** Closes the terminal under the command, as closing its window would: tmux goes, the command gets SIGHUP. */
  hangUp(): void {
    this.#tmux('kill-server');
  }

  /** Kills the command if it still runs (SIGKILL: tmux's own SIGHUP would only reload the bot's strategies), then tmux. */
  close(): void {
    try {
      if (this.exitStatus() === null) process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    try {
      this.#tmux('kill-server');
    } catch {
      // The server may have exited with its last session.
    }
  }
}
