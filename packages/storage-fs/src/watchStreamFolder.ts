import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

function tryWatch(path: string, onChange: (filename: string | null) => void): FSWatcher | null {
  try {
    const watcher = watch(path, { persistent: false }, (_event, filename) => onChange(typeof filename === 'string' ? filename : null));
    // A watcher that fails later (its folder removed, a platform limit) just stops: followers still poll.
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return null;
  }
}

/**
 * Calls `notify` whenever the stream folder changes (a batch file linked in by any process).
 * While the folder does not exist yet it watches the namespace folder for it to appear, then
 * switches. Returns the function that stops watching. Watching is only a hint: when the
 * platform cannot watch, nothing is reported and followers fall back to polling.
 */
export function watchStreamFolder(streamFolder: string, notify: () => void): () => void {
  let stopped = false;
  let streamWatcher: FSWatcher | null = null;
  let parentWatcher: FSWatcher | null = null;
  const name = basename(streamFolder);

  const watchStream = (): boolean => {
    streamWatcher = tryWatch(streamFolder, () => notify());
    return streamWatcher !== null;
  };
  if (!watchStream()) {
    parentWatcher = tryWatch(dirname(streamFolder), (filename) => {
      if (stopped || streamWatcher !== null || (filename !== null && filename !== name)) return;
      if (watchStream()) {
        parentWatcher?.close();
        parentWatcher = null;
        notify();
      }
    });
    // The folder may have appeared between the two watches.
    if (watchStream()) {
      parentWatcher?.close();
      parentWatcher = null;
      notify();
    }
  }
  return () => {
    stopped = true;
    streamWatcher?.close();
    parentWatcher?.close();
  };
}
