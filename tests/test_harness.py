"""The harness must be able to fail: each way a chapter can break is caught."""

from __future__ import annotations

import pytest
from nbclient.exceptions import CellExecutionError

from conftest import executed
from harness.qmd import parse_qmd


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
    assert cells[1].options == {"echo": "false"}
    assert cells[2].options == {"echo": "false"}


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
