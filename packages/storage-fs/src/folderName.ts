import { isStreamId } from '@roundtable/storage';

/** The folder, inside each namespace, that holds uncommitted temp files (`.tmp` can never be an id: ids start with a letter or digit). */
export const TEMP_FOLDER = '.tmp';

function uppercaseMask(id: string): bigint {
  let mask = 0n;
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    if (unit >= 0x41 && unit <= 0x5a) mask |= 1n << BigInt(i);
  }
  return mask;
}

/**
 * The folder name of a stream id or namespace. Ids are case-sensitive but macOS and Windows
 * folders usually are not, so an id with capital letters gets a suffix `~<hex>` whose bits mark
 * where they are: `Run-1` → `Run-1~1`, `run-1` → `run-1`. Two ids that differ only in case thus
 * never share a folder, and lower-case ids (the common case) keep their plain name.
 */
export function folderNameOf(id: string): string {
  const mask = uppercaseMask(id);
  return mask === 0n ? id : `${id}~${mask.toString(16)}`;
}

/** The id a folder name stands for, or null when the name is not one `folderNameOf` writes. */
export function idOfFolderName(name: string): string | null {
  // `~` never appears in an id, so the id is what comes before it; `folderNameOf` then tells
  // whether the suffix (if any) is exactly the one this id gets.
  const id = name.split('~', 1)[0];
  return isStreamId(id) && folderNameOf(id) === name ? id : null;
}
