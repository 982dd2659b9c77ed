import { type FSWatcher, watch } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../foundation/ports/logger.js';

/** Options of `watchConfigFile`. */
export interface ConfigWatcherOptions {
  /** The config file, absolute. */
  file: string;
  /**
   * Further files the config reads (override files), absolute; asked again after every change,
   * since an edit may name other files. A change to any `.yaml`/`.yml`/`.json` file in their
   * folders counts: a file added to an overrides folder is part of the config.
   */
  related?: () => readonly string[];
  /** Called once the files settled after a change; the watch follows `related` once it resolves. */
  onChange: () => unknown;
  /**
   * How long the files must stay quiet before `onChange` (default 150 ms): an editor's save is
   * several writes (truncate, write, rename), and reading between them would see half a file.
   */
  settleMs?: number;
  log: Logger;
}

const RELATED_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * Watches a config file, and the override files it names, for edits. Directories are watched, not
 * files: editors that save by writing a new file and renaming it over the old one replace the inode
 * a file watch would follow. Returns the function that stops watching.
 */
export function watchConfigFile(options: ConfigWatcherOptions): () => void {
  const settleMs = options.settleMs ?? 150;
  const configDir = path.dirname(options.file);
  const configName = path.basename(options.file);
  /** Watched folders, each with whether any override-like file in it counts. */
  const watchers = new Map<string, { watcher: FSWatcher; related: boolean }>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const fire = () => {
    void Promise.resolve()
      .then(options.onChange)
      .catch(() => {})
      .then(sync);
  };
  const watchDir = (dir: string, relatedDir: boolean) => {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, changed) => {
        // Some platforms give no file name; then any change in the directory may be ours.
        const ours =
          changed === null ||
          (dir === configDir && changed === configName) ||
          (relatedDir && RELATED_EXTENSIONS.has(path.extname(changed).toLowerCase()));
        if (!ours) return;
        clearTimeout(timer);
        timer = setTimeout(fire, settleMs);
        timer.unref();
      });
      watcher.on('error', (error) => {
        options.log.warn(
          { dir, err: error.message },
          'config watch failed; no more automatic reloads from there',
        );
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, { watcher, related: relatedDir });
    } catch (error) {
      options.log.warn(
        { dir, err: (error as Error).message },
        'cannot watch the config; reload with SIGHUP or POST /api/admin/reload',
      );
    }
  };
  /** Watches exactly the folders the config and its related files are in now. */
  function sync(): void {
    if (stopped) return;
    const relatedDirs = new Set((options.related?.() ?? []).map((file) => path.dirname(file)));
    const wanted = new Set([configDir, ...relatedDirs]);
    for (const [dir, { watcher }] of watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      const relatedDir = relatedDirs.has(dir);
      const existing = watchers.get(dir);
      // A folder that became (or stopped being) an overrides folder is watched anew with its new filter.
      if (existing?.related === relatedDir) continue;
      existing?.watcher.close();
      watchDir(dir, relatedDir);
    }
  }

  sync();
  options.log.debug({ file: options.file, dirs: [...watchers.keys()] }, 'watching the config for changes');
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const { watcher } of watchers.values()) watcher.close();
    watchers.clear();
  };
}
