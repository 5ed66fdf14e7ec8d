import { describe, expect, it } from 'vitest';
import { subsetFailures } from '../../src/collections/expectation.js';
import { collectionNameProblem } from '../../src/collections/names.js';

describe('subsetFailures', () => {
  it('ignores extra keys, compares arrays by position and length', () => {
    expect(subsetFailures({ a: 1 }, { a: 1, b: 2 })).toEqual([]);
    expect(subsetFailures([1, 2], [1, 2])).toEqual([]);
    expect(subsetFailures([1], [1, 2])).toEqual(['$: expected 1 elements, got 2']);
    expect(subsetFailures({ a: { b: 'x' } }, { a: { b: 'y' } })).toEqual(['$.a.b: expected "x", got "y"']);
    expect(subsetFailures({ a: 1 }, {})).toEqual(['$.a: missing (expected 1)']);
  });
});

describe('collectionNameProblem', () => {
  it('refuses names that could leave the folder', () => {
    for (const bad of ['../x', 'a/b', '.hidden', 'x'.repeat(65), 'a\0b', '', 'a..b', 'a\\b']) {
      expect(collectionNameProblem(bad)).toBeDefined();
    }
    expect(collectionNameProblem('smoke-tests_1.v2')).toBeUndefined();
  });
  it('refuses names a Windows checkout could not create', () => {
    for (const bad of ['CON', 'nul', 'Aux.tests', 'com1', 'LPT9', 'smoke.']) expect(collectionNameProblem(bad), bad).toBeDefined();
    for (const good of ['console', 'nullable', 'com10', 'auxiliary']) expect(collectionNameProblem(good), good).toBeUndefined();
  });
});
