// Parses Mermaid diagrams with Mermaid's own parser (the `mermaid` npm package, version 11),
// so locksim's diagrams are known to render on GitHub and in the Mermaid live editor.
//
//   LOCKSIM_MERMAID_DIR=/path/where/npm-install-mermaid@11-ran node tests/mermaid/parse.mjs [FILE...]
//
// With no FILE, reads one diagram from stdin. Prints one JSON line per diagram:
//   {"file":..., "ok":true, "type":"sequence", "participants":[...], "arrows":N, "notes":N, "chars":N}
//   {"file":..., "ok":false, "error":"..."}
// and exits 1 if any diagram fails, 2 if Mermaid cannot be loaded.
//
// Mermaid 11 parses sequence diagrams in Node without a DOM (checked: a bad diagram is still
// rejected), so no DOM shim is loaded; only DOMPurify's hooks are stubbed (below). The 50 000-character check is Mermaid's default
// `maxTextSize`: over it, `mermaid.render` draws an error instead of the diagram.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const MAX_TEXT_SIZE = 50000;

const dir = process.env.LOCKSIM_MERMAID_DIR;
if (!dir) {
  console.error('parse.mjs: set LOCKSIM_MERMAID_DIR to a folder where `npm install mermaid@11` ran');
  process.exit(2);
}
let mermaid;
try {
  // A diagram's `title` and `accDescr` go through DOMPurify, which in Node (no DOM) is an empty
  // shell. Give that shell pass-through hooks so Node parses them as a browser would; the
  // sanitising itself only changes the text, never the diagram's structure this script checks.
  // The shell is the very module instance Mermaid imports (`dompurify`'s ES entry).
  const purifyDist = dirname(createRequire(join(dir, 'package.json')).resolve('dompurify'));
  const purify = (await import(pathToFileURL(join(purifyDist, 'purify.es.mjs')).href)).default;
  if (!purify.isSupported) {
    purify.addHook = () => {};
    purify.removeHook = () => {};
    purify.removeHooks = () => {};
    purify.sanitize = (text) => text;
  }
  // The package lives outside this repository: resolve it from that folder, not from here.
  const entry = createRequire(join(dir, 'package.json')).resolve('mermaid');
  mermaid = (await import(pathToFileURL(entry).href)).default;
} catch (e) {
  console.error(`parse.mjs: cannot load mermaid from ${dir}: ${e.message}`);
  process.exit(2);
}
const version = JSON.parse(
  readFileSync(createRequire(join(dir, 'package.json')).resolve('mermaid/package.json'), 'utf8'),
).version;
if (!version.startsWith('11.')) {
  console.error(`parse.mjs: mermaid ${version} in ${dir}; this check wants version 11`);
  process.exit(2);
}
mermaid.initialize({ startOnLoad: false });

// Mermaid's sequence line type of a note (sequenceDb LINETYPE.NOTE). An arrow is any other
// entry with both ends; block markers (rect, loop...) and activations lack one.
const NOTE = 2;

const inputs = process.argv.length > 2
  ? process.argv.slice(2).map((file) => ({ file, text: readFileSync(file, 'utf8') }))
  : [{ file: '-', text: readFileSync(0, 'utf8') }];

let failed = 0;
for (const { file, text } of inputs) {
  try {
    if (text.length > MAX_TEXT_SIZE) {
      throw new Error(`${text.length} characters: over Mermaid's maxTextSize (${MAX_TEXT_SIZE})`);
    }
    const parsed = await mermaid.parse(text);
    const summary = { file, ok: true, mermaid: version, type: parsed.diagramType, chars: text.length };
    if (parsed.diagramType === 'sequence') {
      const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
      const entries = diagram.db.getMessages();
      summary.participants = [...diagram.db.getActors().values()].map((a) => a.description);
      summary.arrows = entries.filter((m) => m.type !== NOTE && m.from && m.to).length;
      summary.notes = entries.filter((m) => m.type === NOTE).length;
    }
    console.log(JSON.stringify(summary));
  } catch (e) {
    failed += 1;
    console.log(JSON.stringify({ file, ok: false, error: String(e?.message ?? e) }));
  }
}
process.exit(failed ? 1 : 0);
