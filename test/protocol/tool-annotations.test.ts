import { describe, expect, it } from 'vitest';
import { isDestructiveTool } from '../../src/protocol/tool-annotations.js';

// The spec's ToolAnnotations defaults: readOnlyHint false, destructiveHint true (meaningful only
// when the tool is not read-only).
describe('isDestructiveTool', () => {
  it('counts a tool that says nothing as destructive', () => {
    expect(isDestructiveTool(undefined)).toBe(true);
    expect(isDestructiveTool({})).toBe(true);
    expect(isDestructiveTool({ idempotentHint: true })).toBe(true);
  });
  it('trusts readOnlyHint: true whatever destructiveHint says', () => {
    expect(isDestructiveTool({ readOnlyHint: true })).toBe(false);
    expect(isDestructiveTool({ readOnlyHint: true, destructiveHint: true })).toBe(false);
  });
  it('counts a writing tool as destructive unless destructiveHint is false', () => {
    expect(isDestructiveTool({ readOnlyHint: false })).toBe(true);
    expect(isDestructiveTool({ readOnlyHint: false, destructiveHint: true })).toBe(true);
    expect(isDestructiveTool({ readOnlyHint: false, destructiveHint: false })).toBe(false);
    expect(isDestructiveTool({ destructiveHint: false })).toBe(false);
  });
});
