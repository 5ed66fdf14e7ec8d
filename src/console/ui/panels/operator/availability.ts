import { useEffect, useState } from 'preact/hooks';
import { apiGet } from '../../api.js';
import type { OperatorAvailability } from '../../../api-types.js';

const NONE: OperatorAvailability = { available: false, audit: false, tasks: false, limits: false };
let current = NONE;
let asked: Promise<void> | undefined;
const watchers = new Set<(value: OperatorAvailability) => void>();

function ask(): Promise<void> {
  asked ??= apiGet('operator').then(
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
