"""Reading a TeX log into diagnostics with a real `file:line`.

TeX writes one log for the whole run. The file a message is about is tracked through the
log's parentheses (`(./intro.tex` opens a file, its `)` closes it); errors printed with
`-file-line-error` name theirs. The line comes from, in order: "on input line N" in the
message (the real place: where a reference was used; for an environment ended by the wrong
`\\end`, the `\\end` the context line names; for one left open, its `\\begin`), the
`file:N:` prefix or the `l.N` context line, and otherwise the project source itself (the
`\\usepackage` of a missing package, the second `\\label` of a duplicate, the `\\write18` that
shell escape stopped). A message from inside a package or class is placed on the project file
that loaded it. A line the file tracked does not have (a stray `)` in the log's text closed
the file TeX was reading) is placed in the project file read so far that has it, when the
message's quoted words or the file's length single it out. When nothing names a line, `line`
is None rather than a guess.

Severities: `error` for TeX and LaTeX errors; `warning` for LaTeX, package and class warnings
(undefined references and citations among them) and commands shell escape stopped; `info` for
overfull and underfull boxes and font substitutions, which never change the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jigcli.latex.diagnostic import Diagnostic, Severity, file_name
from jigcli.latex.root import strip_comments


@dataclass
class LogReport:
    diagnostics: list[Diagnostic]
    engine: str | None  # "pdfTeX · TeX Live 2022", from the log's banner
    missing_files: list[str] = field(default_factory=list)  # names TeX looked for and lacked

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


_BANNER = re.compile(
    r"^This is (?P<engine>[A-Za-z-]+TeX|[A-Za-z]+), Version \S+ "
    r"\((?P<dist>TeX Live \d{4}|MiKTeX [\d.]+)[^)]*\)"
)
_FILE_LINE_ERROR = re.compile(
    r"^(?P<file>(?:\.{1,2}/|/)?[^:\s()][^:()]*\.[A-Za-z0-9]+):(?P<line>\d+): (?P<msg>.*)$"
)
_BANG_ERROR = re.compile(r"^! (?P<msg>.*)$")
_WARNING = re.compile(
    r"^(?P<who>LaTeX|LaTeX Font|LaTeX3?|Package [\w.@-]+|Class [\w.@-]+|Module [\w.@-]+) "
    r"Warning: (?P<msg>.*)$"
)
_BOX = re.compile(
    r"^(?P<msg>(?:Overfull|Underfull) \\[hv]box \([^)]*\)).*?"
    r"(?:at lines? (?P<line>\d+)(?:--\d+)?)?$"
)
_RUNSYSTEM = re.compile(r"^runsystem\((?P<cmd>.*)\)\.\.\.(?P<what>disabled|executed)")
_PDFTEX_WARNING = re.compile(r"^pdfTeX warning(?: \([^)]*\))?: (?P<msg>.*)$")
_CONTEXT_LINE = re.compile(r"^l\.(?P<line>\d+) ?(?P<text>.*)$")
_ON_INPUT_LINE = re.compile(r"\s*on input line (?P<line>\d+)\.?")
_BEGUN = re.compile(r"\\begin\{(?P<env>[^{}]+)\} on input line \d+")
# The `\end` that ended the wrong environment; `\end{document}` means one was left open.
_ENDED_BY = re.compile(r"ended by \\end\{(?P<env>[^{}]+)\}")
_NOT_FOUND = re.compile(r"File [`'\"](?P<name>[^`'\"]+)' not found")
_CANT_FIND = re.compile(r"I can't find file [`'](?P<name>.+)'\.?$")
_LABEL_TWICE = re.compile(r"Label [`'](?P<key>[^']+)' multiply defined")
_CONTROL_SEQUENCE = re.compile(r"\\(?:[A-Za-z@]+|.)")
_FILE_OPEN = re.compile(r'\((?P<path>"[^"]+"|[^\s()"{}\[\]]+)')
_CONTINUATION = re.compile(r"^(?:\([\w.@-]+\)\s+|\s+)(?P<rest>\S.*)$")
_GENERATED = frozenset({".aux", ".toc", ".lof", ".lot", ".out", ".nav", ".snm", ".idx", ".glo"})
_SUMMARY_WARNINGS = ("There were undefined references", "There were undefined citations",
                     "There were multiply-defined labels", "There were undefined")  # fmt: skip


_REFUSED = re.compile(
    r"^\S+: Not (?P<verb>reading from|writing to) (?P<name>.+?) \(open(?:in|out)_any = \w\)\.?$",
    re.MULTILINE,
)


def refused_files(output: str) -> list[tuple[str, str]]:
    """(`reading` | `writing`, name) for each file kpathsea's paranoid mode kept TeX from: the
    engine says so on its terminal (`pdflatex: Not reading from /etc/passwd (openin_any =
    p).`), never in its log. Each once, in order."""
    found = {
        (m.group("verb").split()[0], m.group("name").removesuffix(".tex")): None
        for m in _REFUSED.finditer(output)
    }
    return list(found)


def engine_words(log_text: str) -> str | None:
    """The engine and distribution the log's banner names: "pdfTeX · TeX Live 2022"."""
    first = log_text.split("\n", 1)[0]
    match = _BANNER.match(first)
    if not match:
        return None
    return f"{match.group('engine')} · {match.group('dist')}"


def parse_log(text: str, root_dir: Path) -> LogReport:
    """Every diagnostic in a TeX log, each placed on a project file relative to `root_dir`."""
    reader = _Reader(text.splitlines(), root_dir.resolve())
    reader.read()
    return LogReport(
        diagnostics=list(dict.fromkeys(reader.diagnostics)),
        engine=engine_words(text),
        missing_files=reader.missing,
    )


class _Reader:
    def __init__(self, lines: list[str], root_dir: Path) -> None:
        self.lines = lines
        self.root_dir = root_dir
        self.i = 0
        self.stack: list[str | None] = []  # open files as the log prints them; None: a paren
        self.seen_files: list[str] = []  # project files opened, in order, for the locators
        self.closed: list[str] = []  # project files TeX finished reading, in order
        self.diagnostics: list[Diagnostic] = []
        self.missing: list[str] = []
        self._sources: dict[str, list[str]] = {}

    # -- the loop --------------------------------------------------------------------------
    def read(self) -> None:
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if not self._message(line):
                self._track_files(line)
                self.i += 1

    def _message(self, line: str) -> bool:
        """Handle a message starting at `line`; True when it consumed lines."""
        for pattern, handler in (
            (_FILE_LINE_ERROR, self._file_line_error),
            (_BANG_ERROR, self._bang_error),
            (_WARNING, self._warning),
            (_BOX, self._box),
            (_RUNSYSTEM, self._runsystem),
            (_PDFTEX_WARNING, self._pdftex_warning),
        ):
            match = pattern.match(line)
            if match and (pattern is not _FILE_LINE_ERROR or self._looks_like_file(match)):
                handler(match)
                return True
        return False

    def _track_files(self, line: str) -> None:
        """Follow `(file` and `)` through a line that is not a message."""
        pos = 0
        while True:
            opening = line.find("(", pos)
            closing = line.find(")", pos)
            if opening < 0 and closing < 0:
                return
            if closing < 0 or 0 <= opening < closing:
                match = _FILE_OPEN.match(line, opening)
                path = match.group("path").strip('"') if match else None
                if path is not None and self._is_file(path):
                    self.stack.append(path)
                    if self._project_path(path) is not None:
                        self.seen_files.append(path)
                    pos = match.end() if match else opening + 1
                else:
                    self.stack.append(None)
                    pos = opening + 1
            else:
                if self.stack:
                    closed = self.stack.pop()
                    if closed is not None and self._project_path(closed) is not None:
                        self.closed.append(closed)
                pos = closing + 1

    # -- messages ----------------------------------------------------------------------------
    def _file_line_error(self, match: re.Match[str]) -> None:
        self.i += 1
        message = self._continued(match.group("msg"))
        if self._fatal(message):
            return
        context = self._error_context()
        line = int(match.group("line"))
        self._error(match.group("file"), line, message, context)

    def _bang_error(self, match: re.Match[str]) -> None:
        self.i += 1
        message = self._continued(match.group("msg"))
        if self._fatal(message):
            return
        context = self._error_context()
        line = context.line
        self._error(self._current_file(), line, message, context)

    def _fatal(self, message: str) -> bool:
        """pdfTeX's closing "no output PDF" line: a consequence, unless nothing explains it."""
        if not message.startswith("==> Fatal error"):
            return False
        if not any(d.severity == "error" for d in self.diagnostics):
            self._add(self._root_file(), None, "error", "No PDF was written (fatal error).")
        return True

    def _error(self, file: str | None, line: int | None, message: str, context: _Context) -> None:
        if message.startswith("Emergency stop"):
            self._emergency_stop(file, line, context)
            return
        if message.startswith("Undefined control sequence") and context.top:
            names = _CONTROL_SEQUENCE.findall(context.top)
            if names:
                message = f"Undefined control sequence {names[-1]}"
        missing = _NOT_FOUND.search(message) or _CANT_FIND.search(message)
        located: int | None = None
        if missing:
            name = missing.group("name")
            self.missing.append(name)
            located = self._locate_name(file, Path(name.strip('"|')).stem)
        on_line = _ON_INPUT_LINE.search(message)
        # "\begin{x} on input line N ended by \end{y}": the mistake is the `\end` the log's
        # own context line names (a misspelt or a stray one), not the `\begin`, which the
        # message still names. Ended by `\end{document}`, `x` was never closed, and its
        # `\begin` is where to look; so it is with no context line.
        ended_by = _ENDED_BY.search(message)
        ended_here = (
            ended_by is not None and ended_by.group("env") != "document" and line is not None
        )
        if on_line and not ended_here:
            line = int(on_line.group("line"))
            file = self._begun_in(message, line) or file
        self._add(file, located or line, "error", message)

    def _begun_in(self, message: str, line: int) -> str | None:
        """The file of an environment's `\\begin` that LaTeX names by its line only (`\\begin{x}
        on input line N ended by …`): it may have begun in another file than its end."""
        begun = _BEGUN.search(message)
        if begun is None:
            return None
        pattern = re.compile(r"\\begin\s*\{" + re.escape(begun.group("env")) + r"\}")
        for file in reversed(dict.fromkeys(self.seen_files)):
            path = self._project_path(file)
            lines = self._source(path) if path is not None else []
            if 0 < line <= len(lines) and pattern.search(lines[line - 1]):
                return file
        return None

    def _emergency_stop(self, file: str | None, line: int | None, context: _Context) -> None:
        # The stop is usually the consequence of an error already reported; alone, it is the
        # error, and `<*>` as its context means the root ran out before \end{document}.
        if any(d.severity == "error" for d in self.diagnostics):
            return
        reason = context.reason or "job aborted"
        message = f"Emergency stop: {reason}"
        if line is None and context.at_end:
            file, line = self._root_file(), None
            message += " (the file ended before \\end{document})"
            root = self._project_path(file) if file else None
            if root is not None:
                lines = self._source(root)
                line = (len(lines) - (lines[-1] == "")) or None
        self._add(file, line, "error", message)

    def _warning(self, match: re.Match[str]) -> None:
        self.i += 1
        who, message = match.group("who"), self._continued(match.group("msg"))
        if message.startswith(_SUMMARY_WARNINGS):
            return
        line: int | None = None
        on_line = _ON_INPUT_LINE.search(message)
        if on_line:
            line = int(on_line.group("line"))
            message = _ON_INPUT_LINE.sub("", message).rstrip(" .") + "."
        file = self._current_file()
        twice = _LABEL_TWICE.search(message)
        if twice:
            file, line = self._second_label(twice.group("key"), file)
        severity: Severity = "info" if who == "LaTeX Font" else "warning"
        prefix = "" if who == "LaTeX" else f"{who}: "
        self._add(file, line, severity, prefix + message)

    def _box(self, match: re.Match[str]) -> None:
        self.i += 1
        start = self.i
        self._skip_to_blank()  # the box's contents: source text, parentheses and all
        line = int(match.group("line")) if match.group("line") else None
        file = self._current_file()
        if line is not None:
            file = self._paragraph_file(line, self.lines[start : self.i]) or file
        self._add(file, line, "info", match.group("msg"))

    def _paragraph_file(self, line: int, contents: list[str]) -> str | None:
        """Where a box's paragraph began: TeX numbers its first line in the file it was then
        reading, which may be one it has closed since (the paragraph ran on past the end of an
        `\\input` file). The file whose line holds the box's words is the one."""
        words = {w for w in re.findall(r"[A-Za-z]{4,}", " ".join(contents).replace("-", ""))}
        candidates = [self._current_file(), *reversed(self.closed[-4:])]
        for file in dict.fromkeys(c for c in candidates if c is not None):
            path = self._project_path(file)
            lines = self._source(path) if path is not None else []
            if 0 < line <= len(lines) and words & set(re.findall(r"[A-Za-z]{4,}", lines[line - 1])):
                return file
        return None

    def _runsystem(self, match: re.Match[str]) -> None:
        self.i += 1
        command = match.group("cmd")
        file = self._current_file()
        what = "did not run" if match.group("what") == "disabled" else "ran"
        line = self._locate_text(file, command)
        self._add(file, line, "warning", f"Shell escape is off, so this {what}: {command}")

    def _pdftex_warning(self, match: re.Match[str]) -> None:
        self.i += 1
        message = match.group("msg")
        severity: Severity = "info" if "found PDF version" in message else "warning"
        self._add(self._current_file(), None, severity, f"pdfTeX: {message}")

    # -- reading around a message -----------------------------------------------------------
    def _continued(self, message: str) -> str:
        """The message with its continuation lines (`(package)   more`), joined."""
        parts = [message.strip()]
        while self.i < len(self.lines):
            more = _CONTINUATION.match(self.lines[self.i])
            if not more:
                break
            parts.append(more.group("rest").strip())
            self.i += 1
        return " ".join(parts)

    def _error_context(self) -> _Context:
        """Consume an error's context and help, up to the blank line that ends it."""
        context = _Context()
        saw_l_line = False
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if saw_l_line and not line.strip():
                break
            if (_FILE_LINE_ERROR.match(line) or _BANG_ERROR.match(line)) and context.lines:
                break  # the next error begins without the blank line between
            self.i += 1
            context.lines.append(line)
            numbered = _CONTEXT_LINE.match(line)
            if numbered and not saw_l_line:
                saw_l_line = True
                context.line = int(numbered.group("line"))
                context.top = context.top or numbered.group("text")
            elif line.startswith("<*>"):
                context.at_end = True
            elif line.startswith("<") and context.top is None:
                context.top = line
            elif line.startswith("*** ("):
                context.reason = line.removeprefix("*** (").rstrip(")")
                if not saw_l_line:
                    break
            if len(context.lines) > 40:
                break
        return context

    def _skip_to_blank(self) -> None:
        while self.i < len(self.lines) and self.lines[self.i].strip():
            self.i += 1

    # -- places ------------------------------------------------------------------------------
    def _looks_like_file(self, match: re.Match[str]) -> bool:
        return self._is_file(match.group("file"))

    def _is_file(self, path: str) -> bool:
        if not re.search(r"\.[A-Za-z0-9]+$", path):
            return False
        candidate = Path(path) if path.startswith("/") else self.root_dir / path
        return candidate.exists()

    def _project_path(self, path: str) -> Path | None:
        """The source inside the root's folder that `path` names, or None: a system file, or
        one the build itself wrote (`.aux`, `.toc`, …), which is never where a mistake is."""
        resolved = (Path(path) if path.startswith("/") else self.root_dir / path).resolve()
        if resolved.suffix in _GENERATED:
            return None
        try:
            resolved.relative_to(self.root_dir)
        except ValueError:
            return None
        return resolved

    def _current_file(self) -> str | None:
        return next((entry for entry in reversed(self.stack) if entry is not None), None)

    def _root_file(self) -> str | None:
        return self.seen_files[0] if self.seen_files else None

    def _add(self, file: str | None, line: int | None, severity: Severity, message: str) -> None:
        place_file, place_line = self._place(file, line, message)
        self.diagnostics.append(Diagnostic(place_file, place_line, severity, message))

    def _place(self, file: str | None, line: int | None, message: str) -> tuple[str, int | None]:
        """A project file and line for a message about `file` (maybe a system file)."""
        project = self._project_path(file) if file else None
        if project is not None and line is not None and line > len(self._source(project)):
            project, line = self._file_with_line(project, line, message)
        if project is not None:
            return file_name(project, self.root_dir), line
        # From inside a package or class: say it on the project file that loaded it.
        loader = next(
            (entry for entry in reversed(self.stack)
             if entry is not None and self._project_path(entry) is not None),
            self.seen_files[0] if self.seen_files else None,
        )  # fmt: skip
        if loader is None:
            return (file or "?"), line
        loaded_by = self._locate_name(loader, Path(file).stem) if file else None
        return file_name(self._project_path(loader) or Path(loader), self.root_dir), loaded_by

    def _file_with_line(self, wrong: Path, line: int, message: str) -> tuple[Path, int | None]:
        """The file a message's line belongs in, when the file tracked has no such line (a
        stray `)` in the log's text closed the file TeX was reading): the project file read so
        far whose line holds a word the message quotes, else the only one that long; failing
        both, the file tracked, without a line."""
        quoted = re.findall(r"[`'\"]([^`'\"\s]+)'", message)
        candidates = []
        for file in reversed(dict.fromkeys(self.seen_files)):
            path = self._project_path(file)
            lines = self._source(path) if path is not None and path != wrong else []
            if path is not None and line <= len(lines):
                if any(word in lines[line - 1] for word in quoted):
                    return path, line
                candidates.append(path)
        return (candidates[0], line) if len(candidates) == 1 else (wrong, None)

    def _source(self, path: Path) -> list[str]:
        key = str(path)
        if key not in self._sources:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._sources[key] = strip_comments(text).split("\n")
        return self._sources[key]

    def _find(self, files: Iterable[str | None], pattern: re.Pattern[str]) -> list[tuple[str, int]]:
        hits: list[tuple[str, int]] = []
        for file in dict.fromkeys(f for f in files if f):
            path = self._project_path(file)
            if path is None:
                continue
            for number, text in enumerate(self._source(path), start=1):
                hits.extend((file, number) for _ in pattern.finditer(text))
        return hits

    def _locate_name(self, file: str | None, stem: str) -> int | None:
        """The line in `file` whose braces name `stem` (a package, an input, a graphic)."""
        if not stem:
            return None
        pattern = re.compile(r"\{[^{}]*(?<![\w-])" + re.escape(stem) + r"(?![\w-])[^{}]*\}")
        hits = self._find([file], pattern)
        return hits[0][1] if hits else None

    def _locate_text(self, file: str | None, text: str) -> int | None:
        hits = self._find([file], re.compile(re.escape(text)))
        return hits[0][1] if hits else None

    def _second_label(self, key: str, file: str | None) -> tuple[str | None, int | None]:
        pattern = re.compile(r"\\label\s*\{" + re.escape(key) + r"\}")
        hits = self._find(self.seen_files, pattern)
        if hits:
            return hits[min(1, len(hits) - 1)]  # the second \label is the one to rename
        return file, None


@dataclass
class _Context:
    lines: list[str] = field(default_factory=list)
    line: int | None = None  # from `l.N`
    top: str | None = None  # the context's top line: where TeX stopped reading
    reason: str | None = None  # `*** (job aborted, …)`
    at_end: bool = False  # `<*>`: TeX was reading the command line, the root had ended
