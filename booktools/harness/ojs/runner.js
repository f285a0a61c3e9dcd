// The test page's OJS engine: the same Observable runtime, parser and standard library that
// Quarto's page runs, wired the way Quarto wires them.
//
// Quarto's page carries each {ojs} chunk in a <script type="ojs-module-contents"> and each
// Python ojs_define(...) in a <script type="ojs-define">. Its interpreter parses every chunk with
// @observablehq/parser, defines one runtime variable per cell (two for `viewof`, three for
// `mutable`), imports local .js files with the browser's native import(), and defines the
// ojs_define values as plain variables. This file does the same, and records every cell's
// state so the tests can wait for the page to settle and fail on any error.
//
// Compiling a cell's body into a function is what every OJS interpreter (Quarto's included)
// must do; it is confined to this test-side engine and never touches the book's own code.

import {Runtime} from "@observablehq/runtime";
import {FileAttachments, Library} from "@observablehq/stdlib";
import {CellParser, parseCell} from "@observablehq/parser";
import {tokTypes} from "acorn";

// One {ojs} chunk may hold several cells. @observablehq/parser 6 parses a single cell, so, like
// Quarto's parser fork, read a chunk as a sequence of cells and then parse each one on its own.
class ModuleParser extends CellParser {
  parseTopLevel(node) {
    node.cells = [];
    while (this.type !== tokTypes.eof) node.cells.push(this.parseCell(this.startNode()));
    this.next();
    return this.finishNode(node, "Program");
  }
}

function parseModule(input) {
  return ModuleParser.parse(input, {ecmaVersion: 13}).cells.map((c) => {
    const text = input.slice(c.start, c.end);
    return {text, cell: parseCell(text)};
  });
}

const harness = (window.__ojs = {errors: [], cells: [], events: 0, lastEvent: 0, ready: false});

window.addEventListener("error", (e) => harness.errors.push({cell: null, message: String(e.message)}));
window.addEventListener("unhandledrejection", (e) =>
  harness.errors.push({cell: null, message: String(e.reason?.message ?? e.reason)})
);

// stdlib loads Plot, Inputs, d3 and htl with require("name@version/path"); Quarto's page points
// that at a CDN, the tests at /npm/ on the local server (the npm packages from the lock file).
function resolve(name, base) {
  if (/^(\w+:|\/|\.)/.test(name)) return new URL(name, base ?? location.href).href;
  return `${location.origin}/npm/${name}`;
}

// Quarto adds `transpose` so a DataFrame's column dict can become rows.
function transpose(df) {
  const keys = Object.keys(df);
  return df[keys[0]]
    .map((_, i) => Object.fromEntries(keys.map((key) => [key, df[key][i] === null ? undefined : df[key][i]])))
    .filter((row) => !Object.values(row).every((e) => e === undefined));
}

const library = new Library(resolve);
library.transpose = () => transpose;
// Quarto's `width` is the width of <main>, the text column (its quarto-ojs-runtime.js), not of
// <body> as in Observable's stdlib: a widget sized by `width` fits the column on every screen.
const mainEl = document.querySelector("main") || document.body;
library.width = () =>
  library.Generators.observe((change) => {
    let width = change(mainEl.clientWidth);
    const resized = () => {
      if (mainEl.clientWidth !== width) change((width = mainEl.clientWidth));
    };
    window.addEventListener("resize", resized);
    return () => window.removeEventListener("resize", resized);
  });
// FileAttachment("x") as Quarto resolves it (fileAttachmentPathResolver in its
// quarto-ojs-runtime.js): a relative name against the page's directory, so that a chapter's
// FileAttachment("../data/x.json") is the site's data/x.json; a name starting with "/" against
// the site root; an http(s) URL as it is. Observable's stdlib alone has no files at all.
const MIME = {json: "application/json", csv: "text/csv", tsv: "text/tab-separated-values", txt: "text/plain"};
function resolveAttachment(name) {
  const page = window.location.href.split("#")[0].replace(/[^/]*$/, "");
  const url = /^https?:/.test(name) ? name : name.startsWith("/") ? new URL(name, location.origin).href : `${page}${name}`;
  return {url, mimeType: MIME[/\.(\w+)$/.exec(name)?.[1]] ?? null};
}
library.FileAttachment = () => FileAttachments(resolveAttachment);
const runtime = new Runtime(library);
const main = runtime.module();

function show(el, value) {
  if (value instanceof Node) el.replaceChildren(value);
  else if (value === undefined) el.replaceChildren();
  else el.textContent = typeof value === "string" ? value : safeString(value);
}

function safeString(value) {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? String(value);
  } catch {
    return String(value);
  }
}

function observer(el, label, display = true) {
  const state = {label, status: "pending"};
  harness.cells.push(state);
  return {
    pending() {
      state.status = "pending";
    },
    fulfilled(value) {
      state.status = "fulfilled";
      harness.events++;
      if (display) show(el, value);
      harness.lastEvent = performance.now(); // after the DOM update: what a redraw costs
    },
    rejected(error) {
      state.status = "rejected";
      harness.events++;
      const message = String(error?.message ?? error);
      harness.errors.push({cell: label, message});
      el.textContent = `OJS error in ${label}: ${message}`;
    }
  };
}

function referenceName(ref) {
  if (ref.type === "ViewExpression") return `viewof ${ref.id.name}`;
  if (ref.type === "MutableExpression") return `mutable ${ref.id.name}`;
  return ref.name;
}

function paramName(name) {
  if (name.startsWith("viewof ")) return `$viewof_${name.slice(7)}`;
  if (name.startsWith("mutable ")) return `$mutable_${name.slice(8)}`;
  return name;
}

function compile(cell, source) {
  const inputs = [...new Set(cell.references.map(referenceName))];
  let body = source.slice(cell.body.start, cell.body.end);
  const special = cell.references.filter((r) => r.type !== "Identifier").sort((a, b) => b.start - a.start);
  for (const ref of special) {
    const text = ref.type === "ViewExpression" ? `$viewof_${ref.id.name}` : `$mutable_${ref.id.name}.value`;
    body = body.slice(0, ref.start - cell.body.start) + text + body.slice(ref.end - cell.body.start);
  }
  const head = `${cell.async ? "async " : ""}function${cell.generator ? "*" : ""}(${inputs.map(paramName).join(", ")})`;
  const code = cell.body.type === "BlockStatement" ? `${head} ${body}` : `${head} {\nreturn (\n${body}\n);\n}`;
  return {inputs, fn: new Function(`return (${code});`)()};
}

function defineImport(cell, el, label) {
  const source = cell.body.source.value;
  if (!/^(\.{1,2}\/|\/).*\.js$/.test(source)) {
    throw new Error(`${label}: only relative .js imports are allowed in this book, got ${JSON.stringify(source)}`);
  }
  const url = new URL(source, document.baseURI).href;
  const module = import(url);
  for (const spec of cell.body.specifiers) {
    if (spec.view || spec.mutable) throw new Error(`${label}: viewof/mutable imports are not supported`);
    const name = spec.imported.name;
    main.variable(observer(el, `${label} import ${name}`, false)).define(spec.local.name, [], () =>
      module.then((m) => {
        if (!(name in m)) throw new Error(`${source} has no export named ${name}`);
        return m[name];
      })
    );
  }
}

function defineCell(cell, source, el, label) {
  if (cell.body.type === "ImportDeclaration") return defineImport(cell, el, label);
  const {inputs, fn} = compile(cell, source);
  const obs = observer(el, label);
  if (!cell.id) return main.variable(obs).define(inputs, fn);
  if (cell.id.type === "Identifier") return main.variable(obs).define(cell.id.name, inputs, fn);
  const name = cell.id.id.name;
  if (cell.id.type === "ViewExpression") {
    main.variable(obs).define(`viewof ${name}`, inputs, fn);
    main.variable(observer(el, `${label} (value of viewof ${name})`, false)).define(
      name, ["Generators", `viewof ${name}`], (G, view) => G.input(view)
    );
  } else {
    main.define(`initial ${name}`, inputs, fn);
    main.variable(obs).define(`mutable ${name}`, ["Mutable", `initial ${name}`], (M, v) => new M(v));
    main.variable(observer(el, `${label} (value of mutable ${name})`, false)).define(
      name, [`mutable ${name}`], (m) => m.generator
    );
  }
}

function run() {
  for (const script of document.querySelectorAll('script[type="ojs-module-contents"]')) {
    for (const {cellName, source} of JSON.parse(script.text).contents) {
      const chunk = document.getElementById(cellName);
      let program;
      try {
        program = parseModule(source);
      } catch (error) {
        harness.errors.push({cell: cellName, message: `parse error: ${error.message}`});
        continue;
      }
      program.forEach(({text, cell}, k) => {
        const el = document.createElement("div");
        el.className = "ojs-cell-output";
        el.dataset.cell = `${cellName}-${k}`;
        chunk.appendChild(el);
        try {
          defineCell(cell, text, el, `${cellName}-${k}`);
        } catch (error) {
          harness.errors.push({cell: `${cellName}-${k}`, message: String(error.message)});
        }
      });
    }
  }
  for (const script of document.querySelectorAll('script[type="ojs-define"]')) {
    for (const {name, value} of JSON.parse(script.text).contents) main.define(name, [], () => value);
  }
  harness.ready = true;
}

run();
