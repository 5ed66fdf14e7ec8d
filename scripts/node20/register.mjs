// Node 20 lacks fs.globSync (Node 22 added it), which @modelcontextprotocol/conformance
// imports by name. Preloaded with --import, this points that package's `fs` imports
// at a module that adds the function. Newer Nodes are left alone.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
