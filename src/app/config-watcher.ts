import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../foundation/logger.js';

/** Options of `watchConfigFile`. */
export interface ConfigWatcherOptions {
  /** The config file, absolute. */
  file: string;
  /** Called once the file settled after a change. */
  onChange: () => void;
  /**
   * How long the file must stay quiet before `onChange` (default 150 ms): an editor's save is
   * several writes (truncate, write, rename), and reading between them would see half a file.
   */
  settleMs?: number;
  log: Logger;
}

/**
 * Watches a config file for edits. The directory is watched, not the file: editors that save by
 * writing a new file and renaming it over the old one replace the inode a file watch would follow.
 * Returns the function that stops watching.
 */
export function watchConfigFile(options: ConfigWatcherOptions): () => void {
  const dir = path.dirname(options.file);
  const name = path.basename(options.file);
  const settleMs = options.settleMs ?? 150;
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { persistent: false }, (_event, changed) => {
      // Some platforms give no file name; then any change in the directory may be ours.
      if (changed !== null && changed !== name) return;
      clearTimeout(timer);
      timer = setTimeout(options.onChange, settleMs);
      timer.unref();
    });
  } catch (error) {
    options.log.warn(
      { file: options.file, err: (error as Error).message },
      'cannot watch the config file; reload with SIGHUP or POST /api/admin/reload',
    );
    return () => {};
  }
  watcher.on('error', (error) => {
    options.log.warn(
      { file: options.file, err: error.message },
      'config file watch failed; no more automatic reloads',
    );
    watcher.close();
  });
  options.log.debug({ file: options.file }, 'watching the config file for changes');
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
