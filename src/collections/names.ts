// Collection names become file names under .toolwright/collections/, and the console API will
// pass user input here: only a conservative pattern is accepted, so no name can escape the
// folder (no separators, no "..", no leading dot, no NUL, bounded length), and a collection
// committed from Linux still checks out on Windows (no device name such as CON or NUL, whose
// file Windows would not create; no trailing dot, which Windows drops).
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?$/i;

export function collectionNameProblem(name: string): string | undefined {
  if (typeof name !== 'string' || !SAFE_NAME.test(name) || name.includes('..')) {
    return 'a collection name is 1-64 letters, digits, "_", "-" or "." (not first), without ".."';
  }
  if (name.endsWith('.')) return 'a collection name does not end with "."';
  if (WINDOWS_DEVICE.test(name)) return `"${name}" is a device name on Windows: choose another collection name`;
  return undefined;
}
