// Checks one tools/call result against a saved call's expectation. With no expectation a call
// passes when it is not an error; failure messages are plain text (print them through
// src/io/sanitize.ts: server text is hostile).
import type { CallToolResult } from '../client/types.js';
import { subsetFailures } from './expectation.js';
import type { CallExpectation } from './types.js';

interface ExpectationOutcome {
  passed: boolean;
  failures: string[];
}

function resultText(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('\n');
}

export function checkExpectation(result: CallToolResult, expect: CallExpectation = { notError: true }): ExpectationOutcome {
  const failures: string[] = [];
  const isError = result.isError === true;
  if (expect.notError && isError) failures.push('isError: expected not an error, got an error');
  if (expect.isError !== undefined && expect.isError !== isError) {
    failures.push(`isError: expected ${expect.isError}, got ${isError}`);
  }
  if (expect.structuredContent !== undefined) {
    failures.push(...subsetFailures(expect.structuredContent, result.structuredContent, '$.structuredContent'));
  }
  if (expect.content !== undefined) {
    failures.push(...subsetFailures(expect.content, result.content, '$.content'));
  }
  if (expect.text !== undefined && !resultText(result).includes(expect.text)) {
    failures.push(`text: expected to contain ${JSON.stringify(expect.text).slice(0, 120)}`);
  }
  return { passed: failures.length === 0, failures };
}
