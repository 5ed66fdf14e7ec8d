// Collection names become file names under .toolwright/collections/, and the console API will
// pass user input here: only a conservative pattern is accepted, so no name can escape the
// folder (no separators, no "..", no leading dot, no NUL, bounded length).
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export function collectionNameProblem(name: string): string | undefined {
  if (typeof name !== 'string' || !SAFE_NAME.test(name) || name.includes('..')) {
    return 'a collection name is 1-64 letters, digits, "_", "-" or "." (not first), without ".."';
  }
  return undefined;
}
