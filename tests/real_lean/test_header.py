"""jig's import-header reader (`jigcli.lean.header`) against real Lean 4.35's own reading of
the same files (`lean --deps-json`, which parses the header and nothing else): the judge
imports what the reader finds, so it must find what Lean imports, no more, no less."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.lean.declarations import plain_name
from jigcli.lean.header import imports

from .conftest import RealLean

# Headers as real files write them, and the corners of Lean's header grammar.
AGREE = {
    "mathlib style": (
        "/-\nCopyright (c) 2024. All rights reserved.\n-/\nimport Mathlib.Data.Nat.Basic\n"
        "import Mathlib.Tactic -- for linarith\n\n/-! # Title -/\ntheorem t : True := trivial\n"
    ),
    "module system": (
        "module\n\npublic import Mathlib.Order.Basic\npublic meta import Lean.Elab\n"
        "import all Foo.Internal\nmeta import Bar\n\n@[expose] public section\n"
    ),
    "prelude": "prelude\nimport Init.Core\nimport Init.Data.Nat\n",
    "module prelude": "module\nprelude\npublic import JigBase\n",
    "several on a line": "import A import B.C\n  import\n    D\n",
    "guillemets": "import B.«end»\nimport «weird name».X\nimport A.«b.c»\n",
    "nested comment": "import A /- a /- nested -/ comment -/ import B\n",
    "trailing dot": "import X.Y.\nimport Z\n",
    "a command ends it": "import A\nopen Nat\nimport Later\n",
    "a doc comment ends it": "import A\n/-- doc -/\nimport B\n",
    "a module doc ends it": "/-! doc -/\nimport A\n",
    "modifiers out of order end it": "module\nimport A\nmeta public import B\n",
    "exit ends it": "#exit\nimport A\n",
    "prelude after module only": "prelude\nmodule\nimport A\n",
    "an import with a list": "import X (y)\n",
    "repeated": "import A\nimport A\nimport B\n",
}


def _lean_reads(real_lean: RealLean, text: str, tmp_path: Path) -> list[str] | str:
    """The modules Lean's header names (the implicit `Init` of a non-`prelude` file left out,
    as the judge leaves it), each once; or Lean's header error."""
    file = tmp_path / "Header.lean"
    file.write_text(text)
    done = real_lean.run(file, "--deps-json")
    (entry,) = json.loads(done.stdout)["imports"]
    if entry["errors"]:
        return "; ".join(entry["errors"])
    modules = [i["module"] for i in entry["result"]["imports"] if i["module"] != "Init"]
    return list(dict.fromkeys(plain_name(m) for m in modules))


@pytest.mark.parametrize("case", sorted(AGREE))
def test_the_reader_finds_the_imports_lean_finds(real_lean: RealLean, tmp_path: Path, case: str):
    text = AGREE[case]
    assert [plain_name(m) for m in imports(text)] == _lean_reads(real_lean, text, tmp_path)


def test_a_header_lean_refuses_is_refused_by_lean_whatever_jig_reads(
    real_lean: RealLean, tmp_path: Path
):
    """Where Lean refuses the header itself the build fails before any import list matters:
    the reader need not agree, and Lean's refusal is checked here so that stays true."""
    for text in ('import "str"\nimport X\n', "import all A\n"):
        assert isinstance(_lean_reads(real_lean, text, tmp_path), str)
