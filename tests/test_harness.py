"""The harness must be able to fail: each way a chapter can break is caught."""

from __future__ import annotations

import json

import pytest
from nbclient.exceptions import CellExecutionError

from booktools.harness.pandoc import read_prose
from booktools.qmd import CellOptionError, output_dropped, parse_qmd
from conftest import ROOT, executed


def test_parse_finds_cells_in_order():
    text = """---
title: t
---
Prose with `{python} a` inline.

```{python}
#| echo: false
a = 1
```

```python
not executed
```

```{ojs}
//| echo: false
b = a + 1
```
"""
    cells = parse_qmd(text)
    assert [c.kind for c in cells] == ["inline", "python", "ojs"]
    assert cells[1].options == {"echo": False}
    assert cells[2].options == {"echo": False}


def test_unclosed_cell_is_an_error():
    with pytest.raises(ValueError, match="unclosed"):
        parse_qmd("```{python}\nx = 1\n")


def test_good_fixture_runs_and_its_widget_responds(open_chapter):
    run = executed("fixtures/harness-ok")
    assert [text for _, text in run.inline] == ["41"]
    assert len(run.defines["xs"]) == 30
    page = open_chapter("fixtures/harness-ok")
    page.assert_clean()
    before, drawing = page.data_marks("smoke"), page.svg_signature("smoke")
    page.set_input("points", 20)
    assert page.readout("smoke", "k") == 20
    assert page.data_marks("smoke") > before
    assert page.svg_signature("smoke") != drawing


def test_file_attachment_resolves_like_quarto(open_chapter):
    """FileAttachment("../data/x.json") is the site's data/x.json, as Quarto's page resolves it;
    a missing file is an error the page reports."""
    page = open_chapter("fixtures/harness-file-attachment")
    shipped = json.loads((ROOT / "data" / "tiny_reasoner.json").read_text())
    assert page.readout("attached", "layers") == shipped["config"]["n_layer"]
    errors = page.errors()
    assert any("no-such-file.json" in e for e in errors), errors
    assert not any("tiny_reasoner.json" in e for e in errors), errors


def test_python_cell_error_fails():
    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        executed("fixtures/harness-cell-error")


def test_nan_payload_fails():
    with pytest.raises(ValueError, match="not JSON"):
        executed("fixtures/harness-nan")


def test_inline_number_changed_later_fails():
    with pytest.raises(ValueError, match="where it stands"):
        executed("fixtures/harness-inline-drift")


def test_ojs_cell_error_is_reported(open_chapter):
    page = open_chapter("fixtures/harness-broken-ojs")
    errors = page.errors()
    assert any("undefinedVariable" in e for e in errors), errors
    with pytest.raises(AssertionError):
        page.assert_clean()


@pytest.mark.parametrize(
    "head",
    ["#|echo: false", "#| echo: false", "# | echo: false", "#  |echo: false"],
)
def test_cell_options_are_read_as_quarto_reads_them(head):
    """Quarto's pattern is `#`, optional whitespace, `|`, one optional space."""
    (cell,) = parse_qmd(f"```{{python}}\n{head}\nx = 1\n```\n")
    assert cell.options == {"echo": False}


def test_a_comment_that_looks_like_an_option_fails():
    with pytest.raises(CellOptionError, match="Validation of YAML cell metadata failed"):
        executed("fixtures/harness-bad-option")


@pytest.mark.parametrize(
    "head, match",
    [("#| echo: nope", "echo"), ("#| inculde: false", "unknown option"), ("#| echo: [", "YAML")],
)
def test_invalid_cell_options_fail(head, match):
    with pytest.raises(CellOptionError, match=match):
        parse_qmd(f"```{{python}}\n{head}\nx = 1\n```\n")


def test_execute_defaults_reach_the_cells():
    text = "---\nexecute:\n  output: false\n---\n\n```{python}\nx = 1\n```\n"
    (cell,) = parse_qmd(text, project={"execute": {"echo": False, "freeze": "auto"}})
    assert cell.options == {"echo": False, "output": False}
    assert output_dropped(cell.options) == "output: false"


def test_ojs_define_in_a_dropped_cell_fails():
    with pytest.raises(ValueError, match="include: false.*Quarto drops"):
        executed("fixtures/harness-dropped-define")


def test_pandoc_sees_broken_math_and_dangling_references():
    prose = read_prose(ROOT / "tests/fixtures/harness-prose-defects.qmd")
    assert len(prose.stray_dollars) == 1 and "varepsilon" in prose.stray_dollars[0]
    assert prose.references == {"sec-nowhere", "sec-here"}
    assert "sec-here" in prose.ids and "sec-nowhere" not in prose.ids
    assert prose.citations == {"nobody2099"}
