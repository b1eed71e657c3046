"""What a statement carries besides its words: its label and blueprint marks (`\\lean`,
`\\uses`, `\\proves`, `\\leanok`, `\\mathlibok`, `\\notready`, `\\discussion`), and its
words as the PDF shows them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from jigcli.latex.statements.groups import comma_list, read_group, tex_words

# Blueprint metadata inside a statement: not part of what the PDF says.
META_COMMANDS = re.compile(
    r"\\(?:label|lean|uses|proves|discussion)\s*\{[^{}]*\}|\\(?:leanok|notready|mathlibok)\b"
)


def own_part(structural: str) -> str:
    """The statement's text before its first `\\item`: where its own `\\label` lives."""
    first_label = structural.find("\\label")
    first_item = structural.find("\\item")
    if first_item < 0 or (0 <= first_label < first_item):
        return structural
    return structural[:first_item] if first_label < 0 else structural


@dataclass(frozen=True)
class Marks:
    """The marks written inside a statement or a proof."""

    label: str | None
    labels: tuple[str, ...]  # every `\label`, in order: plasTeX maps each to the statement
    lean: tuple[str, ...]
    uses: tuple[str, ...]
    leanok: bool
    mathlibok: bool
    notready: bool
    discussion: str | None
    proves: str | None


def marks_in(structural: str) -> Marks:
    def groups(command: str) -> list[str]:
        pattern = rf"\\{command}\s*\{{([^{{}}]*)\}}"
        return [tex_words(m) for m in re.findall(pattern, structural)]

    def flag(command: str) -> bool:
        return re.search(rf"\\{command}(?![A-Za-z@])", structural) is not None

    labels, discussions, proves = groups("label"), groups("discussion"), groups("proves")
    return Marks(
        label=labels[0] if labels else None,
        labels=tuple(dict.fromkeys(labels)),
        lean=tuple(n for group in groups("lean") for n in comma_list(group)),
        uses=tuple(n for group in groups("uses") for n in comma_list(group)),
        leanok=flag("leanok") or flag("mathlibok"),  # leanblueprint: mathlibok is leanok too
        mathlibok=flag("mathlibok"),
        notready=flag("notready"),
        discussion=discussions[0].lstrip("#").strip() or None if discussions else None,
        proves=proves[0] if proves else None,
    )


def labels_in(structural: str) -> set[str]:
    return {tex_words(m) for m in re.findall(r"\\label\s*\{([^{}]*)\}", structural)}


def as_typeset(title: str) -> str:
    """A title as the PDF typesets it: `\\texorpdfstring{tex}{pdf}` is its first argument."""
    out, pos = [], 0
    while (found := title.find("\\texorpdfstring", pos)) >= 0:
        tex = read_group(title, found + len("\\texorpdfstring"))
        pdf = read_group(title, tex[1]) if tex else None
        if tex is None or pdf is None:
            break
        out.append(title[pos:found] + tex[0])
        pos = pdf[1]
    return "".join(out) + title[pos:]


def clean_text(visible: str) -> str:
    """The statement's words: metadata removed, lines right-trimmed, dedented, ends trimmed."""
    lines = [line.rstrip() for line in META_COMMANDS.sub("", visible).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indents = [len(line) - len(line.lstrip()) for line in lines if line]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)
