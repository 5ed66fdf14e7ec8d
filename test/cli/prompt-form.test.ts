import { describe, expect, it } from 'vitest';
import { fillForm } from '../../src/cli/prompt-form.js';

/** Runs the form with scripted answers (undefined = Ctrl-D); returns the result and what the user saw. */
async function fill(requestedSchema: Record<string, unknown>, answers: Array<string | undefined>, message = 'Please answer') {
  let screen = '';
  const result = await fillForm(
    { message, requestedSchema },
    async (query) => {
      const answer = answers.shift();
      screen += `${query}${answer ?? '^D'}\n`;
      return answer;
    },
    (text) => (screen += text),
  );
  return { result, screen };
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

describe('filling a form at the terminal', () => {
  it('a lone yes/no question needs no review', async () => {
    const { result } = await fill(obj({ approve: { type: 'boolean', title: 'Approve this call' } }, ['approve']), ['n']);
    expect(result).toEqual({ action: 'accept', content: { approve: false } });
  });

  it('strips terminal escapes from everything the server wrote', async () => {
    const { screen } = await fill(obj({ x: { type: 'string', title: 'X\x1b[2J', description: 'd\x1b]0;pwn\x07' } }), ['', 'n'], 'hi\x1b[31m there\u202e');
    expect(screen).not.toMatch(/[\x1b\u202e]/);
    expect(screen).toMatch(/The server asks: hi there\n/);
  });

  it('re-asks until an answer is valid: numbers, lengths, formats, required fields', async () => {
    const schema = obj(
      {
        n: { type: 'number', minimum: 0 },
        i: { type: 'integer' },
        email: { type: 'string', format: 'email', minLength: 3 },
        day: { type: 'string', format: 'date' },
      },
      ['n', 'i', 'email'],
    );
    const { result, screen } = await fill(schema, ['-1', 'abc', '0.5', '', '2.5', '7', 'no-at-sign', 'a@b.c', '2026-13-45', '2026-07-28', 'y']);
    expect(result).toEqual({ action: 'accept', content: { n: 0.5, i: 7, email: 'a@b.c', day: '2026-07-28' } });
    expect(screen).toMatch(/Enter at least 0\./);
    expect(screen).toMatch(/Enter a number\./);
    expect(screen).toMatch(/An answer is required\./);
    expect(screen).toMatch(/Enter a whole number\./);
    expect(screen).toMatch(/Enter a valid email\./);
    expect(screen).toMatch(/Enter a valid date\./);
  });

  it('offers enum options by number or value, and multi-select within its bounds', async () => {
    const schema = obj({
      size: { type: 'string', enum: ['S', 'M', 'L'] },
      tags: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: {
          anyOf: [
            { const: 'a', title: 'Alpha' },
            { const: 'b', title: 'Beta' },
            { const: 'c', title: 'Gamma' },
          ],
        },
      },
    });
    const { result, screen } = await fill(schema, ['4', 'L', '1,2,3', '3, 1', 'y']);
    expect(result).toEqual({ action: 'accept', content: { size: 'L', tags: ['c', 'a'] } });
    expect(screen).toMatch(/Choose 1 to 3\./);
    expect(screen).toMatch(/Choose at most 2\./);
    expect(screen).toMatch(/ {2}tags: Gamma, Alpha\n/);
  });

  it('lets the user edit (earlier answers become defaults), decline, or cancel', async () => {
    const schema = obj({ name: { type: 'string' } }, ['name']);
    const edited = await fill(schema, ['Ada', 'e', '', 'y']);
    expect(edited.result).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(edited.screen).toMatch(/name \[default: Ada\]: /);
    expect((await fill(schema, ['Ada', 'n'])).result).toEqual({ action: 'decline' });
    expect((await fill(schema, [undefined])).result).toEqual({ action: 'cancel' });
    expect((await fill(schema, ['Ada', undefined])).result).toEqual({ action: 'cancel' });
  });

  it('shows legacy enumNames as the options and the review, and answers with the enum value', async () => {
    const schema = obj({
      pet: { type: 'string', enum: ['pet-1', 'pet-2', 'pet-3'], enumNames: ['Rex', 'Tom', 'Polly'] },
      more: { type: 'array', items: { type: 'string', enum: ['pet-4', 'pet-5'], enumNames: ['Nemo'] } },
    });
    const { result, screen } = await fill(schema, ['2', '1,2', 'y']);
    expect(result).toEqual({ action: 'accept', content: { pet: 'pet-2', more: ['pet-4', 'pet-5'] } });
    expect(screen).toContain('  1) Rex\n  2) Tom\n  3) Polly\n');
    // A name missing from enumNames falls back to the value.
    expect(screen).toContain('  1) Nemo\n  2) pet-5\n');
    expect(screen).toContain('  pet: Tom\n  more: Nemo, pet-5\n');
  });

  it('asks a yes/no question with its default as the capital letter, as the approval form is asked', async () => {
    const approval = obj({ approve: { type: 'boolean', title: 'Approve this call?', default: false } }, ['approve']);
    const { result, screen } = await fill(approval, ['']);
    expect(result).toEqual({ action: 'accept', content: { approve: false } });
    expect(screen).toContain('Approve this call? [y/N]: \n');
    expect((await fill(obj({ loud: { type: 'boolean', default: true } }, ['loud']), [''])).screen).toContain('loud [Y/n]: \n');
    expect((await fill(obj({ loud: { type: 'boolean' } }, ['loud']), ['y'])).screen).toContain('loud [y/n]: y\n');
  });

  it('uses defaults for empty answers and leaves empty optional fields out', async () => {
    const schema = obj({ color: { type: 'string', default: 'red' }, note: { type: 'string' }, loud: { type: 'boolean', default: true } });
    const { result } = await fill(schema, ['', '', '', 'y']);
    expect(result).toEqual({ action: 'accept', content: { color: 'red', loud: true } });
  });
});
