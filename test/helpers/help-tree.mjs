// `node help-tree.mjs <dist/cli/program.js> <section regex> <subcommand regex>`: every `--help`
// of the built CLI two levels deep (`toolwright`, `toolwright audit`, `toolwright audit prune`…),
// written to stdout as one JSON object keyed by the command path: { ok: exit code 0, text: what
// was written, stdout then stderr }. One process running the build's runCli (what
// dist/cli/main.js runs) once per path, instead of one `node dist/cli/main.js … --help` process
// per path: each of those paid Node's and the CLI's start-up (~0.15 CPU-s) for a few lines.
//
// What a process would show is kept as it would be: writes to process.stdout/stderr are caught
// as well as runCli's io (some commands print their help themselves), and a command that ends
// the process (commander calls process.exit after a help where exitOverride is not set) ends
// that run: what it wrote until then, with that exit code, is the result.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [programPath, sectionSource, subcommandSource] = process.argv.slice(2);
const { runCli } = await import(pathToFileURL(resolve(programPath)).href);
const section = new RegExp(sectionSource, 'm');
const subcommand = new RegExp(subcommandSource, 'gm');
const subcommands = (text) => [...(text.split(section)[1] ?? '').matchAll(subcommand)].map((m) => m[1]);

class Exited {
  constructor(code) {
    this.code = code;
  }
}
const real = { out: process.stdout.write, err: process.stderr.write, exit: process.exit };
const helps = {};

async function help(path) {
  let stdout = '';
  let stderr = '';
  let exited;
  process.stdout.write = (text) => ((stdout += text), true);
  process.stderr.write = (text) => ((stderr += text), true);
  process.exit = (code) => {
    exited ??= { code: code ?? 0, text: stdout + stderr };
    throw new Exited(code);
  };
  try {
    const code = await runCli([...path, '--help'], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }).catch((err) => {
      if (err instanceof Exited) return err.code;
      throw err;
    });
    helps[path.join(' ')] = exited ? { ok: exited.code === 0, text: exited.text } : { ok: code === 0, text: stdout + stderr };
  } finally {
    process.stdout.write = real.out;
    process.stderr.write = real.err;
    process.exit = real.exit;
  }
  return helps[path.join(' ')].text;
}

for (const top of subcommands(await help([]))) for (const sub of subcommands(await help([top]))) await help([top, sub]);
process.stdout.write(JSON.stringify(helps));
