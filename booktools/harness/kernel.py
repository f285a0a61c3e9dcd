"""Execute a chapter's Python the way Quarto's Jupyter engine does.

Quarto starts a kernel in the chapter's directory, runs setup code that sets plotly's renderer (if
plotly is installed) and defines `ojs_define`, then runs the chapter's cells in order.
`ojs_define(**kw)` displays a `<script type="ojs-define">` holding `json.dumps` of the values (a
pandas DataFrame becomes a column dict). We run the same setup code, collect those scripts, and
hand them to the browser tests exactly as Quarto's page would carry them.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from booktools.qmd import (
    Cell,
    output_dropped,
    parse_file,
    project_config,
    split_front_matter,
)

# Quarto's own definition of ojs_define for Python kernels (quarto-cli, jupyter setup code).
QUARTO_OJS_DEFINE = r"""
def ojs_define(**kwargs):
  import json
  try:
    # IPython 7.14 preferred import
    from IPython.display import display, HTML
  except:
    from IPython.core.display import display, HTML

  # do some minor magic for convenience when handling pandas
  # dataframes
  def convert(v):
    try:
      import pandas as pd
    except ModuleNotFoundError: # don't do the magic when pandas is not available
      return v
    if type(v) == pd.Series:
      v = pd.DataFrame(v)
    if type(v) == pd.DataFrame:
      j = json.loads(v.T.to_json(orient='split'))
      return dict((k,v) for (k,v) in zip(j["index"], j["data"]))
    else:
      return v

  v = dict(contents=list(dict(name=key, value=convert(value)) for (key, value) in kwargs.items()))
  display(HTML('<script type="ojs-define">' + json.dumps(v) + '</script>'), metadata=dict(ojs_define = True))
globals()["ojs_define"] = ojs_define
"""

# Quarto's Jupyter setup code (quarto-cli src/resources/jupyter/lang/python/setup.py) also sets
# plotly's renderer and trims every template's margins, in every chapter's kernel whenever plotly
# is installed, whether or not the chapter uses it: importing plotly.io costs seconds of each
# kernel, which is why the book does not install it. "notebook_connected" (plotly.js from its CDN)
# is Quarto's default; "notebook" (plotly.js inlined with the first figure) is what
# `execute: plotly-connected: false` asks for. A bare kernel would pick "plotly_mimetype", whose
# output carries no HTML at all, so without this the harness would never see what a figure puts
# on the page. The block is Quarto's, with `{plotly_connected}` filled in by quarto_setup_cells;
# Quarto runs `%reset` after its setup, hence the `del` here.
QUARTO_PLOTLY_SETUP = r"""
try:
  import plotly.io as pio
  if {plotly_connected}:
    pio.renderers.default = "notebook_connected"
  else:
    pio.renderers.default = "notebook"
  for template in pio.templates.keys():
    pio.templates[template].layout.margin = dict(t=30,r=0,b=0,l=0)
  del pio, template
except Exception:
  pass
"""


# The rest of that setup code that costs time in a kernel: it imports matplotlib (to set figure
# defaults) and pandas (to switch on its LaTeX repr for PDF output) whenever they are installed,
# in every chapter. matplotlib is not installed for the book; pandas is (chapters 2, 3, 11 and 12
# use it), so every chapter's kernel pays for importing it, and the harness's does too.
QUARTO_LIBRARY_SETUP = r"""
try:
  import matplotlib.pyplot as plt
  plt.rcParams['figure.figsize'] = (7, 5)
  plt.rcParams['figure.dpi'] = 96
  plt.rcParams['savefig.dpi'] = "figure"
  del plt
except Exception:
  pass
try:
  import pandas as pd
  del pd
except Exception:
  pass
"""


def quarto_setup_cells(path: str | Path) -> list[str]:
    """The setup code Quarto runs in a chapter's kernel before the chapter's own cells.

    `plotly-connected` is read from `execute:` in _quarto.yml, then in the chapter's front
    matter; Quarto's default is true for every format but dashboards.
    """
    connected = True
    front_matter, _ = split_front_matter(Path(path).read_text(encoding="utf-8").splitlines())
    for config in (project_config(path), front_matter):
        execute = (config or {}).get("execute") or {}
        connected = bool(execute.get("plotly-connected", connected))
    plotly = QUARTO_PLOTLY_SETUP.replace("{plotly_connected}", str(connected))
    return [QUARTO_LIBRARY_SETUP, plotly, QUARTO_OJS_DEFINE]


OJS_SCRIPT = re.compile(r'<script type="ojs-define">(.*)</script>', re.S)
NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")


def _strict_json(text: str):
    """Parse like the browser's JSON.parse: NaN / Infinity are errors, not numbers."""

    def reject(token):
        raise ValueError(f"ojs_define value is not JSON: {token} (the browser cannot parse it)")

    return json.loads(text, parse_constant=reject)


@dataclass
class ChapterRun:
    """What executing one chapter produced."""

    path: Path
    cells: list[Cell]
    define_scripts: list[str] = field(default_factory=list)  # raw JSON text of each ojs-define
    defines: dict[str, object] = field(default_factory=dict)  # name -> value, as OJS sees it
    inline: list[tuple[Cell, str]] = field(default_factory=list)  # expression -> rendered text
    outputs: list[str] = field(default_factory=list)  # stdout of each python cell, in order
    html_outputs: list[tuple[Cell, str]] = field(default_factory=list)  # each text/html output
    seconds: float = 0.0

    @property
    def ojs_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.kind == "ojs"]

    def stdout(self) -> str:
        return "\n".join(self.outputs)


def _text_of(outputs) -> str:
    parts = []
    for out in outputs:
        if out.output_type == "stream" and out.name == "stdout":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def _inline_results(client: NotebookClient, expressions: list[str]) -> list[str]:
    """Evaluate expressions as Quarto does: one `execute` request carrying them all as
    `user_expressions`; each renders as its result's text/plain. Any error raises."""
    msg_id = client.kc.execute("", user_expressions={str(i): e for i, e in enumerate(expressions)})
    content = client.wait_for_reply(msg_id)["content"]
    if content["status"] != "ok":
        raise RuntimeError(f"inline expressions failed: {content.get('ename')}: {content.get('evalue')}")
    texts = []
    for i, expression in enumerate(expressions):
        result = content["user_expressions"][str(i)]
        if result["status"] != "ok":
            raise RuntimeError(
                f"inline `{{python}} {expression}` failed: {result['ename']}: {result['evalue']}"
            )
        texts.append(result["data"].get("text/plain", ""))
    return texts


def run_chapter(
    path: str | Path, timeout: int = 300, env: dict[str, str | None] | None = None
) -> ChapterRun:
    """Execute every python cell and inline expression of a chapter in a fresh kernel.

    ``env`` adds to (or overrides) the environment the kernel inherits from this process, e.g.
    ``{"ATEN_CPU_CAPABILITY": "default"}``; a ``None`` value removes that variable. ``env=None``
    runs the kernel in this process's environment.

    As in Quarto's notebook.py, the prose between two python cells is one markdown cell, and its
    inline expressions are evaluated together, after the cells above it, in one request. They
    are evaluated once more after the last cell: both must render the same number, so a later
    cell cannot silently change an earlier sentence. Any error raises (nbclient's
    CellExecutionError names the cell).
    """
    path = Path(path).resolve()
    cells = parse_file(path)
    nb = nbformat.v4.new_notebook()
    for source in quarto_setup_cells(path):  # in every chapter, as Quarto does
        nb.cells.append(nbformat.v4.new_code_cell(source, metadata={"role": "setup"}))
    for i, cell in enumerate(cells):
        if cell.kind == "python":  # a code cell in Quarto's notebook, even with eval: false
            if cell.options.get("eval") is not False:  # Quarto skips eval: false
                nb.cells.append(
                    nbformat.v4.new_code_cell(cell.source, metadata={"role": "cell", "i": i})
                )
            nb.cells.append(nbformat.v4.new_markdown_cell("", metadata={"inline": []}))
        elif cell.kind == "inline":  # in the markdown cell after the last python cell
            if nb.cells[-1].cell_type != "markdown":
                nb.cells.append(nbformat.v4.new_markdown_cell("", metadata={"inline": []}))
            nb.cells[-1].metadata["inline"].append(i)
    nb.cells = [c for c in nb.cells if c.cell_type == "code" or c.metadata["inline"]]

    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    kernel_kw = {}
    if env is not None:  # the kernel's whole environment: ours, with env's changes
        kernel_kw["env"] = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    # nbclient's own execute() loop, with Quarto's inline step for markdown cells.
    client.reset_execution_trackers()
    where: dict[int, str] = {}
    with client.setup_kernel(**kernel_kw):
        client.wait_for_reply(client.kc.kernel_info())
        for index, nb_cell in enumerate(nb.cells):
            if nb_cell.cell_type == "code":
                client.execute_cell(nb_cell, index)
            else:
                ids = nb_cell.metadata["inline"]
                texts = _inline_results(client, [cells[i].source for i in ids])
                where.update(zip(ids, texts, strict=True))
        inline_ids = sorted(where)
        at_end = dict(zip(inline_ids, _inline_results(client, [cells[i].source for i in inline_ids]),
                          strict=True))
    run = ChapterRun(path=path, cells=cells, seconds=time.perf_counter() - start)

    for i in inline_ids:
        cell, text = cells[i], where[i].strip()
        if not NUMBER.match(text):
            raise ValueError(
                f"{path.name}:{cell.line}: inline `{{python}} {cell.source}` rendered {text!r}; "
                "inline expressions must be plain numbers (round them in a cell)"
            )
        run.inline.append((cell, text))
        if at_end[i].strip() != text:
            raise ValueError(
                f"{path.name}:{cell.line}: `{{python}} {cell.source}` is {text}"
                f" where it stands but {at_end[i].strip()} at the end of the chapter"
            )
    for nb_cell in nb.cells:
        if nb_cell.metadata.get("role") == "cell":
            run.outputs.append(_text_of(nb_cell.outputs))
            run.html_outputs.extend((cells[nb_cell.metadata["i"]], out["data"]["text/html"])
                                    for out in nb_cell.outputs if "text/html" in out.get("data", {}))
            for out in nb_cell.outputs:
                if out.output_type == "display_data" and out.get("metadata", {}).get("ojs_define"):
                    cell = cells[nb_cell.metadata["i"]]
                    dropped = output_dropped(cell.options)
                    if dropped:
                        raise ValueError(
                            f"{path.name}:{cell.line}: ojs_define in a cell with `{dropped}`: Quarto "
                            "drops that cell's output, and ojs_define's data travel in it, so the "
                            "page's OJS never sees them. Use `echo: false` instead."
                        )
                    m = OJS_SCRIPT.search(out["data"]["text/html"])
                    run.define_scripts.append(m.group(1))
                    for item in _strict_json(m.group(1))["contents"]:
                        if item["name"] in run.defines:
                            raise ValueError(
                                f"{path.name}: ojs_define defines {item['name']!r} twice"
                            )
                        run.defines[item["name"]] = item["value"]
    return run
