"""What the side-by-side kits' patch scripts share (`tools/*/patch_official.py`): a fresh
copy of the official code to patch, and replacements that stop when the text they expect
is not there (another version of the code) instead of patching nothing. A kit writes its
patches either as a table, `(file, old text, new text, why)` rows for `apply`, or as
steps of `sub` on a file's text.
"""
import pathlib
import shutil
import sys


def fresh_copy(src: pathlib.Path, dst: pathlib.Path) -> None:
    """Copies the official folder `src` to `dst`, replacing what was there."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)


def sub(text: str, old: str, new: str, path: str) -> str:
    """`text` with `old` replaced by `new`; exits naming `path` when `old` is absent."""
    if old not in text:
        sys.exit(f"{path}: expected text not found (another version of the code?): {old!r}")
    return text.replace(old, new)


def apply(root: pathlib.Path, patches, every: bool = False) -> None:
    """Applies `patches`, rows of (file under `root`, old text, new text, why), in order,
    printing each file and why. The old text must occur exactly once in the file (with
    `every`: at least once, and every occurrence is replaced); otherwise the script exits
    naming the file, the count and the patch."""
    root = pathlib.Path(root)
    for name, old, new, why in patches:
        path = root / name
        text = path.read_text()
        n = text.count(old)
        if n == 0 or (n != 1 and not every):
            sys.exit(f"{path}: the text to patch occurs {n} times, expected "
                     f"{'at least once' if every else 'once'} (another version of the code?; "
                     f"patch: {why}): {old[:60]!r}")
        path.write_text(text.replace(old, new))
        print(f"patched {path}: {why}")
