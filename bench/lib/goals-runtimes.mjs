// The goals of issue 33 (runs everywhere, installs light), judged when `npm run bench:runtimes`
// (or any run naming these targets) measured them: the fetch face on Node against the Node
// adapter, Deno and Bun beside it, and the default trail of an install without better-sqlite3
// (JSON lines with group commit) against raw and against no trail.

/**
 * Adds the goals to `add(goal, era, needed, ok, value, unit)`. `at(transport, scenario, conc)`
 * finds a cell's row in a set of rows; `med(row, target, field)` is a target's median there.
 */
export function runtimeGoals({ rows, at, add, med }) {
  const h16 = at('http', 'sum', 16);
  const s16 = at('stdio', 'sum', 16);
  const ran = (cell, ...targets) => targets.every((t) => cell(rows)?.byTarget[t]);
  if (ran(h16, 'toolwright-fetch', 'toolwright-modern'))
    add(
      'HTTP calculate_sum, 16 conn: fetch face on Node ÷ Node adapter',
      'modern',
      '≥ 0.9×',
      (v) => v >= 0.9,
      (rs) => med(h16(rs), 'toolwright-fetch') / med(h16(rs), 'toolwright-modern'),
    );
  // Deno and Bun keep JSON lines (no Node add-on there): set beside the Node adapter with the same trail when it ran.
  const nodeBase = ran(h16, 'toolwright-jsonl') ? 'toolwright-jsonl' : 'toolwright-modern';
  for (const [target, name] of [
    ['toolwright-deno', 'Deno (Deno.serve'],
    ['toolwright-bun', 'Bun (Bun.serve'],
  ]) {
    if (ran(h16, target, nodeBase))
      add(
        `HTTP calculate_sum, 16 conn: ${name}, fetch face) ÷ Node adapter${nodeBase === 'toolwright-jsonl' ? ', both JSON lines' : ''}`,
        'modern',
        'reported',
        null,
        (rs) => med(h16(rs), target) / med(h16(rs), nodeBase),
      );
  }
  for (const [transport, cell, label] of [
    ['stdio', s16, 'stdio calculate_sum, window 16'],
    ['http', h16, 'HTTP calculate_sum, 16 conn'],
  ]) {
    if (transport === 'stdio' && ran(cell, 'toolwright-jsonl', 'raw'))
      add(
        `${label}: JSON-lines trail vs raw`,
        'modern',
        '≥ 0.7×',
        (v) => v >= 0.7,
        (rs) => med(cell(rs), 'toolwright-jsonl') / med(cell(rs), 'raw'),
      );
    if (ran(cell, 'toolwright-jsonl', 'toolwright-modern'))
      add(
        `${label}: JSON-lines trail ÷ SQLite trail`,
        'modern',
        'reported',
        null,
        (rs) => med(cell(rs), 'toolwright-jsonl') / med(cell(rs), 'toolwright-modern'),
      );
    // One record per call: the server CPU a call costs with the trail minus without it.
    for (const [target, trail, needed, ok] of [
      ['toolwright-jsonl', 'JSON-lines', '≤ 2 µs', (v) => v <= 2],
      ['toolwright-modern', 'SQLite', 'reported', null],
    ]) {
      if (ran(cell, target, 'toolwright-noaudit'))
        add(
          `${label}: ${trail} trail's server CPU per record (with − without)`,
          'modern',
          needed,
          ok,
          (rs) => med(cell(rs), target, 'cpu') - med(cell(rs), 'toolwright-noaudit', 'cpu'),
          'µs',
        );
    }
  }
}
