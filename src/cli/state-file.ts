/** Where a bot configuration keeps its state file, for the commands that read it after (or beside) `dlt-mm run`. */
import { dirname, resolve } from 'node:path';
import type { BotConfig } from '../core/config/bot-config.ts';
import { parseBotConfig } from '../core/config/load.ts';
import type { CliIo } from './io.ts';

export interface ConfigAndState {
  readonly config: BotConfig;
  readonly configPath: string;
  readonly statePath: string;
}

/** The embedded sandbox keeps its state under `.sandbox/` of the working directory (a new venue each start). */
export function stateFileOf(configPath: string, io: CliIo): ConfigAndState {
  const path = resolve(io.cwd, configPath);
  const config = parseBotConfig(io.readFile(path), configPath);
  const statePath = config.sandbox?.embedded === true ? resolve(io.cwd, '.sandbox', 'embedded-bot.sqlite') : resolve(dirname(path), config.store.path);
  return { config, configPath: path, statePath };
}
