import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../../api.js';

/** What `GET operator` says: which operator panels have data (none when the console runs standalone). */
export interface OperatorAvailability {
  available: boolean;
  audit: boolean;
  tasks: boolean;
  limits: 'in-process' | 'shared' | false;
}

const NONE: OperatorAvailability = { available: false, audit: false, tasks: false, limits: false };
let current = NONE;
let asked: Promise<void> | undefined;
const watchers = new Set<(value: OperatorAvailability) => void>();

function ask(): Promise<void> {
  asked ??= apiGet<OperatorAvailability>('operator').then(
    (answer) => {
      current = answer;
      for (const watch of watchers) watch(answer);
    },
    () => {
      // An older console or a refusal: no operator panel.
    },
  );
  return asked;
}

/** The operator availability, asked once per page; re-renders when it arrives. */
export function useOperatorAvailability(): OperatorAvailability {
  const [value, setValue] = useState(current);
  useEffect(() => {
    watchers.add(setValue);
    setValue(current);
    void ask();
    return () => void watchers.delete(setValue);
  }, []);
  return value;
}
