"""The git side of posing: what ever existed, what a commit holds, and the one commit a pose makes.

gitpython is imported on first use, so that nothing `jig verify` loads pays for it. The verifier
repo's root may sit below the git work tree's top; every path here is repo-relative (POSIX),
converted at this boundary.

"Ever existed" means: named by any commit reachable from the given refs, merges and renames
included (`--full-history --no-renames -m`), so a file deleted on a side branch that was merged
later still counts, and so does the old name of a renamed file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.errors import JigError, UsageError

if TYPE_CHECKING:
    from git import Repo as GitRepo
    from git.objects import Commit

_COMMIT_MARK = "\x01"


class GitProblem(JigError):
    """git itself failed (a hook, an identity, a lock); the message quotes it."""

    exit_code = 1


@dataclass(frozen=True)
class History:
    git: GitRepo
    root: Path  # the verifier repo's root, inside the work tree
    prefix: str  # the root relative to the work tree's top ("" when they are the same)

    # -- paths ------------------------------------------------------------------------------

    def to_git(self, rel: str) -> str:
        return f"{self.prefix}/{rel}" if self.prefix else rel

    def from_git(self, path: str) -> str | None:
        """The repo-relative path of a work-tree path, or None when it is outside the root."""
        if not self.prefix:
            return path
        head = self.prefix + "/"
        return path[len(head) :] if path.startswith(head) else None

    # -- refs -------------------------------------------------------------------------------

    def resolve(self, ref: str) -> str:
        """The commit `ref` names (its full id); `UsageError` when it names none."""
        from git.exc import GitCommandError

        try:
            return str(self.git.git.rev_parse("--verify", "--quiet", f"{ref}^{{commit}}"))
        except GitCommandError:
            raise UsageError(
                f"{ref!r} does not name a commit here; pass --base a branch, tag or commit id "
                "this clone has (in CI, fetch with depth 0)."
            ) from None

    def has(self, ref: str) -> bool:
        try:
            self.resolve(ref)
        except UsageError:
            return False
        return True

    def default_base(self) -> tuple[str, str]:
        """(how it was found, commit id): the merge base with origin/main, else HEAD~1."""
        if self.has("origin/main"):
            bases = self.git.merge_base("origin/main", "HEAD")
            if not bases or bases[0] is None:
                raise UsageError(
                    "HEAD shares no history with origin/main; pass --base the commit to "
                    "compare with."
                )
            return "merge base with origin/main", bases[0].hexsha
        if not self.has("HEAD~1"):
            raise UsageError(
                "HEAD has no parent and there is no origin/main; pass --base the commit to "
                "compare with."
            )
        return "HEAD~1", self.resolve("HEAD~1")

    # -- contents ---------------------------------------------------------------------------

    def _commit(self, commit_id: str) -> Commit:
        return self.git.commit(commit_id)

    def files_at(self, commit_id: str, folder: str) -> dict[str, str]:
        """Every file under repo-relative `folder` in that commit, links and submodules
        included: path → object id."""
        tree = self._commit(commit_id).tree
        try:
            sub = tree / self.to_git(folder)
        except KeyError:
            return {}
        found: dict[str, str] = {}
        for item in sub.traverse():
            rel = self.from_git(str(item.path))  # type: ignore[union-attr]
            if item.type in ("blob", "submodule") and rel is not None:  # type: ignore[union-attr]
                found[rel] = item.hexsha  # type: ignore[union-attr]
        return found

    def uncommitted(self, folders: tuple[str, ...]) -> list[str]:
        """Files under the repo-relative `folders` that the working tree holds but HEAD does
        not as they are: untracked, or changed (staged or not). Sorted, repo-relative."""
        inside = tuple(self.to_git(folder) + "/" for folder in folders)
        status = self.git.git.status("--porcelain=v1", "-z", "--untracked-files=all", "--", *inside)
        found = set()
        entries = iter(status.split("\0"))
        for entry in entries:
            if len(entry) < 4:
                continue
            if entry[0] in "RC":  # a rename's source follows as its own entry
                next(entries, None)
            rel = self.from_git(entry[3:])
            if rel is not None:
                found.add(rel)
        return sorted(found)

    def read(self, commit_id: str, rel: str) -> bytes | None:
        """A file's bytes in that commit; None when the commit has no such file."""
        try:
            blob = self._commit(commit_id).tree / self.to_git(rel)
        except KeyError:
            return None
        if blob.type != "blob":
            return None
        data: bytes = blob.data_stream.read()
        return data

    def ever(self, folder: str, *, reachable_from: str | None = None) -> dict[str, str]:
        """Every repo-relative path under `folder` that any commit reachable from
        `reachable_from` (default: every ref) ever held: path → newest commit naming it."""
        from git.exc import GitCommandError

        refs = [reachable_from] if reachable_from else ["--all"]
        argv = [
            *("git", "-c", "core.quotePath=false", "log", *refs),
            *("--full-history", "--no-renames", "-m", "--name-only"),
            *(f"--format={_COMMIT_MARK}%H", "--", self.to_git(folder)),
        ]
        try:
            text = str(self.git.git.execute(argv))
        except GitCommandError as exc:
            if not self.git.head.is_valid():  # no commit yet: no history at all
                return {}
            raise GitProblem(f"git log failed ({_last_line(exc)}); is the clone intact?") from exc
        found: dict[str, str] = {}
        commit = ""
        for line in text.splitlines():
            if line.startswith(_COMMIT_MARK):
                commit = line[len(_COMMIT_MARK) :]
            elif line.strip():
                rel = self.from_git(line)
                if rel is not None:
                    found.setdefault(rel, commit)
        return found

    # -- the one commit a pose makes --------------------------------------------------------

    def commit_only(self, paths: list[str], message: str) -> str:
        """Commit exactly `paths` (new files) with `message`, leaving anything else staged as it
        was; return the new commit's id."""
        from git.exc import GitCommandError

        in_tree = [self.to_git(rel) for rel in paths]
        try:
            self.git.git.add("--", *in_tree)
            self.git.git.commit("--only", "-m", message, "--", *in_tree)
        except GitCommandError as exc:
            raise GitProblem(
                f"the files are written but git refused the commit ({_last_line(exc)}); "
                f"commit them yourself: git add {' '.join(in_tree)} && git commit"
            ) from exc
        return self.git.head.commit.hexsha


def _last_line(error: Exception) -> str:
    said = str(getattr(error, "stderr", "") or error).strip()
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    return lines[-1].removeprefix("stderr: ").strip("'") if lines else "no message"


def history_for(root: Path, *, commit: bool) -> History | None:
    """`open_history`, refusing up front when `--commit` was asked outside a git repository."""
    history = open_history(root)
    if commit and history is None:
        raise UsageError(
            f"--commit needs a git repository, and {root} is not in one; pose without "
            "--commit or run `git init` first."
        )
    return history


def open_history(root: Path) -> History | None:
    """The git history of the verifier repo at `root`, or None when it is not in a git work tree."""
    from git import Repo as GitRepo
    from git.exc import InvalidGitRepositoryError, NoSuchPathError

    try:
        repo = GitRepo(root, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        return None
    if repo.working_tree_dir is None:  # a bare repository has no files to pose into
        return None
    top = Path(repo.working_tree_dir).resolve()
    prefix = root.resolve().relative_to(top).as_posix()
    return History(repo, root.resolve(), "" if prefix == "." else prefix)


def short(commit_id: str) -> str:
    return commit_id[:7]
